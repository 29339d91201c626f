// Shared by lab 01's known-bad versions: one plain implementation of streams.cu with exactly one defect, named
// by the including file before it includes this one:
//
//   #define LAB01_DEFECT skip_compute_wait
//   #include "pipeline.cuh"
//
// The defects (wrong/expect.json says what the grader reports for each):
//   skip_compute_wait      the copy into a slot does not wait for the slot's previous kernel ("compute done")
//   chaos_idle_stream      the same race, with chaos.point()/done() announced on an idle stream of its own (the
//                          old grader's chaos went only where the pipeline announced it)
//   one_stream             every copy and kernel on one stream (right, and nothing overlaps)
//   blocking_watch         the watchdog blocks on each stream and event instead of polling
//   watch_claims_deadline  the watchdog polls for 5 ms and reports that it waited the whole deadline
//   host_device_clock      the "device" clock is the host clock around a synchronised call
//   clocks_drained         three_clocks() drains the stream first, then host-times a synchronised call and
//                          reports it as device and end to end, with a made-up submit time
//   pageable               input() and output() are ordinary (pageable) host memory
//   zero_copy              no copies: one launch_work reads input() and writes output() over the link
//   alloc_per_run          device slots (cudaMallocAsync) and a pinned output staging buffer (cudaMallocHost)
//                          allocated in every run()
//   memo_shape             replays its last output when run() is called again with the same n, iters, chunks
//   predicts_verified      does the work only on the calls the old grader verified (the first at each n and
//                          chunk count, the 12th and 24th at the timed size); otherwise returns at once
//   no_final_sync          from the second run at the timed size on, returns without waiting for the last copy
//   gpu_hog                from the second run at the timed size on, leaves a 12 ms spin kernel running on a
//                          stream of its own
//   host_hog_thread        from the second run at the timed size on, a thread of its own streams host memory
//   none                   no defect in the pipeline itself: for the versions that add their own code through
//                          the hooks below (what the code policy stops: instruments.cu, chaos_hook_off.cu)
//
// Hooks an including file may define (as macros, so that a version's extra calls exist in its object only):
//   LAB01_RUN_START()        a statement at the start of Pipeline::run
//   LAB01_DEVICE_MS(ms)      what three_clocks() reports as the device time, from its events' `ms`
//   LAB01_ON_HANG()          a statement where watch() gives up with something unfinished
#pragma once

#ifndef LAB01_RUN_START
#define LAB01_RUN_START() do { } while (false)
#endif
#ifndef LAB01_DEVICE_MS
#define LAB01_DEVICE_MS(ms) (ms)
#endif
#ifndef LAB01_ON_HANG
#define LAB01_ON_HANG() do { } while (false)
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "streams.hpp"

namespace wrong {
enum class Defect {
    skip_compute_wait,
    chaos_idle_stream,
    one_stream,
    blocking_watch,
    watch_claims_deadline,
    host_device_clock,
    clocks_drained,
    pageable,
    zero_copy,
    alloc_per_run,
    memo_shape,
    predicts_verified,
    no_final_sync,
    gpu_hog,
    host_hog_thread,
    none,
};
constexpr Defect kDefect = Defect::LAB01_DEFECT;
constexpr bool is(Defect d) { return kDefect == d; }
constexpr bool kSkipComputeWait = is(Defect::skip_compute_wait) || is(Defect::chaos_idle_stream);
constexpr bool kPageable = is(Defect::pageable);
constexpr std::size_t kTimedElements = std::size_t(32) << 20;

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A spin of `cycles` clock cycles on one thread per block (gpu_hog).
__global__ void hog_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
}  // namespace wrong

