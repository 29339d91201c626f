// Known-bad (wrong/expect.json): counts its calls at the timed size and is honest for the first five — the
// correctness check, the 3 warm-ups and the first timed run, where a grader that verifies the first call (or
// the warm-ups) would look — then skips the last 15% of the elements on every later call. The grader verifies
// calls picked, after each call, from all the timed runs, from randomness the code cannot know: 3 of at least
// 16, so a skipping one is always among them.
#include <cstdint>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    constexpr std::size_t kTimed = std::size_t(1) << 27;
    static int calls_at_timed_size = 0;
    if (n != kTimed) {
        wrong::add(a, b, c, n, stream);
        return;
    }
    const int call = ++calls_at_timed_size;
    if (call <= 1 + 3 + 1) {
        wrong::add(a, b, c, n, stream);
        return;
    }
    wrong::add(a, b, c, n - n * 15 / 100, stream);
}
