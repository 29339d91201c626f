// FROZEN: do not edit. Lab 11 experiment: chains of 1, 2, 4, 16 and 64 GEMVs of 4096 × 4096 BF16 weights, run by the
// given chain (a launch per step), the given chain replayed as one graph, and your three variants. Counters: the
// chain's time, the weights' GB/s, and this GPU's copy bandwidth (measured at start-up). What a boundary costs is the
// slope: (t(64) − t(16)) / 48 is one more step with its boundary; the weights alone take 32 MiB at the copy bandwidth.
// The starts and ends of every kernel are in Nsight Systems' timeline (nsys profile build/labs/11_boundaries/lab11_bench).
//
//   build/labs/11_boundaries/lab11_bench --benchmark_format=json > bench.json   (your code)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "chain.hpp"
#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/ceilings.hpp"
#include "labs/cuda_check.hpp"
#include "labs/graph.hpp"
#include "labs/random.hpp"

namespace {

using bf16 = __nv_bfloat16;
constexpr int kDim = 4096;

double copy_gbps() {
    static const double v = gpulab::measure_copy_bandwidth_gbps();
    return v;
}

// The weights of the longest chain, shared by every run (2 GiB).
const gpulab::DeviceBuffer<bf16>& weights() {
    static const gpulab::DeviceBuffer<bf16> w = [] {
        gpulab::DeviceBuffer<bf16> b(std::size_t(kMaxSteps) * kDim * kDim);
        const float range = std::sqrt(3.0f / float(kDim));
        gpulab::fill_uniform_bf16_device(b.data(), b.size(), 1, -range, range);
        CUDA_CHECK(cudaDeviceSynchronize());
        return b;
    }();
    return w;
}

// The given chain captured once per (steps, buffers) into a graph.
void given_as_graph(const ChainArgs& a, cudaStream_t stream) {
    struct Entry {
        const bf16* x;
        int steps;
        std::unique_ptr<gpulab::CapturedGraph> graph;
    };
    static std::vector<Entry> graphs;
    auto it = std::find_if(graphs.begin(), graphs.end(), [&](const Entry& e) { return e.x == a.x && e.steps == a.steps; });
    if (it == graphs.end())
        it = graphs.insert(graphs.end(), Entry{a.x, a.steps, std::make_unique<gpulab::CapturedGraph>(
                                                                  [&a](cudaStream_t s) { launch_chain_given(a, s); })});
    it->graph->launch(stream);
}

void run(benchmark::State& state, ChainLauncher launch) {
    const int steps = static_cast<int>(state.range(0));
    gpulab::DeviceBuffer<bf16> x(std::size_t(steps + 1) * kDim);
    gpulab::DeviceBuffer<unsigned> work(kWorkspaceWords);
    gpulab::fill_uniform_bf16_device(x.data(), kDim, 2, -1.0f, 1.0f);
    ChainArgs a;
    a.w = weights().data(), a.x = x.data(), a.steps = steps, a.dim = kDim, a.workspace = work.data();
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) { launch(a, s); });
    if (ms < 0) return;
    const double bytes = double(steps) * kDim * kDim * sizeof(bf16);
    state.counters["steps"] = steps;
    state.counters["bytes"] = bytes;
    state.counters["GB/s"] = benchmark::Counter(bytes * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
    state.counters["copy_GB/s"] = copy_gbps();
}

void args(benchmark::internal::Benchmark* b) {
    for (int steps : {1, 2, 4, 16, 64}) b->Args({steps});
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(run, given, &launch_chain_given)->Apply(args);
BENCHMARK_CAPTURE(run, given_graph, &given_as_graph)->Apply(args);
BENCHMARK_CAPTURE(run, graph, &launch_chain_graph)->Apply(args);
BENCHMARK_CAPTURE(run, pdl, &launch_chain_pdl)->Apply(args);
BENCHMARK_CAPTURE(run, persistent, &launch_chain_persistent)->Apply(args);

BENCHMARK_MAIN();
