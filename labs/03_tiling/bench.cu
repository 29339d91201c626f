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
#include <functional>
#include <stdexcept>

#include <benchmark/benchmark.h>

#include "labs/buffer.hpp"
#include "labs/device.hpp"
#include "labs/math.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/tiling.hpp"
#include "labs/random.hpp"
#include "labs/timing.hpp"
#include "tiling.hpp"

namespace {

using bf16 = __nv_bfloat16;
namespace models = gpulab::models;

// The shape and its inputs, made once for every benchmark.
struct Problem {
    models::GemmShape g;
    gpulab::DeviceBuffer<std::uint16_t> a, w, c, y;
    int m() const { return static_cast<int>(g.m); }
    int n() const { return static_cast<int>(g.n); }
    int k() const { return static_cast<int>(g.k); }
    const bf16* da() const { return reinterpret_cast<const bf16*>(a.data()); }
    const bf16* dw() const { return reinterpret_cast<const bf16*>(w.data()); }
    bf16* dc() { return reinterpret_cast<bf16*>(c.data()); }
    bf16* dy() { return reinterpret_cast<bf16*>(y.data()); }
};

Problem& problem() {
    static Problem p = [] {
        Problem q;
        q.g = models::running_example_gemm(models::load_model_shape());
        const auto mk = static_cast<std::size_t>(q.g.m * q.g.k), kn = static_cast<std::size_t>(q.g.k * q.g.n),
                   mn = static_cast<std::size_t>(q.g.m * q.g.n);
        q.a = gpulab::DeviceBuffer<std::uint16_t>(mk);
        q.w = gpulab::DeviceBuffer<std::uint16_t>(kn);
        q.c = gpulab::DeviceBuffer<std::uint16_t>(mn);
        q.y = gpulab::DeviceBuffer<std::uint16_t>(mn);
        gpulab::fill_uniform_bf16_device(q.a.data(), mk, 1, -1.0f, 1.0f);
        gpulab::fill_uniform_bf16_device(q.w.data(), kn, 2, -1.0f, 1.0f);
        CUDA_CHECK(cudaDeviceSynchronize());
        return q;
    }();
    return p;
}

// Times `work` with the L2 flushed before each run; returns the mean milliseconds, or a negative value
// after reporting the error (a launcher that throws, e.g. on a shape it does not support).
double time_it(benchmark::State& state, const std::function<void()>& work) {
    static gpulab::L2Flusher flusher(static_cast<std::size_t>(gpulab::probe_device().info.l2_bytes));
    gpulab::EventTimer timer;
    try {
        flusher.flush();
        work();  // warm-up: module load, first-use costs
        CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return -1.0;
    }
    double total_ms = 0;
    for (auto _ : state) {
        flusher.flush();
        timer.start();
        work();
        timer.stop();
        const double ms = timer.elapsed_ms();
        total_ms += ms;
        state.SetIterationTime(ms * 1e-3);
    }
    return total_ms / static_cast<double>(state.iterations());
}

void set_rate_counters(benchmark::State& state, double mean_ms) {
    const Problem& p = problem();
    state.counters["TFLOP/s"] = models::gemm_flop(p.g) / (mean_ms * 1e-3) / 1e12;
    state.counters["M"] = static_cast<double>(p.g.m);
    state.counters["N"] = static_cast<double>(p.g.n);
    state.counters["K"] = static_cast<double>(p.g.k);
}

enum class Variant { naive, v1, v2, v3, fused, v3_then_silu, cublas };

void run(benchmark::State& state, Variant v) {
    Problem& p = problem();
    const std::function<void()> work = [&p, v] {
        switch (v) {
            case Variant::naive: launch_gemm_naive(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr); break;
            case Variant::v1: launch_gemm_v1(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr); break;
            case Variant::v2: launch_gemm_v2(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr); break;
            case Variant::v3: launch_gemm_v3(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr); break;
            case Variant::fused: launch_gemm_silu(p.da(), p.dw(), p.dy(), p.m(), p.n(), p.k(), nullptr); break;
            case Variant::v3_then_silu:
                launch_gemm_v3(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr);
                launch_silu(p.dc(), p.dy(), p.c.size(), nullptr);
                break;
            case Variant::cublas: launch_gemm_cublas(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr); break;
        }
    };
    const double ms = time_it(state, work);
    if (ms > 0) set_rate_counters(state, ms);
}

// v1 with a BM × BN = T × T tile and k = 32: what the model says about the tile, and what it measures.
template <int T>
void v1_tile(benchmark::State& state) {
    Problem& p = problem();
    const double ms = time_it(state, [&p] { launch_gemm_v1_tiles<T, T, 32>(p.da(), p.dw(), p.dc(), p.m(), p.n(), p.k(), nullptr); });
    if (ms <= 0) return;
    set_rate_counters(state, ms);
    const models::Tile tile{T, T, 32};
    const models::TileTraffic traffic = models::tile_traffic(p.g, tile);
    state.counters["tile"] = T;
    state.counters["traffic_MiB"] = traffic.total_bytes / gpulab::kMiB;
    state.counters["implied_GB/s"] = traffic.total_bytes / (ms * 1e-3) / 1e9;
    state.counters["local_KiB"] = models::local_storage(p.g, tile).total_bytes / gpulab::kKiB;
    const KernelInfo info = gemm_v1_kernel_info<T, T, 32>();
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, info.kernel));
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, info.kernel, info.threads, info.dynamic_smem));
    state.counters["regs/thread"] = attr.numRegs;
    state.counters["smem_B/block"] = static_cast<double>(attr.sharedSizeBytes + info.dynamic_smem);
    state.counters["threads/block"] = info.threads;
    state.counters["blocks/SM"] = blocks;
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
