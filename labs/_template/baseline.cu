// FROZEN: do not edit. Lab NN's baseline: one thread per element, 4-byte loads and stores.
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"
#include "scale.hpp"

namespace {

__global__ void scale_baseline_kernel(const float* x, float a, float* y, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

}  // namespace

void launch_scale_baseline(const float* x, float a, float* y, std::size_t n, cudaStream_t stream) {
    constexpr unsigned kBlock = 256;
    const auto grid = static_cast<unsigned>(gpulab::ceil_div<std::size_t>(n, kBlock));
    scale_baseline_kernel<<<grid, kBlock, 0, stream>>>(x, a, y, n);
    LABS_CHECK_LAUNCH();
}
