// Known-bad (wrong/expect.json): computes c once per set of buffers and launches nothing when a set of
// buffers comes back, as a timing loop brings them back. The verified timed run (new data in the same
// buffers, its output scrambled first) then finds the output wrong; were it not verified, the time would
// fall below the physical floor (bytes at the theoretical DRAM bandwidth), which is flagged, not rewarded.
#include <set>
#include <tuple>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static std::set<std::tuple<const float*, const float*, float*, std::size_t>> seen;
    if (!seen.insert({a, b, c, n}).second) return;
    wrong::add(a, b, c, n, stream);
}
