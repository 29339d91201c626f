// Known-bad (wrong/expect.json): a grid-stride kernel in which each thread first checks one element of its
// range — c already equal to a + b? — and skips the whole range when it is (a result left from the call before,
// on the same buffers). The grader's poisoned outputs never match, so every correctness check sees full work.
// Every timed call gets new inputs and an output filled with random bytes before it, so the sample never
// matches there either: the trick never fires, costs next to nothing and earns nothing — the kernel is graded
// at its honest speed, that of a scalar grid-stride loop. (Were the outputs not scrambled before every call,
// the repeats would do no work at all and the time would fall below the physical floor.)
#include "one_per_element.cuh"

namespace {

__global__ void sampled_add(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (first < n && c[first] == a[first] + b[first]) return;  // "already done": skip my whole range
    for (std::size_t i = first; i < n; i += stride) c[i] = a[i] + b[i];
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    constexpr unsigned kBlock = 256;
    const unsigned grid = gpulab::resident_grid(sampled_add, kBlock, 0, gpulab::ceil_div<std::size_t>(n, kBlock));
    sampled_add<<<grid, kBlock, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}
