// Known-bad (wrong/expect.json): bandwidth_hog.cu made careful. After the honest kernel, on a private stream
// that waits for it, a short bandwidth hog (about 30 µs of traffic): it lands on whatever the grader times
// next, slows the copy by less than the baseline's 10% tolerance and is over long before any idle check
// could look; and it stays away from a second call on the same buffers, where the grader's old leftover-work
// probe ran. The drift check cannot see it; the observer can: graded work running at the same time as the
// grader's own work makes the check INVALID.
#include "hog.cuh"
#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static wrong::Hog hog(std::size_t(64) << 20);  // 64 MiB, read and written
    static const float* last_c = nullptr;
    wrong::add(a, b, c, n, stream);
    const bool repeat = c == last_c;
    last_c = c;
    if (repeat || n < (std::size_t(1) << 26)) return;
    hog.run_after(stream);
}
