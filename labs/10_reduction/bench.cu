// FROZEN: do not edit. Lab 10 experiment: RMSNorm at M ∈ {1, 4, 16, 64, 256, 1024} rows of N ∈ {4096, 16384, 65536}
// (the chapter's row, and rows long enough that one block per row cannot stream one fast), with the given kernel and
// the four variants. Counters: time, GB/s of the bytes every variant must move (x read, y written, gamma read once,
// the scales written) and this GPU's copy bandwidth (measured at start-up). At small M a row's length decides whether
// splitting pays (the blocks each variant launched are in Nsight Systems' timeline); at large M the bytes decide.
//
//   build/labs/10_reduction/lab10_bench --benchmark_format=json > bench.json   (your code)
//   labs/10_reduction/results_table.py bench.json labs/10_reduction/README.md  (redraws the handout's table)
#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/bf16.hpp"
#include "labs/ceilings.hpp"
#include "labs/random.hpp"
#include "rmsnorm.hpp"

namespace {

using gpulab::bf16;

double copy_gbps() {
    static const double v = gpulab::measure_copy_bandwidth_gbps();
    return v;
}

void run(benchmark::State& state, RmsNormLauncher launch) {
    const int rows = static_cast<int>(state.range(0)), cols = static_cast<int>(state.range(1));
    const std::size_t n = std::size_t(rows) * std::size_t(cols);
    gpulab::DeviceBuffer<bf16> x(n), y(n), gamma(static_cast<std::size_t>(cols));
    gpulab::DeviceBuffer<float> scale(static_cast<std::size_t>(rows)), work(workspace_floats(rows));
    gpulab::fill_uniform_bf16_device(x.data(), n, 1, -1.25f, 1.25f);
    gpulab::fill_uniform_bf16_device(gamma.data(), static_cast<std::size_t>(cols), 2, 0.5f, 1.5f);
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        launch(x.data(), gamma.data(), y.data(), scale.data(), rows, cols, 1e-6f, work.data(), s);
    });
    if (ms < 0) return;
    const double bytes = 2.0 * double(n) * sizeof(bf16) + double(cols) * sizeof(bf16) + double(rows) * sizeof(float);
    state.counters["rows"] = rows;
    state.counters["cols"] = cols;
    state.counters["bytes"] = bytes;
    state.counters["GB/s"] = benchmark::Counter(bytes * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
    state.counters["copy_GB/s"] = copy_gbps();
}

void args(benchmark::internal::Benchmark* b) {
    for (int cols : {4096, 16384, 65536})
        for (int m : {1, 4, 16, 64, 256, 1024}) b->Args({m, cols});
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(run, given, &launch_rmsnorm_baseline)->Apply(args);
BENCHMARK_CAPTURE(run, rows, &launch_rmsnorm_rows)->Apply(args);
BENCHMARK_CAPTURE(run, split, &launch_rmsnorm_split)->Apply(args);
BENCHMARK_CAPTURE(run, invariant, &launch_rmsnorm_invariant)->Apply(args);
BENCHMARK_CAPTURE(run, atomic, &launch_rmsnorm_atomic)->Apply(args);

BENCHMARK_MAIN();
