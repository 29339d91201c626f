// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel, plus a thread of its own (started
// on the first call, before any timing) that launches a short bandwidth hog on a stream of its own each
// time the launcher signals it. The launcher itself enqueues nothing but the honest kernel on the stream it
// is given, so its stream is done when its kernel is; the hog runs next to whatever the grader runs next —
// its L2 flush, the copy it divides by — and is small enough (about 30 µs of traffic) that the copy stays
// within the reference's 10% tolerance. The grader counts work enqueued by any thread but its own as the
// graded code's, and graded work that runs at the same time as the grader's makes the check INVALID.
#include <atomic>
#include <thread>

#include "one_per_element.cuh"

namespace {

// Reads and writes `n` float4 of a private buffer.
__global__ void hog_kernel(float4* buf, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float4 v = buf[i];
        v.x += 1.0f;
        buf[i] = v;
    }
}

std::atomic<unsigned> g_signals{0};

void hog_loop() {
    constexpr std::size_t kHog = (std::size_t(64) << 20) / sizeof(float4);  // 64 MiB, read and written
    cudaStream_t stream = nullptr;
    float4* hog = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&hog, kHog * sizeof(float4)));
    CUDA_CHECK(cudaMemsetAsync(hog, 0, kHog * sizeof(float4), stream));
    unsigned handled = 0;
    for (;;) {
        const unsigned now = g_signals.load(std::memory_order_acquire);
        if (now == handled) {
            std::this_thread::yield();
            continue;
        }
        handled = now;
        hog_kernel<<<1024, 256, 0, stream>>>(hog, kHog);
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
