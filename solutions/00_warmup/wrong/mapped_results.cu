// Known-bad (wrong/expect.json): keeps each result in pinned, mapped host memory (cudaHostAlloc with
// cudaHostAllocMapped: no device allocation, no cudaMemcpy) and, when the same buffers come back, a kernel
// copies the kept result from the mapping into c instead of adding (zero-copy over the host link). Every timed
// call gets new inputs in the same buffers, so the kept result is stale and the verified calls are wrong.
#include <map>
#include <tuple>

#include "one_per_element.cuh"

namespace {

__global__ void copy_from_mapping(const float* kept, float* c, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        c[i] = kept[i];
}

__global__ void add_and_keep(const float* a, const float* b, float* c, float* kept, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) kept[i] = c[i] = a[i] + b[i];
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static std::map<std::tuple<const float*, const float*, float*, std::size_t>, float*> kept;
    const auto key = std::make_tuple(a, b, c, n);
    if (const auto it = kept.find(key); it != kept.end()) {
        float* device_view = nullptr;
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view), it->second, 0));
        copy_from_mapping<<<1024, 256, 0, stream>>>(device_view, c, n);
        LABS_CHECK_LAUNCH();
        return;
    }
    float* host = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), n * sizeof(float), cudaHostAllocMapped));
    kept[key] = host;
    float* device_view = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host, 0));
    add_and_keep<<<static_cast<unsigned>(gpulab::ceil_div<std::size_t>(n, 256)), 256, 0, stream>>>(a, b, c, device_view, n);
    LABS_CHECK_LAUNCH();
}
