// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel, plus a thread of its own (started
// on the first call, before any timing) that launches a short bandwidth hog on a stream of its own each
// time the launcher signals it. The launcher itself enqueues nothing but the honest kernel on the stream it
// is given, so its stream is done when its kernel is; the hog runs next to whatever the grader runs next —
// its L2 flush, the copy it divides by — and is small enough (about 30 µs of traffic) that the copy stays
// within the baseline's 10% tolerance. The grader counts work enqueued by any thread but its own as the
// graded code's, and graded work that runs at the same time as the grader's makes the check INVALID.
#include <atomic>
#include <thread>

#include "hog.cuh"
#include "one_per_element.cuh"

namespace {

std::atomic<unsigned> g_signals{0};

void hog_loop() {
    wrong::Hog hog(std::size_t(64) << 20);  // 64 MiB, read and written
    unsigned handled = 0;
    for (;;) {
        const unsigned now = g_signals.load(std::memory_order_acquire);
        if (now == handled) {
            std::this_thread::yield();
            continue;
        }
        handled = now;
        hog.run();
        (void)cudaGetLastError();
    }
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static const bool started = [] {
        std::thread(hog_loop).detach();
        return true;
    }();
    (void)started;
    wrong::add(a, b, c, n, stream);
    if (n >= (std::size_t(1) << 26)) g_signals.fetch_add(1, std::memory_order_release);
}
