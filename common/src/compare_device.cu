// Bit-for-bit comparison on the device.
#include <cstdint>
#include <stdexcept>

#include "labs/buffer.hpp"
#include "labs/compare_device.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace gpulab {
namespace {

// Counts differing elements and keeps the smallest differing index.
template <typename T>
__global__ void diff_kernel(const T* a, const T* b, std::size_t n, unsigned long long* count,
                            unsigned long long* first) {
    unsigned long long mine = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        if (a[i] != b[i]) {
            ++mine;
            atomicMin(first, static_cast<unsigned long long>(i));
        }
    }
    if (mine != 0) atomicAdd(count, mine);
}

template <typename T>
void launch(const void* a, const void* b, std::size_t n, unsigned long long* out, cudaStream_t stream) {
    const std::size_t blocks = ceil_div<std::size_t>(n, 256);
    diff_kernel<T><<<static_cast<unsigned>(blocks < 4096 ? (blocks == 0 ? 1 : blocks) : 4096), 256, 0, stream>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), n, out, out + 1);
    LABS_CHECK_LAUNCH();
}

}  // namespace

DeviceDiff compare_bits_device(const void* a, const void* b, std::size_t n, std::size_t elem_bytes, cudaStream_t stream) {
    DeviceBuffer<unsigned long long> out(2);
    const unsigned long long init[2] = {0, ~0ull};
    CUDA_CHECK(cudaMemcpyAsync(out.data(), init, sizeof init, cudaMemcpyHostToDevice, stream));
    switch (elem_bytes) {  // integers of the element's width: equal bits, not equal values (NaN, ±0)
        case 1: launch<std::uint8_t>(a, b, n, out.data(), stream); break;
        case 2: launch<std::uint16_t>(a, b, n, out.data(), stream); break;
        case 4: launch<std::uint32_t>(a, b, n, out.data(), stream); break;
        case 8: launch<std::uint64_t>(a, b, n, out.data(), stream); break;
        default: throw std::invalid_argument("compare_bits_device: elements of 1, 2, 4 or 8 bytes");
    }
    unsigned long long host[2];
    CUDA_CHECK(cudaMemcpyAsync(host, out.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    DeviceDiff d;
    d.count = static_cast<std::size_t>(host[0]);
    if (d.count > 0) d.first = static_cast<std::size_t>(host[1]);
    return d;
}

}  // namespace gpulab