Clocks three_clocks(const std::uint16_t* pinned_in, std::uint16_t* pinned_out, __nv_bfloat16* dev_in,
                    __nv_bfloat16* dev_out, std::size_t n, int iters, cudaStream_t stream) {
    Clocks c;
    if (wrong::is(wrong::Defect::clocks_drained)) {
        CUDA_CHECK(cudaStreamSynchronize(stream));  // the work queued ahead is gone before any clock starts
        const auto t0 = wrong::Clock::now();
        CUDA_CHECK(cudaMemcpyAsync(dev_in, pinned_in, n * 2, cudaMemcpyHostToDevice, stream));
        launch_work(dev_in, dev_out, n, iters, stream);
        CUDA_CHECK(cudaMemcpyAsync(pinned_out, dev_out, n * 2, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        c.device_ms = c.end_to_end_ms = std::max(0.001, wrong::ms_since(t0) - 0.01);  // less a "calibrated" latency
        c.submit_ms = 0.001;
        return c;
    }
    cudaEvent_t a = nullptr, b = nullptr;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    const auto t0 = wrong::Clock::now();
    CUDA_CHECK(cudaEventRecord(a, stream));
    CUDA_CHECK(cudaMemcpyAsync(dev_in, pinned_in, n * 2, cudaMemcpyHostToDevice, stream));
    launch_work(dev_in, dev_out, n, iters, stream);
    CUDA_CHECK(cudaMemcpyAsync(pinned_out, dev_out, n * 2, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaEventRecord(b, stream));
    c.submit_ms = wrong::ms_since(t0);
    CUDA_CHECK(cudaEventSynchronize(b));
    c.end_to_end_ms = wrong::ms_since(t0);
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    c.device_ms = wrong::is(wrong::Defect::host_device_clock) ? c.end_to_end_ms : LAB01_DEVICE_MS(double(ms));
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return c;
}

struct Pipeline::State {
    gpulab::PinnedBuffer<std::uint16_t> pin_in, pin_out;
    std::vector<std::uint16_t> page_in, page_out;
    gpulab::DeviceBuffer<__nv_bfloat16> in[2], out[2];
    cudaStream_t s[3] = {};
    cudaStream_t idle = nullptr;  // chaos_idle_stream: where the announcements go; nothing runs on it
    cudaStream_t hog = nullptr;   // gpu_hog
    cudaEvent_t copied[2] = {}, computed[2] = {}, drained[2] = {};
    std::size_t max_chunks = 1;
    // memo_shape, predicts_verified, and the triggers of the defects that wait for the timed runs
    std::size_t last_n = 0, last_chunks = 0, timed_calls = 0;
    int last_iters = -1;
    std::vector<std::uint16_t> memo;
    std::vector<std::size_t> seen_n;  // predicts_verified: the shapes (n, chunks) seen
    std::thread hog_thread;
    std::atomic<bool> stop{false};

    // memo_shape and predicts_verified decide before any work: true when run() returns now (memo_shape having
    // replayed its last output into `result`).
    bool skips_call(std::size_t n, int iters, std::size_t chunks, std::uint16_t* result) {
        const bool repeat = n == last_n && iters == last_iters && chunks == last_chunks;
        last_n = n;
        last_iters = iters;
        last_chunks = chunks;
        if (wrong::is(wrong::Defect::memo_shape) && repeat) {
            std::memcpy(result, memo.data(), n * 2);  // "the same call again: the same result"
            return true;
        }
        if (!wrong::is(wrong::Defect::predicts_verified)) return false;
        // The old grader verified the first call at each shape, and the call after each check's timed runs.
        const std::size_t shape = n * 131 + chunks;
        const bool first = std::find(seen_n.begin(), seen_n.end(), shape) == seen_n.end();
        if (first) seen_n.push_back(shape);
        return !first && !(n == wrong::kTimedElements && (timed_calls == 12 || timed_calls == 24));
    }

    // host_hog_thread and gpu_hog: their load, started once the timed size comes again.
    void start_hogs() {
        if (wrong::is(wrong::Defect::host_hog_thread) && !hog_thread.joinable())
            hog_thread = std::thread([this] {
                std::vector<char> a(std::size_t(256) << 20, 1), b(a.size());
                while (!stop) std::memcpy(b.data(), a.data(), a.size()), std::swap(a, b);
            });
        if (wrong::is(wrong::Defect::gpu_hog)) {
            int dev = 0, sms = 0, khz = 0;
            CUDA_CHECK(cudaGetDevice(&dev));
            CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
            CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
            wrong::hog_kernel<<<sms, 32, 0, hog>>>(static_cast<long long>(12.0 * khz));  // 12 ms, one block per SM
            CUDA_CHECK(cudaGetLastError());
        }
    }

    // alloc_per_run: device slots and a pinned staging buffer for the output, allocated in the run; free_per_run()
    // copies the output out of the staging buffer and frees them all.
    std::uint16_t* allocate_per_run(std::size_t chunk, std::size_t n, __nv_bfloat16* (&slot_in)[2],
                                    __nv_bfloat16* (&slot_out)[2]) {
        for (int k = 0; k < 2; ++k) {
            CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&slot_in[k]), chunk * 2, s[0]));
            CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&slot_out[k]), chunk * 2, s[0]));
        }
        std::uint16_t* staging = nullptr;
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&staging), n * 2));
        CUDA_CHECK(cudaStreamSynchronize(s[0]));  // the other streams use the slots too
        return staging;
    }
    void free_per_run(std::uint16_t* result, std::uint16_t* staging, std::size_t n, __nv_bfloat16* const (&slot_in)[2],
                      __nv_bfloat16* const (&slot_out)[2], cudaStream_t out_s) {
        std::memcpy(result, staging, n * 2);
        CUDA_CHECK(cudaFreeHost(staging));
        for (int k = 0; k < 2; ++k) {
            CUDA_CHECK(cudaFreeAsync(slot_in[k], out_s));
            CUDA_CHECK(cudaFreeAsync(slot_out[k], out_s));
        }
        CUDA_CHECK(cudaStreamSynchronize(out_s));
    }
};

