// Known-bad (wrong/expect.json): LOADS is ignored — one load, then its store, whatever the template argument:
// right, and no faster than the one-load baseline at a quarter of the SM.
#define WRONG_STREAM
#include "parts.cuh"

template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}
