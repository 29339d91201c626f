// FROZEN: do not edit. Lab 03 experiment, on the running example's shape (Qwen3-8B FFN: 1024 × 4096 ×
// 12288, from the datasets):
//  - every variant (naive, v1, v2, v3, v3 with the fused SiLU, v3 then a separate SiLU, cuBLAS): time and
//    TFLOP/s;
//  - v1 with 32×32, 64×64 and 128×128 tiles (k = 32): time, the model's traffic for that tile
//    (models::tile_traffic), the bandwidth that traffic implies at the measured time, the model's local
//    storage, and what the compiler and the occupancy API say: registers per thread, shared memory per
//    block, resident blocks per SM;
//  - part v4's ladder on Hopper (TILING_V4_STEPS: one consumer warpgroup with 2 then 4 stages, two consumers, a
//    persistent grid) and cuBLAS, at that shape and at the FFN's down projection (1024 × 12288 × 4096): time and
//    TFLOP/s (skipped, with the reason, where sm_90a code cannot run).
// The L2 is flushed before each timed run.
//
//   build/labs/03_tiling/lab03_bench --benchmark_format=json > bench.json     (your code)
//   labs/03_tiling/results_table.py bench.json labs/03_tiling/README.md       (redraws the handout's tables)
//   labs/03_tiling/ncu_traffic.py build/labs/03_tiling/lab03_bench            (measured bytes vs the model)
#include <benchmark/benchmark.h>

#include <string>
#include <utility>

#include "labs/bench.hpp"
#include "labs/bf16.hpp"
#include "labs/math.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/tiling.hpp"
#include "labs/random.hpp"
#include "labs/tma.hpp"
#include "tiling.hpp"

namespace {

using gpulab::bf16;
namespace models = gpulab::models;

// The shape and its inputs, made once for every benchmark.
struct Problem {
    models::GemmShape g;
    gpulab::DeviceBuffer<bf16> a, w, c, y;
    int m() const { return static_cast<int>(g.m); }
    int n() const { return static_cast<int>(g.n); }
    int k() const { return static_cast<int>(g.k); }
};

// The running example's shape, or (down) the FFN's down projection: [M, N] · [N, K], the same FLOPs.
Problem make_problem(bool down) {
        Problem q;
        q.g = models::running_example_gemm(models::load_model_shape());
        if (down) std::swap(q.g.k, q.g.n);
        const auto mk = static_cast<std::size_t>(q.g.m * q.g.k), kn = static_cast<std::size_t>(q.g.k * q.g.n),
                   mn = static_cast<std::size_t>(q.g.m * q.g.n);
        q.a = gpulab::DeviceBuffer<bf16>(mk);
        q.w = gpulab::DeviceBuffer<bf16>(kn);
        q.c = gpulab::DeviceBuffer<bf16>(mn);
        q.y = gpulab::DeviceBuffer<bf16>(mn);
        gpulab::fill_uniform_bf16_device(q.a.data(), mk, 1, -1.0f, 1.0f);
        gpulab::fill_uniform_bf16_device(q.w.data(), kn, 2, -1.0f, 1.0f);
        CUDA_CHECK(cudaDeviceSynchronize());
        return q;
}

Problem& problem(bool down = false) {
    static Problem up = make_problem(false);
    if (!down) return up;
    static Problem d = make_problem(true);
    return d;
}

void set_rate_counters(benchmark::State& state, double mean_ms, bool down = false) {
    const Problem& p = problem(down);
    gpulab::bench::set_counters(state, {{"TFLOP/s", models::gemm_flop(p.g) / (mean_ms * 1e-3) / 1e12},
                                        {"M", static_cast<double>(p.g.m)}, {"N", static_cast<double>(p.g.n)},
                                        {"K", static_cast<double>(p.g.k)}});
}

enum class Variant { naive, v1, v2, v3, fused, v3_then_silu, cublas };

void run(benchmark::State& state, Variant v) {
    Problem& p = problem();
    const double ms = gpulab::bench::time_manual(state, [&p, v](cudaStream_t s) {
        const bf16 *a = p.a.data(), *w = p.w.data();
        switch (v) {
            case Variant::naive: launch_gemm_naive(a, w, p.c.data(), p.m(), p.n(), p.k(), s); break;
            case Variant::v1: launch_gemm_v1(a, w, p.c.data(), p.m(), p.n(), p.k(), s); break;
            case Variant::v2: launch_gemm_v2(a, w, p.c.data(), p.m(), p.n(), p.k(), s); break;
            case Variant::v3: launch_gemm_v3(a, w, p.c.data(), p.m(), p.n(), p.k(), s); break;
            case Variant::fused: launch_gemm_silu(a, w, p.y.data(), p.m(), p.n(), p.k(), s); break;
            case Variant::v3_then_silu:
                launch_gemm_v3(a, w, p.c.data(), p.m(), p.n(), p.k(), s);
                launch_silu(p.c.data(), p.y.data(), p.c.size(), s);
                break;
            case Variant::cublas: launch_gemm_cublas(a, w, p.c.data(), p.m(), p.n(), p.k(), s); break;
        }
    });
    if (ms > 0) set_rate_counters(state, ms);
}

// v1 with a BM × BN = T × T tile and k = 32: what the model says about the tile, and what it measures.
template <int T>
void v1_tile(benchmark::State& state) {
    Problem& p = problem();
    const double ms = gpulab::bench::time_manual(state, [&p](cudaStream_t s) {
        launch_gemm_v1_tiles<T, T, 32>(p.a.data(), p.w.data(), p.c.data(), p.m(), p.n(), p.k(), s);
    });
    if (ms <= 0) return;
    set_rate_counters(state, ms);
    const models::Tile tile{T, T, 32};
    const models::TileTraffic traffic = models::tile_traffic(p.g, tile);
    gpulab::bench::set_counters(state, {{"tile", T}, {"traffic_MiB", traffic.total_bytes / gpulab::kMiB},
                                        {"implied_GB/s", traffic.total_bytes / (ms * 1e-3) / 1e9},
                                        {"local_KiB", models::local_storage(p.g, tile).total_bytes / gpulab::kKiB}});
    const KernelInfo info = gemm_v1_kernel_info<T, T, 32>();
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, info.kernel));
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, info.kernel, info.threads, info.dynamic_smem));
    gpulab::bench::set_counters(state, {{"regs/thread", attr.numRegs},
                                        {"smem_B/block", static_cast<double>(attr.sharedSizeBytes + info.dynamic_smem)},
                                        {"threads/block", info.threads}, {"blocks/SM", blocks}});
}

