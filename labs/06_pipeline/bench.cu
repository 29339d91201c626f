// FROZEN: do not edit. Lab 06 experiment: one block per SM, 256 tiles each, at three amounts of math per tile
// (the math's time half of, equal to, and four times the copy's: t_c/t_m = 0.5, 1, 4, set by a fit of the
// compute-only kernel's time), the load-only and compute-only kernels (t_m and t_c), your one slot, 1 … 6
// stages and, on sm_90, the producer warp with 2 … 6 slots; counters: ms, t_m, t_m⁽¹⁾ (one copy in flight) and
// t_c per tile (µs), the model's time for the variant's slots (models::slots_time_us) and the bound
// max(load-only, compute-only).
//
// With --timeline FILE it writes instead the per-warp clock stamps of block 0 (mark() in your kernels: copies
// issued, tile ready, math done) at the balanced point, for one slot, two slots and, on sm_90, the producer warp.
//
//   build/labs/06_pipeline/lab06_bench --benchmark_format=json > bench.json   (your code)
//   build/labs/06_pipeline/lab06_bench --timeline timeline.json               (your timeline)
//   labs/06_pipeline/figures.py bench.json timeline.json                      (the pictures)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <vector>
#include <string>

#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/random.hpp"
#include "pipeline.hpp"