Pipeline::Pipeline(std::size_t max_elements, std::size_t max_chunks) : state_(new State) {
    State& st = *state_;
    st.max_chunks = max_chunks;
    if (wrong::kPageable) {
        st.page_in.resize(max_elements);
        st.page_out.resize(max_elements);
    } else {
        st.pin_in = gpulab::PinnedBuffer<std::uint16_t>(max_elements);
        st.pin_out = gpulab::PinnedBuffer<std::uint16_t>(max_elements);
    }
    for (int i = 0; i < 2; ++i) {
        if (!wrong::is(wrong::Defect::alloc_per_run)) {
            st.in[i] = gpulab::DeviceBuffer<__nv_bfloat16>(max_elements);
            st.out[i] = gpulab::DeviceBuffer<__nv_bfloat16>(max_elements);
        }
        for (cudaEvent_t* e : {&st.copied[i], &st.computed[i], &st.drained[i]})
            CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    }
    for (cudaStream_t& s : st.s) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&st.idle, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&st.hog, cudaStreamNonBlocking));
}

Pipeline::~Pipeline() {
    state_->stop = true;
    if (state_->hog_thread.joinable()) state_->hog_thread.join();
    for (cudaStream_t s : state_->s) (void)cudaStreamSynchronize(s);
    (void)cudaStreamSynchronize(state_->hog);
    delete state_;
}

std::uint16_t* Pipeline::input() noexcept { return wrong::kPageable ? state_->page_in.data() : state_->pin_in.data(); }
const std::uint16_t* Pipeline::output() const noexcept {
    return wrong::kPageable ? state_->page_out.data() : state_->pin_out.data();
}

