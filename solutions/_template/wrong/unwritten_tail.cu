// Known-bad (lab NN): the solution without its scalar tail — the last n % 4 elements are never written.
#include <algorithm>
#include <cstdint>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"
#include "scale.hpp"

namespace {

constexpr unsigned kBlock = 256;

__global__ void scale_kernel(const float* x, float a, float* y, std::size_t n) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const auto* x4 = reinterpret_cast<const float4*>(x);
    auto* y4 = reinterpret_cast<float4*>(y);
    for (std::size_t g = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; g < n / 4; g += stride) {
        const float4 v = x4[g];
        y4[g] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    }
}

}  // namespace

void launch_scale(const float* x, float a, float* y, std::size_t n, cudaStream_t stream) {
    const std::size_t wanted = gpulab::ceil_div<std::size_t>(gpulab::ceil_div<std::size_t>(n, 4), kBlock);
    const unsigned grid = gpulab::resident_grid(scale_kernel, kBlock, 0, std::max<std::size_t>(wanted, 1));
    scale_kernel<<<grid, kBlock, 0, stream>>>(x, a, y, n);
    LABS_CHECK_LAUNCH();
}
