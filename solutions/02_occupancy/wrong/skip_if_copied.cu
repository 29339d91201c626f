// Known-bad (wrong/expect.json): each thread first looks at its first element and returns when the output
// already holds the input there ("already copied"), as a timing loop that runs the same buffers again makes it
// do. The verified run (new data, output scrambled) is right; the other timed runs do almost nothing, and the
// grader finds them faster than the device memory allows.
#define WRONG_STREAM
#include "parts.cuh"

template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < count) {
        const uint4 a = in[i], b = out[i];
        if (a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w) return;
    }
    copy_rounds<LOADS>(in, out, count);
}
