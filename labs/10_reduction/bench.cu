// FROZEN: do not edit. Lab 10 experiment: RMSNorm at M ∈ {1, 4, 16, 64, 256, 1024} rows of N ∈ {4096, 16384, 65536}
// (the chapter's row, and rows long enough that one block per row cannot stream one fast), with the given kernel and
// the four variants. Counters: time, GB/s of the bytes every variant must move (x read, y written, gamma read once,
// the scales written) and this GPU's copy bandwidth (measured at start-up). At small M a row's length decides whether
// splitting pays (the blocks each variant launched are in Nsight Systems' timeline); at large M the bytes decide. And,
// on the host, what the number of segments does to the error of a row's FP32 sum (`ulps/S`).
//
//   build/labs/10_reduction/lab10_bench --benchmark_format=json > bench.json   (your code)
//   labs/10_reduction/results_table.py bench.json labs/10_reduction/README.md  (redraws the handout's table)
#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/bf16.hpp"
#include "labs/ceilings.hpp"
#include "labs/models/reduction.hpp"
#include "labs/numeric.hpp"
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

// Not a timing: the sum of squares of 64 rows of 4096 BF16 values (uniform in ±1.25, as the grader draws them), each row
// cut into S segments added left to right and their partial sums then added left to right, in FP32
// (models::fp32_sum_in_order): the mean and largest distance from the exact sum, in FP32 ULPs of the sum, against S —
// the handout's figure of what segments do to the error (the chapter's row: 175.2 ULP for S = 1, 9.2 for S = 8).
void ulps(benchmark::State& state) {
    const int segments = static_cast<int>(state.range(0)), cols = 4096, rows = 64;
    std::vector<std::uint16_t> bits(std::size_t(rows) * cols);
    gpulab::fill_uniform_bf16(bits, 10, -1.25f, 1.25f);
    double mean = 0, most = 0;
    for (auto _ : state) {
        mean = most = 0;
        for (int r = 0; r < rows; ++r) {
            std::vector<float> squares(cols), partials;
            double exact = 0;
            for (int j = 0; j < cols; ++j) {
                const float x = gpulab::bf16_bits_to_float(bits[std::size_t(r) * cols + j]);
                squares[std::size_t(j)] = x * x;
                exact += double(x) * x;
            }
            const int length = (cols + segments - 1) / segments;
            for (int lo = 0; lo < cols; lo += length)
                partials.push_back(gpulab::models::fp32_sum_in_order(
                    std::span<const float>(squares).subspan(std::size_t(lo), std::size_t(std::min(length, cols - lo)))));
            const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
            const double d = std::fabs(gpulab::models::fp32_sum_in_order(partials) - exact) / ulp;
            mean += d / rows;
            most = std::max(most, d);
        }
    }
    state.counters["segments"] = segments;
    state.counters["ulp_mean"] = mean;
    state.counters["ulp_max"] = most;
}

}  // namespace

BENCHMARK(ulps)->RangeMultiplier(2)->Range(1, 64)->Iterations(1);
BENCHMARK_CAPTURE(run, given, &launch_rmsnorm_baseline)->Apply(args);
BENCHMARK_CAPTURE(run, rows, &launch_rmsnorm_rows)->Apply(args);
BENCHMARK_CAPTURE(run, split, &launch_rmsnorm_split)->Apply(args);
BENCHMARK_CAPTURE(run, invariant, &launch_rmsnorm_invariant)->Apply(args);
BENCHMARK_CAPTURE(run, atomic, &launch_rmsnorm_atomic)->Apply(args);

BENCHMARK_MAIN();
