// Known-bad (wrong/expect.json): the streaming copy does whole rounds of LOADS loads only; the last elements,
// fewer than a round, are never copied (right at LOADS = 1, wrong above it).
#define WRONG_STREAM
#include "parts.cuh"

template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i + (LOADS - 1) * stride < count;
         i += LOADS * stride) {
        uint4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = in[i + k * stride];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) out[i + k * stride] = v[k];
    }
}
