// FROZEN: do not edit. Lab 03 experiment, on the running example's shape (Qwen3-8B FFN: 1024 × 4096 ×
// 12288, from the datasets):
//  - every variant (naive, v1, v2, v3, v3 with the fused SiLU, v3 then a separate SiLU, cuBLAS): time and
//    TFLOP/s;
//  - v1 with 32×32, 64×64 and 128×128 tiles (k = 32): time, the model's traffic for that tile
//    (models::tile_traffic), the bandwidth that traffic implies at the measured time, the model's local
//    storage, and what the compiler and the occupancy API say: registers per thread, shared memory per
//    block, resident blocks per SM.
// The L2 is flushed before each timed run.
//
//   build/labs/03_tiling/lab03_bench --benchmark_format=json > bench.json     (your code)
//   labs/03_tiling/results_table.py bench.json labs/03_tiling/README.md       (redraws the handout's tables)
//   labs/03_tiling/ncu_traffic.py build/labs/03_tiling/lab03_bench            (measured bytes vs the model)
#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/bf16.hpp"
#include "labs/math.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/tiling.hpp"
#include "labs/random.hpp"
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

Problem& problem() {
    static Problem p = [] {
        Problem q;
        q.g = models::running_example_gemm(models::load_model_shape());
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
    }();
    return p;
}

void set_rate_counters(benchmark::State& state, double mean_ms) {
    const Problem& p = problem();
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

BENCHMARK_MAIN();
