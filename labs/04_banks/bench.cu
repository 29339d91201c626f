// FROZEN: do not edit. Lab 04 experiment (Experiment 5-5 and the three layouts): square FP32 transposes
// from 1024² to 16384² — naive with 16×16 and 32×32 blocks, tiled with the plain layout and 16- or 32-wide
// tiles, tiled with your padded and swizzled layouts (and the BF16 swizzle) — with GB/s and this GPU's copy
// bandwidth as counters; then the clock64 probe's cycles per warp access through each layout.
//
//   build/labs/04_banks/lab04_bench --benchmark_format=json > bench.json   (your code)
//   labs/04_banks/results_table.py bench.json labs/04_banks/README.md     (redraws the handout's tables)
//   build/labs/04_banks/lab04_bench --layouts                              (the layouts as JSON, no GPU:
//                                                                            labs/04_banks/figures.py draws them)
#include <cstdio>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

#include "banks.hpp"
#include "labs/bench.hpp"
#include "labs/bf16.hpp"
#include "labs/ceilings.hpp"
#include "labs/random.hpp"

namespace {

using gpulab::bf16;

double copy_gbps() {
    static const double v = gpulab::measure_copy_bandwidth_gbps();
    return v;
}

enum Variant { kNaive16, kNaive32, kPlain16, kPlain32, kPadded, kSwizzled, kSwizzledBf16 };

template <class T>
void transpose(benchmark::State& state, Variant variant) {
    const int side = static_cast<int>(state.range(0));
    const std::size_t n = std::size_t(side) * std::size_t(side);
    gpulab::DeviceBuffer<T> in(n), out(n);
    if constexpr (std::is_same_v<T, bf16>) gpulab::fill_uniform_bf16_device(in.data(), n, 1);
    else gpulab::fill_uniform_device(in.data(), n, 1);
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        if constexpr (std::is_same_v<T, bf16>) {
            launch_transpose_swizzled_bf16(in.data(), out.data(), side, side, s);
        } else {
            switch (variant) {
                case kNaive16: launch_transpose_naive(in.data(), out.data(), side, side, s, 16); break;
                case kNaive32: launch_transpose_naive(in.data(), out.data(), side, side, s, 32); break;
                case kPlain16: launch_transpose_plain(in.data(), out.data(), side, side, s, 16); break;
                case kPlain32: launch_transpose_plain(in.data(), out.data(), side, side, s, 32); break;
                case kPadded: launch_transpose_padded(in.data(), out.data(), side, side, s); break;
                default: launch_transpose_swizzled(in.data(), out.data(), side, side, s); break;
            }
        }
    });
    if (ms < 0) return;
    const double bytes = 2.0 * double(n) * sizeof(T);  // every element read once and written once
    gpulab::bench::set_counters(state, {{"side", side}, {"bytes", bytes},
                                        {"GB/s", benchmark::Counter(bytes * double(state.iterations()) * 1e-9, benchmark::Counter::kIsRate)},
                                        {"copy_GB/s", copy_gbps()}});
}

void fp32(benchmark::State& state, Variant variant) { transpose<float>(state, variant); }
void bf16x(benchmark::State& state, Variant variant) { transpose<bf16>(state, variant); }

void sides(benchmark::internal::Benchmark* b) {
    for (int side : {1024, 2048, 4096, 8192, 16384}) b->Arg(side);
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

// Cycles per warp access through a layout (one warp, clock64): no timing loop of its own.
void probe(benchmark::State& state, LayoutId id) {
    ProbeCycles c;
    for (auto _ : state) c = probe_layout(id, 256);
    gpulab::bench::set_counters(state, {{"row_write_cycles", c.row_write}, {"column_read_cycles", c.column_read},
                                        {"row_read_cycles", c.row_read}});
}

// Every layout's offset() at every (row, col) of the tile, as JSON: evaluated on the host, no GPU needed.
void print_layouts() {
    std::printf("{\"tile\": %d, \"layouts\": {", banks::kTile);
    const LayoutId ids[] = {LayoutId::plain, LayoutId::plain_bf16, LayoutId::padded, LayoutId::swizzled,
                            LayoutId::swizzled_bf16};
    for (std::size_t i = 0; i < std::size(ids); ++i) {
        const LayoutTable t = layout_table(ids[i]);
        std::printf("%s\"%s\": {\"element_bytes\": %d, \"elements\": %lld, \"offsets\": [", i ? ", " : "",
                    layout_name(ids[i]).c_str(), t.element_bytes, t.elements);
        for (std::size_t k = 0; k < t.offsets.size(); ++k) std::printf("%s%d", k ? ", " : "", t.offsets[k]);
        std::printf("]}");
    }
    std::printf("}}\n");
}

}  // namespace

BENCHMARK_CAPTURE(fp32, naive_16, kNaive16)->Apply(sides);
BENCHMARK_CAPTURE(fp32, naive_32, kNaive32)->Apply(sides);
BENCHMARK_CAPTURE(fp32, plain_16, kPlain16)->Apply(sides);
BENCHMARK_CAPTURE(fp32, plain_32, kPlain32)->Apply(sides);
BENCHMARK_CAPTURE(fp32, padded, kPadded)->Apply(sides);
BENCHMARK_CAPTURE(fp32, swizzled, kSwizzled)->Apply(sides);
BENCHMARK_CAPTURE(bf16x, swizzled_bf16, kSwizzledBf16)->Apply(sides);
BENCHMARK_CAPTURE(probe, plain, LayoutId::plain)->Iterations(1);
BENCHMARK_CAPTURE(probe, padded, LayoutId::padded)->Iterations(1);
BENCHMARK_CAPTURE(probe, swizzled, LayoutId::swizzled)->Iterations(1);
BENCHMARK_CAPTURE(probe, plain_bf16, LayoutId::plain_bf16)->Iterations(1);
BENCHMARK_CAPTURE(probe, swizzled_bf16, LayoutId::swizzled_bf16)->Iterations(1);

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--layouts") == 0) {
        print_layouts();
        return 0;
    }
    return gpulab::bench::run_benchmarks(argc, argv);
}
