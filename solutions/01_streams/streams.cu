// Lab 01 solution. What changed from the serial path (baseline.cu's run_serial), and why:
// - Pinned host memory, allocated once (Pipeline's constructor) and reused: copies from pageable memory are
//   staged by the driver through a small pinned buffer of its own, one piece after another; from pinned
//   memory the copy engine reads the host directly, at full link speed, and the copy can be asynchronous.
// - Chunks over two device slots and three streams: while chunk j is computed, chunk j + 1 is copied in
//   and chunk j − 1 copied out, each on its own engine. Nothing inside the loop waits on the host: every
//   reuse of a slot is ordered on the device by an event recorded after the slot's last use.
// - The three clocks: the host clock around the enqueuing calls (they return long before the work is
//   done), CUDA events around the work on its stream, and the host clock until the result is usable.
// - chaos.point() and chaos.done() around every copy and kernel: the bench's timeline (lab01_bench --timeline)
//   records an event there; the grader's chaos and checks do not use them.
// - The watchdog polls (cudaStreamQuery, cudaEventQuery) instead of blocking, so it can stop at its deadline
//   and say what is still running.
#include <algorithm>
#include <chrono>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "streams.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

constexpr int kSlots = 2;

}  // namespace

Clocks three_clocks(const std::uint16_t* pinned_in, std::uint16_t* pinned_out, __nv_bfloat16* dev_in,
                    __nv_bfloat16* dev_out, std::size_t n, int iters, cudaStream_t stream) {
    cudaEvent_t start = nullptr, stop = nullptr;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    const std::size_t bytes = n * sizeof(std::uint16_t);
    Clocks c;
    const Clock::time_point t0 = Clock::now();
    CUDA_CHECK(cudaEventRecord(start, stream));
    CUDA_CHECK(cudaMemcpyAsync(dev_in, pinned_in, bytes, cudaMemcpyHostToDevice, stream));
    launch_work(dev_in, dev_out, n, iters, stream);
    CUDA_CHECK(cudaMemcpyAsync(pinned_out, dev_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaEventRecord(stop, stream));
    c.submit_ms = ms_since(t0);            // every call above has returned: the work is only queued
    CUDA_CHECK(cudaEventSynchronize(stop));  // the result is in pinned_out from here on
    c.end_to_end_ms = ms_since(t0);
    float device = 0;
    CUDA_CHECK(cudaEventElapsedTime(&device, start, stop));
    c.device_ms = device;
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return c;
}

struct Pipeline::State {
    std::size_t max_elements = 0, max_chunks = 0;
    gpulab::PinnedBuffer<std::uint16_t> in, out;  // the whole tensor, pinned once
    gpulab::DeviceBuffer<__nv_bfloat16> dev_in[kSlots], dev_out[kSlots];
    cudaStream_t copy_in = nullptr, compute = nullptr, copy_out = nullptr;
    // Per slot, the last use of each of its two device buffers: recorded after it, waited for before reuse.
    cudaEvent_t copied_in[kSlots] = {}, computed[kSlots] = {}, copied_out[kSlots] = {};
};

Pipeline::Pipeline(std::size_t max_elements, std::size_t max_chunks) : state_(new State) {
    State& s = *state_;
    s.max_elements = max_elements;
    s.max_chunks = std::max<std::size_t>(1, max_chunks);
    s.in = gpulab::PinnedBuffer<std::uint16_t>(max_elements);
    s.out = gpulab::PinnedBuffer<std::uint16_t>(max_elements);
    // A slot holds the largest chunk: with one chunk, the whole tensor.
    for (int i = 0; i < kSlots; ++i) {
        s.dev_in[i] = gpulab::DeviceBuffer<__nv_bfloat16>(max_elements);
        s.dev_out[i] = gpulab::DeviceBuffer<__nv_bfloat16>(max_elements);
        CUDA_CHECK(cudaEventCreateWithFlags(&s.copied_in[i], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s.computed[i], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s.copied_out[i], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.copy_in, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.copy_out, cudaStreamNonBlocking));
}

Pipeline::~Pipeline() {
    State& s = *state_;
    (void)cudaStreamSynchronize(s.copy_out);
    for (int i = 0; i < kSlots; ++i) {
        (void)cudaEventDestroy(s.copied_in[i]);
        (void)cudaEventDestroy(s.computed[i]);
        (void)cudaEventDestroy(s.copied_out[i]);
    }
    (void)cudaStreamDestroy(s.copy_in);
    (void)cudaStreamDestroy(s.compute);
    (void)cudaStreamDestroy(s.copy_out);
    delete state_;
}

std::uint16_t* Pipeline::input() noexcept { return state_->in.data(); }

const std::uint16_t* Pipeline::output() const noexcept { return state_->out.data(); }

void Pipeline::run(std::size_t n, int iters, std::size_t chunks, Chaos& chaos) {
    State& s = *state_;
    chunks = std::clamp<std::size_t>(chunks, 1, std::min(n, s.max_chunks));
    const std::size_t chunk = (n + chunks - 1) / chunks;
    for (std::size_t j = 0, first = 0; first < n; ++j, first += chunk) {
        const int slot = static_cast<int>(j % kSlots);
        const std::size_t count = std::min(chunk, n - first), bytes = count * sizeof(std::uint16_t);
        __nv_bfloat16* in = s.dev_in[slot].data();
        __nv_bfloat16* out = s.dev_out[slot].data();
        // Copy in, once the slot's input is no longer read by the chunk that used it before ("compute done").
        // Before the slot's first use the event was never recorded, and the wait returns at once.
        CUDA_CHECK(cudaStreamWaitEvent(s.copy_in, s.computed[slot]));
        chaos.point(s.copy_in);
        CUDA_CHECK(cudaMemcpyAsync(in, s.in.data() + first, bytes, cudaMemcpyHostToDevice, s.copy_in));
        chaos.done(s.copy_in);
        CUDA_CHECK(cudaEventRecord(s.copied_in[slot], s.copy_in));
        // Compute, once this chunk is in ("copy done") and the slot's output has been copied out ("copy-out done").
        CUDA_CHECK(cudaStreamWaitEvent(s.compute, s.copied_in[slot]));
        CUDA_CHECK(cudaStreamWaitEvent(s.compute, s.copied_out[slot]));
        chaos.point(s.compute);
        launch_work(in, out, count, iters, s.compute);
        chaos.done(s.compute);
        CUDA_CHECK(cudaEventRecord(s.computed[slot], s.compute));
        // Copy out, once computed.
        CUDA_CHECK(cudaStreamWaitEvent(s.copy_out, s.computed[slot]));
        chaos.point(s.copy_out);
        CUDA_CHECK(cudaMemcpyAsync(s.out.data() + first, out, bytes, cudaMemcpyDeviceToHost, s.copy_out));
        chaos.done(s.copy_out);
        CUDA_CHECK(cudaEventRecord(s.copied_out[slot], s.copy_out));
    }
    // After the loop: the copy-out stream's last copy follows every kernel, which follow every copy in.
    CUDA_CHECK(cudaStreamSynchronize(s.copy_out));
}

WatchReport watch(const std::vector<Watched>& items, double deadline_ms) {
    const Clock::time_point t0 = Clock::now();
    std::vector<bool> done(items.size(), false);
    WatchReport r;
    for (;;) {
        bool all = true;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (done[i]) continue;
            const cudaError_t e = items[i].stream != nullptr ? cudaStreamQuery(items[i].stream) : cudaEventQuery(items[i].event);
            if (e == cudaSuccess) done[i] = true;
            else if (e == cudaErrorNotReady) all = false;
            else CUDA_CHECK(e);  // a real error: say so
        }
        r.waited_ms = ms_since(t0);
        if (all || r.waited_ms >= deadline_ms) {
            r.finished = all;
            break;
        }
        // Poll again at once: a watchdog that sleeps would need a system call, which graded code may not make;
        // each query is a cheap look at the stream's or event's state.
    }
    for (std::size_t i = 0; i < items.size(); ++i)
        if (!done[i]) r.unfinished.push_back(items[i].name);
    return r;
}