namespace {

constexpr int kTilesPerBlock = 256;

struct Data {
    gpulab::DeviceBuffer<__nv_bfloat16> in;
    gpulab::DeviceBuffer<float> out;
    Work w;
    Data() {
        int dev = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        in = gpulab::DeviceBuffer<__nv_bfloat16>(std::size_t(sms) * kTilesPerBlock * kTileElems);
        out = gpulab::DeviceBuffer<float>(sms);
        gpulab::fill_uniform_bf16_device(in.data(), in.size(), 1, -2.0f, 2.0f);
        w = Work{in.data(), in.size(), kTilesPerBlock, 1, out.data()};
    }
};

Data& data() {
    static Data d;
    return d;
}

double median_ms(const std::function<void(cudaStream_t)>& f) {
    gpulab::TimingOptions o;
    o.min_reps = 5;
    o.max_reps = 20;
    return gpulab::time_region(f, o).median_ms;
}

// The iterations per value at which the math takes `ratio` times the copy (a + b · iters fitted on two probes).
int iters_for(double ratio) {
    static std::map<double, int> found;
    if (const auto it = found.find(ratio); it != found.end()) return it->second;
    Work w = data().w;
    const double load = median_ms([&](cudaStream_t s) { launch_load_only(w, s); });
    const auto math = [&](int iters) {
        w.iters = iters;
        return median_ms([&](cudaStream_t s) { launch_compute_only(w, s); });
    };
    const double m8 = math(8), m32 = math(32);
    const double per_iter = std::max((m32 - m8) / 24, 1e-9), floor = m8 - 8 * per_iter;
    return found[ratio] = std::clamp(static_cast<int>(std::lround((ratio * load - floor) / per_iter)), 0, 4096);
}

// state.range(0): t_c/t_m in quarters (2, 4, 16: a half, equal, four times; a quarter is below the math's floor
// on an H200, where converting and adding a tile's values alone takes about 0.43 t_m); state.range(1): the variant — 0 load-only, 1 compute-only,
// 2 one slot, 10 + S stages, 20 + S the producer warp.
void pipeline(benchmark::State& state) {
    const double ratio = double(state.range(0)) / 4.0;
    const int variant = static_cast<int>(state.range(1));
    if (variant >= 20 && !producer_supported()) {
        state.SkipWithError("the producer warp needs sm_90 or later");
        return;
    }
    Work w = data().w;
    w.iters = iters_for(ratio);
    std::function<void(cudaStream_t)> run;
    if (variant == 0) run = [&](cudaStream_t s) { launch_load_only(w, s); };
    else if (variant == 1) run = [&](cudaStream_t s) { launch_compute_only(w, s); };
    else if (variant == 2) run = [&](cudaStream_t s) { launch_one_slot(w, s); };
    else if (variant < 20) run = [&](cudaStream_t s) { launch_stages(variant - 10, w, s); };
    else run = [&](cudaStream_t s) { launch_producer(variant - 20, w, s); };
    const double ms = gpulab::bench::time_manual(state, run);
    if (ms < 0) return;
    const double load = median_ms([&](cudaStream_t s) { launch_load_only(w, s); });
    const double alone = median_ms([&](cudaStream_t s) { launch_load_one_in_flight(w, s); });
    const double math = median_ms([&](cudaStream_t s) { launch_compute_only(w, s); });
    const double t_m = 1e3 * load / kTilesPerBlock, t_m1 = 1e3 * alone / kTilesPerBlock, t_c = 1e3 * math / kTilesPerBlock;
    const int slots = variant == 2 ? 1 : variant >= 10 ? variant % 10 : 0;  // the slots the model takes
    gpulab::bench::set_counters(state, {{"ms", ms}, {"ratio", ratio}, {"variant", variant}, {"slots", slots},
                                        {"iters", w.iters}, {"t_m_us", t_m}, {"t_m1_us", t_m1}, {"t_c_us", t_c}});
    if (slots > 0) state.counters["model_ms"] = gpulab::models::slots_time_us(kTilesPerBlock, slots, t_m, t_m1, t_c) / 1e3;
    state.counters["bound_ms"] = std::max(load, math);
}

constexpr int kTimelineTiles = 32;  // the first tiles: the pipeline fills, then runs steady

// One run of `launch` with block 0's stamps recorded, as a JSON object: per warp, per tile, the three marks in
// microseconds from the block's first stamp, for its first kTimelineTiles tiles (null where the kernel made no such mark).
std::string timeline_json(const std::string& name, const std::function<void(const Work&, cudaStream_t)>& launch,
                          int iters) {
    Work w = data().w;
    w.iters = iters;
    const int warps = kThreads / 32 + 1;  // with a producer warp
    const std::size_t count = std::size_t(warps) * w.tiles_per_block * kMarks;
    gpulab::DeviceBuffer<unsigned long long> stamps(count);
    launch(w, nullptr);  // warm-up, no stamps
    CUDA_CHECK(cudaMemset(stamps.data(), 0, stamps.bytes()));
    w.timeline = stamps.data();
    launch(w, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<unsigned long long> h(count);
    CUDA_CHECK(cudaMemcpy(h.data(), stamps.data(), stamps.bytes(), cudaMemcpyDeviceToHost));
    unsigned long long first = ~0ull;
    for (const unsigned long long v : h)
        if (v != 0) first = std::min(first, v);
    int dev = 0, khz = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    std::string json = "{\"variant\": \"" + name + "\", \"iters\": " + std::to_string(iters) + ", \"warps\": [";
    for (int wp = 0; wp < warps; ++wp) {
        json += wp ? ", [" : "[";
        for (int j = 0; j < std::min(w.tiles_per_block, kTimelineTiles); ++j) {
            json += j ? ", [" : "[";
            for (int m = 0; m < kMarks; ++m) {
                const unsigned long long v = h[(std::size_t(wp) * w.tiles_per_block + j) * kMarks + m];
                json += std::string(m ? ", " : "") + (v == 0 ? std::string("null") : std::to_string(double(v - first) / (khz * 1e-3)));
            }
            json += "]";
        }
        json += "]";
    }
    return json + "]}";
}

}  // namespace

BENCHMARK(pipeline)
    ->ArgsProduct({{2, 4, 16}, {0, 1, 2, 11, 12, 13, 14, 15, 16, 22, 23, 24, 25, 26}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--timeline") == 0) {
        const int iters = iters_for(1.0);
        cudaDeviceProp prop{};
        CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        int khz = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
        std::string json = "{\"gpu\": \"" + std::string(prop.name) + "\", \"clock_mhz\": " +
                           std::to_string(khz / 1000) + ", \"runs\": [" +
                           timeline_json("one slot", launch_one_slot, iters) + ", " +
                           timeline_json("two slots", launch_two_slots, iters);
        if (producer_supported())
            json += ", " + timeline_json("producer warp, 2 slots",
                                         [](const Work& w, cudaStream_t s) { launch_producer(2, w, s); }, iters);
        return gpulab::bench::write_file(argv[2], json + "]}\n");
    }
    return gpulab::bench::run_benchmarks(argc, argv);
}
