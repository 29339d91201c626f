// Known-bad (wrong/expect.json): a one-thread-per-element kernel (honestly worth partial credit) that,
// when the same buffers come back, skips the last 15% of the elements — the timing loop's repeats then
// look faster. The verified timed run (new data in the same buffers, its output scrambled first) is wrong.
#include <set>
#include <tuple>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static std::set<std::tuple<const float*, const float*, float*, std::size_t>> seen;
    const bool repeat = !seen.insert({a, b, c, n}).second;
    wrong::add(a, b, c, repeat ? n - n * 15 / 100 : n, stream);
}
