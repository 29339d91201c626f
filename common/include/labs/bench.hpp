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
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>

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
 * @brief Runs @p work; when it throws (a launcher that rejects the shape, a CUDA error, code not written yet), skips
 * the benchmark with the exception's text. @param state the benchmark's state @param work what to run
 * @return whether @p work ran to the end (false: the benchmark is skipped; return at once)
 */
inline bool or_skip(benchmark::State& state, const std::function<void()>& work) {
    try {
        work();
        return true;
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return false;
    }
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
    const bool warmed = or_skip(state, [&] {
        if (flush_l2) l2_flusher().flush();
        work(nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    });
    if (!warmed) return -1.0;
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

/** @brief Sets a benchmark's counters @p values (name, value), in the order given: one line for what a run reports. */
inline void set_counters(benchmark::State& state, std::initializer_list<std::pair<const char*, double>> values) {
    for (const auto& [name, value] : values) state.counters[name] = value;
}

/** @brief The usual main() of a lab's bench once its own options are handled: runs the registered benchmarks
 *  with Google Benchmark's command line. @return the process's exit status (1 on an unknown option) */
inline int run_benchmarks(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

/** @brief Writes @p text to the file @p path (a bench's --timeline output). @return 0, or 1 with a message on
 *  stderr when the file cannot be written */
inline int write_file(const char* path, const std::string& text) {
    std::FILE* f = std::fopen(path, "w");
    if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
        std::fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    return 0;
}

}  // namespace gpulab::bench
