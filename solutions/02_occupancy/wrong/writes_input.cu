// Known-bad (wrong/expect.json): the copy is right, and then each thread clears the input it read (through a
// cast away from const). The grader compares the output with a copy of the input taken before the run, and
// checks that the input is unchanged.
#define WRONG_STREAM
#include "parts.cuh"

template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    copy_rounds<LOADS>(in, out, count);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        const_cast<uint4*>(in)[i] = make_uint4(0, 0, 0, 0);
}
