// FROZEN: do not edit. Lab 05 experiment: the activation chain at M ∈ {1, 16, 128, 1024, 8192} rows of
// 12288, as three kernels, as SiLU⊙U + quantize, and fully fused. Counters: time, GB/s of the bytes the
// variant moves, and that as a percentage of this GPU's copy bandwidth (measured at start-up).
// At small M every variant is a few launch latencies; at large M the bytes decide.
//
//   build/labs/05_fusion/lab05_bench --benchmark_format=json > bench.json   (your code)
//   labs/05_fusion/results_table.py bench.json labs/05_fusion/README.md     (redraws the handout's table)
#include <benchmark/benchmark.h>

#include "fusion.hpp"
#include "labs/bench.hpp"
#include "labs/bf16.hpp"
#include "labs/ceilings.hpp"
#include "labs/models/datasets.hpp"
#include "labs/random.hpp"

namespace {

using gpulab::bf16;

// The FFN width F of the chapter's model (Qwen3-8B: 12288), from the datasets.
std::size_t ffn_width() {
    static const auto width = static_cast<std::size_t>(gpulab::models::load_model_shape().intermediate_size);
    return width;
}

double copy_gbps() {
    static const double v = gpulab::measure_copy_bandwidth_gbps();
    return v;
}

enum Variant { kSeparate = 0, kFusedSiluMul = 1, kAllFused = 2 };

void run(benchmark::State& state, Variant variant) {
    const auto rows = static_cast<std::size_t>(state.range(0));
    const std::size_t width = ffn_width(), n = rows * width;
    gpulab::DeviceBuffer<bf16> g(n), u(n), t(n), z(n);
    gpulab::DeviceBuffer<std::uint8_t> q(n);
    gpulab::fill_uniform_bf16_device(g.data(), n, 1, -3.0f, 3.0f);
    gpulab::fill_uniform_bf16_device(u.data(), n, 2, -3.0f, 3.0f);
    // Bytes each variant must move per element: separate 4 + 6 + 3, SiLU*U fused 6 + 3, all fused 5.
    const double bytes_per_element[] = {13.0, 9.0, 5.0};
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        if (variant == kSeparate) {
            launch_silu(g.data(), t.data(), n, s);
            launch_mul(t.data(), u.data(), z.data(), n, s);
            launch_quantize(z.data(), q.data(), n, kFusionScale, s);
        } else if (variant == kFusedSiluMul) {
            launch_silu_mul(g.data(), u.data(), z.data(), rows, width, s);
            launch_quantize(z.data(), q.data(), n, kFusionScale, s);
        } else {
            launch_silu_mul_quantize(g.data(), u.data(), q.data(), rows, width, kFusionScale, s);
        }
    });
    if (ms < 0) return;
    const double bytes = bytes_per_element[variant] * static_cast<double>(n);
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["bytes"] = bytes;
    state.counters["GB/s"] = benchmark::Counter(bytes * static_cast<double>(state.iterations()) * 1e-9,
                                                benchmark::Counter::kIsRate);
    state.counters["copy_GB/s"] = copy_gbps();
}

void args(benchmark::internal::Benchmark* b) {
    for (int m : {1, 16, 128, 1024, 8192}) b->Arg(m);
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(run, separate, kSeparate)->Apply(args);
BENCHMARK_CAPTURE(run, fused_silu_mul, kFusedSiluMul)->Apply(args);
BENCHMARK_CAPTURE(run, all_fused, kAllFused)->Apply(args);

BENCHMARK_MAIN();
