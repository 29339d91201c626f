// FROZEN: do not edit. Lab 02 experiment: the latency-hiding curve. Your streaming copy of 256 MiB at 1, 2, 4
// and 8 loads in flight per thread, and the one-load baseline, with the ballast set for 1 … 8 resident blocks
// of 256 threads per SM (8 … 64 warps); GB/s (read + write), resident warps and this GPU's copy bandwidth as
// counters. Then the given tiled kernel and your bounded one (registers, blocks per SM, time), the same body
// under __launch_bounds__(256, 1 … 6) — the registers traded for blocks, step by step — and the pointer-chase
// latencies (DRAM and L2) that Little's law needs to predict the curve.
//
//   build/labs/02_occupancy/lab02_bench --benchmark_format=json > bench.json   (your code)
//   labs/02_occupancy/figures.py bench.json [OUT.svg]                         (the curve, with Little's law)
//   labs/02_occupancy/results_table.py bench.json labs/02_occupancy/README.md (the handout's table)
#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/ceilings.hpp"
#include "labs/chase.hpp"
#include "labs/cuda_check.hpp"
#include "labs/random.hpp"
#include "occupancy.hpp"
#include "tiled_body.cuh"

namespace {

constexpr std::size_t kVectors = std::size_t(16) << 20;  // 256 MiB

double copy_gbps() {
    static const double v = gpulab::measure_copy_bandwidth_gbps();
    return v;
}

struct Buffers {
    gpulab::DeviceBuffer<uint4> in{kVectors}, out{kVectors};
    Buffers() { gpulab::fill_random_bytes_device(in.data(), in.bytes(), 1); }
};

Buffers& buffers() {
    static Buffers b;
    return b;
}

// state.range(0): loads in flight (0: the baseline); state.range(1): resident blocks per SM.
void streaming(benchmark::State& state) {
    const int loads = static_cast<int>(state.range(0));
    const int blocks = static_cast<int>(state.range(1));
    Buffers& b = buffers();
    const std::size_t ballast = ballast_bytes(blocks);
    StreamLaunch launched;
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        launched = loads == 0 ? launch_streaming_baseline(b.in.data(), b.out.data(), kVectors, ballast, s)
                              : launch_streaming(loads, b.in.data(), b.out.data(), kVectors, ballast, s);
    });
    if (ms < 0) return;
    const double bytes = 2.0 * double(kVectors) * sizeof(uint4);
    gpulab::bench::set_counters(state, {{"loads", loads}, {"blocks_per_sm", launched.blocks_per_sm},
                                        {"warps_per_sm", launched.blocks_per_sm * kStreamThreads / 32},
                                        {"occupancy", launched.occupancy}, {"GB/s", bytes / (ms * 1e-3) / 1e9},
                                        {"copy_GB/s", copy_gbps()}});
}

// The tiled GEMM's operands, n × n, made once for every run of both benchmarks.
struct TiledOperands {
    int n;
    gpulab::DeviceBuffer<float> a, b, c;
};
TiledOperands& tiled_operands() {
    static TiledOperands o = [] {
        constexpr int n = 4096;
        constexpr std::size_t elems = std::size_t(n) * n;
        TiledOperands t{n, gpulab::DeviceBuffer<float>(elems), gpulab::DeviceBuffer<float>(elems),
                        gpulab::DeviceBuffer<float>(elems)};
        gpulab::fill_uniform_device(t.a.data(), elems, 2);
        gpulab::fill_uniform_device(t.b.data(), elems, 3);
        return t;
    }();
    return o;
}

// A tiled run's counters: what was varied (`setting`), what the runtime says of the kernel, and its rate.
void set_tiled_counters(benchmark::State& state, std::pair<const char*, double> setting, const TiledInfo& info, int n,
                        double ms) {
    gpulab::bench::set_counters(state, {{setting.first, setting.second}, {"regs", info.regs_per_thread},
                                        {"spill_bytes", double(info.local_bytes)},
                                        {"blocks_per_sm", info.blocks_per_sm},
                                        {"TFLOP/s", 2.0 * double(n) * n * n / (ms * 1e-3) / 1e12}});
}

void tiled(benchmark::State& state) {
    const bool bounded = state.range(0) != 0;
    TiledOperands& o = tiled_operands();
    const int n = o.n;
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        if (bounded) launch_tiled_bounded(o.a.data(), o.b.data(), o.c.data(), n, s);
        else launch_tiled(o.a.data(), o.b.data(), o.c.data(), n, s);
    });
    if (ms < 0) return;
    set_tiled_counters(state, {"bounded", bounded}, bounded ? tiled_bounded_info() : tiled_info(), n, ms);
}

template <int MinBlocks>
__global__ void __launch_bounds__(kTiledThreads, MinBlocks) tiled_at(const float* a, const float* b, float* c, int n) {
    tiled_gemm_body(a, b, c, n);
}

// state.range(0): minBlocksPerSM of the bounds.
void tiled_sweep(benchmark::State& state) {
    const int min_blocks = static_cast<int>(state.range(0));
    constexpr TiledKernel kernels[] = {tiled_at<1>, tiled_at<2>, tiled_at<3>, tiled_at<4>, tiled_at<5>, tiled_at<6>};
    const TiledKernel kernel = kernels[min_blocks - 1];
    TiledOperands& o = tiled_operands();
    const int n = o.n;
    const TiledInfo info = tiled_info_of(kernel);  // also sets the carveout the runs below use
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        launch_tiled_kernel(kernel, "tiled_sweep", o.a.data(), o.b.data(), o.c.data(), n, s);
    });
    if (ms < 0) return;
    set_tiled_counters(state, {"min_blocks", min_blocks}, info, n, ms);
}

// The latencies: the library's chase (cached in L2 only) and yours, on chains of 1 GiB and 4 MiB.
void latency(benchmark::State& state) {
    const bool dram = state.range(0) != 0;
    const bool mine = state.range(1) != 0;
    const gpulab::ChaseChain chain(dram ? std::size_t(1) << 30 : std::size_t(4) << 20, 7);
    gpulab::ChaseLatency l;
    for (auto _ : state) {
        l = gpulab::measure_chase_latency(chain, dram ? 20000 : 40000, 3, mine ? &launch_chase : nullptr);
        state.SetIterationTime(1e-9 * l.ns_per_load);
    }
    if (!l.walked) state.SkipWithError("the walk did not end where the chain does");
    gpulab::bench::set_counters(state, {{"dram", dram}, {"yours", mine}, {"ns", l.ns_per_load},
                                        {"sms", gpulab::probe_device().info.sm_count}});
}

}  // namespace

BENCHMARK(streaming)
    ->ArgsProduct({{0, 1, 2, 4, 8}, {1, 2, 3, 4, 5, 6, 7, 8}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(tiled)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(tiled_sweep)->DenseRange(1, 6)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(latency)->ArgsProduct({{1, 0}, {0, 1}})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
