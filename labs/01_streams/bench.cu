// FROZEN: do not edit. Lab 01 experiment: your pipeline on 64 MiB of BF16 at 1 … 64 chunks and at work per
// element set to ½, 1 and 2 times the balanced point (where a chunk's kernel takes as long as its copy in),
// against the three-stage model from stages timed alone; counters: end-to-end µs, the model's µs, and the
// overlap (the fraction of the serialised stage time that overlapping hid). With --timeline FILE it writes
// instead, as JSON, when every copy and kernel of one run at 1 chunk and one at 16 chunks ran (figures.py
// draws it).
//
//   build/labs/01_streams/lab01_bench --benchmark_format=json > bench.json        (your code)
//   build/labs/01_streams/lab01_bench --timeline timeline.json                   (your timeline)
//   labs/01_streams/figures.py timeline.json [OUT.svg]                            (the picture)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/random.hpp"
#include "labs/timing.hpp"
#include "streams.hpp"

namespace {

constexpr std::size_t kElements = std::size_t(32) << 20;  // 64 MiB of BF16

Pipeline& pipeline() {
    static const std::unique_ptr<Pipeline> p = [] {
        auto q = std::make_unique<Pipeline>(kElements, 64);
        if (q->input() != nullptr) gpulab::fill_uniform_bf16(std::span<std::uint16_t>(q->input(), kElements), 1, -4.0f, 4.0f);
        return q;
    }();
    return *p;
}

// Per-chunk stage times alone, with events; and the work per element at which a chunk's kernel takes as long
// as its copy in.
struct Stages {
    gpulab::models::StreamStages us;
    int balanced_iters = 0;
};

Stages stages(std::size_t chunks, double work_scale) {
    const std::size_t n = (kElements + chunks - 1) / chunks;
    gpulab::PinnedBuffer<std::uint16_t> host(n);
    std::memset(host.data(), 0, host.bytes());
    gpulab::DeviceBuffer<__nv_bfloat16> a(n), b(n);
    const auto time = [](const gpulab::Enqueue& e) { return 1e3 * gpulab::time_region(e).median_ms; };
    Stages s;
    s.us.h2d_us = time([&](cudaStream_t st) { CUDA_CHECK(cudaMemcpyAsync(a.data(), host.data(), n * 2, cudaMemcpyHostToDevice, st)); });
    const double probe_us = time([&](cudaStream_t st) { launch_work(a.data(), b.data(), n, 256, st); });
    s.balanced_iters = std::max(8, static_cast<int>(256 * s.us.h2d_us / probe_us * work_scale));
    s.us.kernel_us = time([&](cudaStream_t st) { launch_work(a.data(), b.data(), n, s.balanced_iters, st); });
    s.us.d2h_us = time([&](cudaStream_t st) { CUDA_CHECK(cudaMemcpyAsync(host.data(), b.data(), n * 2, cudaMemcpyDeviceToHost, st)); });
    return s;
}

void run(benchmark::State& state) {
    Pipeline& p = pipeline();
    if (p.input() == nullptr) {
        state.SkipWithError("input() returned no memory: the pipeline is not written yet");
        return;
    }
    const auto chunks = static_cast<std::size_t>(state.range(0));
    const double work_scale = double(state.range(1)) / 2.0;  // ½, 1, 2
    const Stages s = [&] {
        const gpulab::NvtxRange range("stages alone");
        return stages(chunks, work_scale);
    }();
    Chaos quiet;
    p.run(kElements, s.balanced_iters, chunks, quiet);  // warm-up
    const gpulab::NvtxRange range("timed runs");
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        p.run(kElements, s.balanced_iters, chunks, quiet);
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double serial = gpulab::models::stream_serial_time_us(static_cast<std::int64_t>(chunks), s.us);
    const double model = gpulab::models::stream_pipeline_time_us(static_cast<std::int64_t>(chunks), s.us, 2);
    gpulab::bench::set_counters(state, {{"chunks", double(chunks)}, {"iters", s.balanced_iters}, {"model_us", model},
                                        {"stages_serial_us", serial}, {"h2d_us", s.us.h2d_us},
                                        {"kernel_us", s.us.kernel_us}, {"d2h_us", s.us.d2h_us}});
}

// One run at `chunks` chunks with the timeline on, as a JSON object.
std::string timeline_json(std::size_t chunks) {
    Pipeline& p = pipeline();
    const Stages s = stages(chunks, 1.0);
    Chaos warm;
    p.run(kElements, s.balanced_iters, chunks, warm);
    const gpulab::NvtxRange range(chunks == 1 ? "timeline, 1 chunk" : "timeline, 16 chunks");
    Chaos recorder;
    recorder.record_timeline();
    p.run(kElements, s.balanced_iters, chunks, recorder);
    std::string out = "{\"chunks\": " + std::to_string(chunks) + ", \"spans\": [";
    bool first = true;
    for (const Chaos::Span& sp : recorder.timeline()) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s{\"stream\": %d, \"start_ms\": %.5f, \"end_ms\": %.5f}", first ? "" : ", ",
                      sp.stream, sp.start_ms, sp.end_ms);
        out += buf;
        first = false;
    }
    return out + "]}";
}

}  // namespace

BENCHMARK(run)->ArgsProduct({{1, 2, 4, 8, 16, 32, 64}, {1, 2, 4}})->UseManualTime()->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--timeline") == 0) {
        if (pipeline().input() == nullptr) {
            std::fprintf(stderr, "lab01_bench: input() returned no memory: the pipeline is not written yet\n");
            return 1;
        }
        cudaDeviceProp prop{};
        CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        return gpulab::bench::write_file(argv[2], "{\"gpu\": \"" + std::string(prop.name) + "\", \"runs\": [" +
                                                      timeline_json(1) + ", " + timeline_json(16) + "]}\n");
    }
    return gpulab::bench::run_benchmarks(argc, argv);
}
