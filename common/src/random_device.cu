// Device fills: element i depends only on (seed, i), like the host fills in random.cpp.
#include <cuda_bf16.h>

#include "labs/cuda_check.hpp"
#include "labs/random.hpp"

namespace gpulab {
namespace {

__global__ void fill_uniform_kernel(float* out, std::size_t n, std::uint64_t seed, float lo, float hi) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = uniform_at(seed, i, lo, hi);
}

__global__ void fill_uniform_bf16_kernel(__nv_bfloat16* out, std::size_t n, std::uint64_t seed, float lo,
                                         float hi) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16_rn(uniform_at(seed, i, lo, hi));
}

__global__ void fill_random_bytes_kernel(unsigned char* out, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<unsigned char>(random_bits(seed, i) >> 56);
}

unsigned fill_grid(std::size_t n) {
    const std::size_t blocks = ceil_div<std::size_t>(n, 256);
    return static_cast<unsigned>(blocks < 65536 ? (blocks == 0 ? 1 : blocks) : 65536);
}

}  // namespace

void fill_uniform_device(float* out, std::size_t n, std::uint64_t seed, float lo, float hi,
                         cudaStream_t stream) {
    if (n == 0) return;
    fill_uniform_kernel<<<fill_grid(n), 256, 0, stream>>>(out, n, seed, lo, hi);
    LABS_CHECK_LAUNCH();
}

void fill_uniform_bf16_device(__nv_bfloat16* out, std::size_t n, std::uint64_t seed, float lo, float hi,
                              cudaStream_t stream) {
    if (n == 0) return;
    fill_uniform_bf16_kernel<<<fill_grid(n), 256, 0, stream>>>(out, n, seed, lo, hi);
    LABS_CHECK_LAUNCH();
}

void fill_random_bytes_device(void* out, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
    if (bytes == 0) return;
    fill_random_bytes_kernel<<<fill_grid(bytes), 256, 0, stream>>>(static_cast<unsigned char*>(out), bytes, seed);
    LABS_CHECK_LAUNCH();
}

}  // namespace gpulab
