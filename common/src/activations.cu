// Activations as separate kernels (activations.hpp), computed with the shared device definitions.
#include "labs/activations.cuh"
#include "labs/activations.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace gpulab {
namespace {

constexpr unsigned kBlock = 256;

// One element per iteration of a grid-stride loop: simple on purpose (it is the unfused baseline).
__global__ void silu_kernel(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = silu_bf16(x[i]);
}

}  // namespace

void launch_silu(const __nv_bfloat16* x, __nv_bfloat16* y, std::size_t count, cudaStream_t stream) {
    if (count == 0) return;
    const std::size_t blocks = ceil_div<std::size_t>(count, kBlock);
    silu_kernel<<<static_cast<unsigned>(blocks < (1u << 20) ? blocks : (1u << 20)), kBlock, 0, stream>>>(x, y, count);
    LABS_CHECK_LAUNCH();
}

}  // namespace gpulab
