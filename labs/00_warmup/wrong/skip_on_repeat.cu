// Known-bad (wrong/expect.json): computes c once per set of buffers and launches nothing when the same
// buffers come back, as a timing loop brings them back. The timed runs then take no time at all: below
// the physical floor (the bytes at the theoretical DRAM bandwidth), which the grader flags, not rewards.
#include <tuple>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static std::tuple<const float*, const float*, float*, std::size_t> last{};
    if (last == std::make_tuple(a, b, c, n)) return;
    last = {a, b, c, n};
    wrong::add(a, b, c, n, stream);
}
