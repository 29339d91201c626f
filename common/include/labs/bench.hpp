/**
 * @file bench.hpp
 * @brief The one timing loop of the labs' experiments (each lab's bench.cu, Google Benchmark with manual
 * time): a warm-up run that turns an error into a skipped benchmark, then CUDA events around every
 * iteration, with the L2 flushed before each one unless the experiment is about the cache.
 *
 * Header-only, for bench.cu files (they link Google Benchmark); the grader's timing is timing.hpp.
 *
 * @code
 * void run(benchmark::State& state) {
 *     const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) { launch(x, y, n, s); });
 *     if (ms > 0) state.counters["GB/s"] = bytes / (ms * 1e-3) / 1e9;
 * }
 * BENCHMARK(run)->UseManualTime();
 * @endcode
 */
#pragma once

#include <exception>
#include <functional>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include "labs/cuda_check.hpp"
#include "labs/device.hpp"
#include "labs/timing.hpp"

namespace gpulab::bench {

/** @brief The process's L2 flusher (twice the L2 of the current device), made on first use. */
inline L2Flusher& l2_flusher() {
    static L2Flusher flusher(static_cast<std::size_t>(probe_device().info.l2_bytes));
    return flusher;
}

/**
 * @brief Times @p work once per benchmark iteration with CUDA events on the default stream and reports
 * it as the iteration's manual time.
 *
 * One untimed warm-up run comes first (module load, first-use costs); if it throws (a launcher that
 * rejects the shape, a CUDA error), the benchmark is skipped with the error's text.
 * @param state    the benchmark's state
 * @param work     enqueues the work on the given stream
 * @param flush_l2 write twice the L2 before every iteration, so each one starts with a cold cache
 * @return the mean milliseconds per iteration, or a negative value when the benchmark was skipped
 */
inline double time_manual(benchmark::State& state, const std::function<void(cudaStream_t)>& work,
                          bool flush_l2 = true) {
    EventTimer timer;
    try {
        if (flush_l2) l2_flusher().flush();
        work(nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return -1.0;
    }
    double total_ms = 0;
    for (auto _ : state) {
        if (flush_l2) l2_flusher().flush();
        timer.start();
        work(nullptr);
        timer.stop();
        const double ms = timer.elapsed_ms();
        total_ms += ms;
        state.SetIterationTime(ms * 1e-3);
    }
    return state.iterations() > 0 ? total_ms / static_cast<double>(state.iterations()) : -1.0;
}

}  // namespace gpulab::bench
