// Shared by lab 01's known-bad versions: one plain implementation of streams.cu with exactly one defect
// switched on by the including file, which defines before including:
//   kSkipComputeWait  the copy into a slot does not wait for the slot's previous kernel ("compute done")
//   kOneStream        every copy and kernel on one stream (right, and nothing overlaps)
//   kBlockingWatch    the watchdog blocks on each stream and event instead of polling
//   kHostDeviceClock  the "device" clock is the host clock around a synchronised call
//   kPageable         input() and output() are ordinary (pageable) host memory
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "streams.hpp"

namespace wrong {
using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
}  // namespace wrong

Clocks three_clocks(const std::uint16_t* pinned_in, std::uint16_t* pinned_out, __nv_bfloat16* dev_in,
                    __nv_bfloat16* dev_out, std::size_t n, int iters, cudaStream_t stream) {
    cudaEvent_t a = nullptr, b = nullptr;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    Clocks c;
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
    c.device_ms = kHostDeviceClock ? c.end_to_end_ms : ms;
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return c;
}

struct Pipeline::State {
    gpulab::PinnedBuffer<std::uint16_t> pin_in, pin_out;
    std::vector<std::uint16_t> page_in, page_out;
    gpulab::DeviceBuffer<__nv_bfloat16> in[2], out[2];
    cudaStream_t s[3] = {};
    cudaEvent_t copied[2] = {}, computed[2] = {}, drained[2] = {};
    std::size_t max_chunks = 1;
};

Pipeline::Pipeline(std::size_t max_elements, std::size_t max_chunks) : state_(new State) {
    State& st = *state_;
    st.max_chunks = max_chunks;
    if (kPageable) {
        st.page_in.resize(max_elements);
        st.page_out.resize(max_elements);
    } else {
        st.pin_in = gpulab::PinnedBuffer<std::uint16_t>(max_elements);
        st.pin_out = gpulab::PinnedBuffer<std::uint16_t>(max_elements);
    }
    for (int i = 0; i < 2; ++i) {
        st.in[i] = gpulab::DeviceBuffer<__nv_bfloat16>(max_elements);
        st.out[i] = gpulab::DeviceBuffer<__nv_bfloat16>(max_elements);
        for (cudaEvent_t* e : {&st.copied[i], &st.computed[i], &st.drained[i]})
            CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    }
    for (cudaStream_t& s : st.s) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
}

Pipeline::~Pipeline() {
    for (cudaStream_t s : state_->s) (void)cudaStreamSynchronize(s);
    delete state_;
}

std::uint16_t* Pipeline::input() noexcept { return kPageable ? state_->page_in.data() : state_->pin_in.data(); }
const std::uint16_t* Pipeline::output() const noexcept {
    return kPageable ? state_->page_out.data() : state_->pin_out.data();
}

void Pipeline::run(std::size_t n, int iters, std::size_t chunks, Chaos& chaos) {
    State& st = *state_;
    chunks = std::clamp<std::size_t>(chunks, 1, std::min(n, st.max_chunks));
    const std::size_t chunk = (n + chunks - 1) / chunks;
    cudaStream_t in_s = st.s[0], work_s = kOneStream ? st.s[0] : st.s[1], out_s = kOneStream ? st.s[0] : st.s[2];
    for (std::size_t j = 0, first = 0; first < n; ++j, first += chunk) {
        const int k = static_cast<int>(j % 2);
        const std::size_t count = std::min(chunk, n - first);
        if (!kSkipComputeWait) CUDA_CHECK(cudaStreamWaitEvent(in_s, st.computed[k]));
        chaos.point(in_s);
        CUDA_CHECK(cudaMemcpyAsync(st.in[k].data(), input() + first, count * 2, cudaMemcpyHostToDevice, in_s));
        chaos.done(in_s);
        CUDA_CHECK(cudaEventRecord(st.copied[k], in_s));
        CUDA_CHECK(cudaStreamWaitEvent(work_s, st.copied[k]));
        CUDA_CHECK(cudaStreamWaitEvent(work_s, st.drained[k]));
        chaos.point(work_s);
        launch_work(st.in[k].data(), st.out[k].data(), count, iters, work_s);
        chaos.done(work_s);
        CUDA_CHECK(cudaEventRecord(st.computed[k], work_s));
        CUDA_CHECK(cudaStreamWaitEvent(out_s, st.computed[k]));
        chaos.point(out_s);
        CUDA_CHECK(cudaMemcpyAsync(const_cast<std::uint16_t*>(output()) + first, st.out[k].data(), count * 2,
                                   cudaMemcpyDeviceToHost, out_s));
        chaos.done(out_s);
        CUDA_CHECK(cudaEventRecord(st.drained[k], out_s));
    }
    CUDA_CHECK(cudaStreamSynchronize(out_s));
}

WatchReport watch(const std::vector<Watched>& items, double deadline_ms) {
    const auto t0 = wrong::Clock::now();
    std::vector<bool> done(items.size(), false);
    WatchReport r;
    for (;;) {
        bool all = true;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (done[i]) continue;
            if (kBlockingWatch) {
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
        if (all || r.waited_ms >= deadline_ms) {
            r.finished = all;
            break;
        }
    }
    for (std::size_t i = 0; i < items.size(); ++i)
        if (!done[i]) r.unfinished.push_back(items[i].name);
    return r;
}