// One step of part v4's ladder, or cuBLAS (S = 0), at the running example's shape or the down projection.
template <int S, int C, bool P>
void v4_step(benchmark::State& state, bool down) {
    if (S > 0) {
        if (const std::string why = gpulab::sm90a_unavailable(); !why.empty()) {
            state.SkipWithError(("part v4: " + why).c_str());
            return;
        }
    }
    Problem& p = problem(down);
    const double ms = gpulab::bench::time_manual(state, [&p](cudaStream_t s) {
        if constexpr (S == 0) launch_gemm_cublas(p.a.data(), p.w.data(), p.c.data(), p.m(), p.n(), p.k(), s);
        else launch_gemm_v4_config<S, C, P>(p.a.data(), p.w.data(), p.c.data(), p.m(), p.n(), p.k(), s);
    });
    if (ms <= 0) return;
    set_rate_counters(state, ms, down);
    gpulab::bench::set_counters(state, {{"stages", S}, {"consumers", C}, {"persistent", P ? 1 : 0}});
}

}  // namespace

BENCHMARK_CAPTURE(run, naive, Variant::naive)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, v1, Variant::v1)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, v2, Variant::v2)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, v3, Variant::v3)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fused, Variant::fused)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, v3_then_silu, Variant::v3_then_silu)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, cublas, Variant::cublas)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(v1_tile, 32)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(v1_tile, 64)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(v1_tile, 128)->UseManualTime()->Unit(benchmark::kMicrosecond);

// The ladder registers itself: one benchmark per step and shape, named v4_step/stages:S/consumers:C/persistent:P/up
// (or /down); stages 0 is cuBLAS.
template <int S, int C, bool P>
int register_v4_step() {
    for (const bool down : {false, true}) {
        const std::string name = S == 0 ? std::string("v4_step/cublas") + (down ? "/down" : "/up")
                                        : "v4_step/stages:" + std::to_string(S) + "/consumers:" + std::to_string(C) +
                                              "/persistent:" + (P ? "1" : "0") + (down ? "/down" : "/up");
        benchmark::RegisterBenchmark(name.c_str(), [down](benchmark::State& state) { v4_step<S, C, P>(state, down); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    }
    return 0;
}
#define LAB03_V4_BENCH(S, C, P) [[maybe_unused]] static const int lab03_v4_step_##S##_##C##_##P = register_v4_step<S, C, P>();
TILING_V4_STEPS(LAB03_V4_BENCH)
LAB03_V4_BENCH(0, 0, false)  // cuBLAS at both shapes, beside the ladder

BENCHMARK_MAIN();