void Pipeline::run(std::size_t n, int iters, std::size_t chunks, Chaos& chaos) {
    LAB01_RUN_START();
    State& st = *state_;
    chunks = std::clamp<std::size_t>(chunks, 1, std::min(n, st.max_chunks));
    std::uint16_t* const result = const_cast<std::uint16_t*>(output());
    // What the defects that wait for the grader's timed runs key on: the timed size, seen again.
    const bool timed_again = n == wrong::kTimedElements && st.timed_calls++ > 0;
    if (st.skips_call(n, iters, chunks, result)) return;
    if (timed_again) st.start_hogs();
    if (wrong::is(wrong::Defect::zero_copy)) {
        // Pinned memory is mapped into the device's address space: the kernel reads and writes it over the link.
        launch_work(reinterpret_cast<const __nv_bfloat16*>(input()), reinterpret_cast<__nv_bfloat16*>(result), n, iters,
                    st.s[1]);
        CUDA_CHECK(cudaStreamSynchronize(st.s[1]));
        return;
    }
    const std::size_t chunk = (n + chunks - 1) / chunks;
    const bool one = wrong::is(wrong::Defect::one_stream);
    cudaStream_t in_s = st.s[0], work_s = one ? st.s[0] : st.s[1], out_s = one ? st.s[0] : st.s[2];
    const auto point = [&](cudaStream_t s) { chaos.point(wrong::is(wrong::Defect::chaos_idle_stream) ? st.idle : s); };
    const auto done = [&](cudaStream_t s) { chaos.done(wrong::is(wrong::Defect::chaos_idle_stream) ? st.idle : s); };
    __nv_bfloat16* slot_in[2] = {st.in[0].data(), st.in[1].data()};
    __nv_bfloat16* slot_out[2] = {st.out[0].data(), st.out[1].data()};
    std::uint16_t* const staging =
        wrong::is(wrong::Defect::alloc_per_run) ? st.allocate_per_run(chunk, n, slot_in, slot_out) : nullptr;
    std::uint16_t* const to = staging != nullptr ? staging : result;
    for (std::size_t j = 0, first = 0; first < n; ++j, first += chunk) {
        const int k = static_cast<int>(j % 2);
        const std::size_t count = std::min(chunk, n - first);
        if (!wrong::kSkipComputeWait) CUDA_CHECK(cudaStreamWaitEvent(in_s, st.computed[k]));
        point(in_s);
        CUDA_CHECK(cudaMemcpyAsync(slot_in[k], input() + first, count * 2, cudaMemcpyHostToDevice, in_s));
        done(in_s);
        CUDA_CHECK(cudaEventRecord(st.copied[k], in_s));
        CUDA_CHECK(cudaStreamWaitEvent(work_s, st.copied[k]));
        CUDA_CHECK(cudaStreamWaitEvent(work_s, st.drained[k]));
        point(work_s);
        launch_work(slot_in[k], slot_out[k], count, iters, work_s);
        done(work_s);
        CUDA_CHECK(cudaEventRecord(st.computed[k], work_s));
        CUDA_CHECK(cudaStreamWaitEvent(out_s, st.computed[k]));
        point(out_s);
        CUDA_CHECK(cudaMemcpyAsync(to + first, slot_out[k], count * 2, cudaMemcpyDeviceToHost, out_s));
        done(out_s);
        CUDA_CHECK(cudaEventRecord(st.drained[k], out_s));
    }
    if (wrong::is(wrong::Defect::no_final_sync) && timed_again) return;  // "the caller will wait anyway"
    CUDA_CHECK(cudaStreamSynchronize(out_s));
    if (staging != nullptr) st.free_per_run(result, staging, n, slot_in, slot_out, out_s);
    if (wrong::is(wrong::Defect::memo_shape)) st.memo.assign(result, result + n);
}

WatchReport watch(const std::vector<Watched>& items, double deadline_ms) {
    const auto t0 = wrong::Clock::now();
    std::vector<bool> done(items.size(), false);
    WatchReport r;
    for (;;) {
        bool all = true;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (done[i]) continue;
            if (wrong::is(wrong::Defect::blocking_watch)) {
                if (items[i].stream != nullptr) CUDA_CHECK(cudaStreamSynchronize(items[i].stream));
                else CUDA_CHECK(cudaEventSynchronize(items[i].event));
                done[i] = true;
                continue;
            }
            const cudaError_t e = items[i].stream != nullptr ? cudaStreamQuery(items[i].stream) : cudaEventQuery(items[i].event);
            if (e == cudaSuccess) done[i] = true;
            else if (e == cudaErrorNotReady) all = false;
            else CUDA_CHECK(e);
        }
        r.waited_ms = wrong::ms_since(t0);
        if (wrong::is(wrong::Defect::watch_claims_deadline) && !all && r.waited_ms >= 5) {
            r.waited_ms = deadline_ms;  // "it would not have finished anyway"
            r.finished = false;
            break;
        }
        if (all || r.waited_ms >= deadline_ms) {
            r.finished = all;
            break;
        }
    }
    for (std::size_t i = 0; i < items.size(); ++i)
        if (!done[i]) r.unfinished.push_back(items[i].name);
    if (!r.finished) LAB01_ON_HANG();
    return r;
}
