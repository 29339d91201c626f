// The event model against the hardware: a stream that waits on an event nobody ever recorded goes on at once
// (CUDA's rule, which the chapter's "a missing event hangs" does not follow), while a recorded event holds it.
#include <chrono>

#include <cuda_runtime_api.h>

#include "catch_compat.hpp"
#include "labs/cuda_check.hpp"
#include "labs/models/pipeline.hpp"

namespace {

__global__ void spin_for(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

// Whether `done`, recorded on `s` behind the wait, is still pending after a short while.
bool still_waiting(cudaEvent_t done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (std::chrono::steady_clock::now() < until)
        if (cudaEventQuery(done) == cudaSuccess) return false;
    return true;
}

}  // namespace

TEST_CASE("A wait on an event never recorded returns at once; a recorded one holds the stream", "[models][events]") {
    cudaStream_t waiter = nullptr, busy = nullptr;
    cudaEvent_t never = nullptr, recorded = nullptr, done = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&waiter, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&never, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&recorded, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

    CUDA_CHECK(cudaStreamWaitEvent(waiter, never));
    CUDA_CHECK(cudaEventRecord(done, waiter));
    const bool blocked_unrecorded = still_waiting(done);
    CHECK(blocked_unrecorded == gpulab::models::event_wait_blocks(false));

    int rate_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0));
    spin_for<<<1, 1, 0, busy>>>(static_cast<long long>(rate_khz) * 1000);  // about a second
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(recorded, busy));
    CUDA_CHECK(cudaStreamWaitEvent(waiter, recorded));
    CUDA_CHECK(cudaEventRecord(done, waiter));
    const bool blocked_recorded = still_waiting(done);
    CHECK(blocked_recorded == gpulab::models::event_wait_blocks(true));

    CUDA_CHECK(cudaStreamSynchronize(waiter));
    for (cudaEvent_t e : {never, recorded, done}) CUDA_CHECK(cudaEventDestroy(e));
    CUDA_CHECK(cudaStreamDestroy(waiter));
    CUDA_CHECK(cudaStreamDestroy(busy));
}
