// FROZEN: do not edit. Lab 08 experiment (FfnShape's stack: H = 512, F = 1408, one layer; no L2 flush: a decode
// step follows the last one with its weights still in L2):
//   steps/PATH/M        one step at M = 1, 16, 256, launched eagerly (0), replayed (1) and fused and replayed (2):
//                       host submit µs (the host clock around the enqueue alone, the stream drained before each;
//                       median of 200), end-to-end µs per step (200 steps back to back, then drained; median of
//                       the iterations, each one such run) and host launches per step
//   breakeven/PATH/MIB  the copy-in sweep at M = 1, as perf.breakeven: the eager step (0); a copy of MIB MiB into
//                       a buffer beside the graph's input, then your step_direct (1); your step_direct alone, the
//                       producer having written in place (2): end-to-end µs per step (50 steps back to back)
//   breakeven_model     the copy rate at 256 MiB (bytes read and written per second) and the model's break-even
//                       X = saving · B / 2, with the saving = eager − direct, measured here
// In steps/ (20 iterations) and breakeven/ (10), an iteration is one run of steps back to back and its manual time
// that run's µs per step: real_time is their mean, e2e_us their median. In breakeven_model it is the copy's.
//
//   build/labs/08_graphs/lab08_bench --benchmark_format=json > bench.json   (your code)
//   labs/08_graphs/figures.py --bench bench.json                            (the pictures)
#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include <benchmark/benchmark.h>

#include "graphs.hpp"
#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/models/launch.hpp"
#include "labs/models/units.hpp"
#include "labs/random.hpp"

namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kSweepMaxMiB = 256;
constexpr int kStepRun = 200;   // steps back to back in a steps/ iteration (as perf.e2e_m1)
constexpr int kSweepRun = 50;   // ... in a breakeven/ iteration (as perf.breakeven)
constexpr int kSubmitReps = 200;

// One stack at M rows: weights, scratch, an input and an eager output, a stream of its own.
struct Stack {
    FfnShape shape;
    FfnModel model;
    StepBuffers buffers;
    gpulab::DeviceBuffer<__nv_bfloat16> in, out;
    cudaStream_t stream = nullptr;
    explicit Stack(int m)
        : shape{m}, model(shape, 8), buffers(shape), in(std::size_t(m) * shape.hidden), out(std::size_t(m) * shape.hidden) {
        gpulab::fill_uniform_bf16_device(in.data(), in.size(), 9, -1.0f, 1.0f);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    ~Stack() { cudaStreamDestroy(stream); }
    Stack(const Stack&) = delete;
    Stack& operator=(const Stack&) = delete;
};

// Your graph of the stack (fused or not), its input filled; null, with the benchmark skipped, when it is not
// written yet or its constructor failed.
std::unique_ptr<GraphStep> make_graph(benchmark::State& state, Stack& st, bool fused) {
    std::unique_ptr<GraphStep> step;
    const bool made = gpulab::bench::or_skip(state, [&] {
        step = std::make_unique<GraphStep>(st.model, st.buffers, fused);
        if (step->input() == nullptr || step->graph() == nullptr)
            throw std::runtime_error("GraphStep is not written yet: input() or graph() is null");
        CUDA_CHECK(cudaMemcpy(step->input(), st.in.data(), st.in.bytes(), cudaMemcpyDeviceToDevice));
    });
    return made ? std::move(step) : nullptr;
}

// The sweep's two buffers, 256 MiB each: the input as its producer left it, and where a copy puts it for the
// replay.
gpulab::DeviceBuffer<unsigned char>& produced() {
    static gpulab::DeviceBuffer<unsigned char> b(std::size_t(kSweepMaxMiB * kMiB));
    return b;
}
gpulab::DeviceBuffer<unsigned char>& captured() {
    static gpulab::DeviceBuffer<unsigned char> b(std::size_t(kSweepMaxMiB * kMiB));
    return b;
}

// One untimed step, drained; false, with the benchmark skipped, when it throws.
bool warm_up(benchmark::State& state, const std::function<void()>& step, cudaStream_t s) {
    return gpulab::bench::or_skip(state, [&] {
        step();
        CUDA_CHECK(cudaStreamSynchronize(s));
    });
}

// µs per step of `n` steps enqueued back to back, timed from a drained stream until it is drained again.
double run_us(const std::function<void()>& step, cudaStream_t s, int n) {
    return gpulab::host_us_per_call([&](int) { step(); }, s, n);
}

// Every iteration one run of `n` steps; its µs per step is the iteration's manual time. Counter e2e_us: the
// median over the iterations.
void time_runs(benchmark::State& state, const std::function<void()>& step, cudaStream_t s, int n) {
    std::vector<double> us;
    for (auto _ : state) {
        us.push_back(run_us(step, s, n));
        state.SetIterationTime(us.back() * 1e-6);
    }
    if (us.empty()) return;
    state.counters["e2e_us"] = gpulab::median_of(us);
    state.counters["steps"] = n;
}

void steps(benchmark::State& state) {
    const int path = static_cast<int>(state.range(0));
    const int m = static_cast<int>(state.range(1));
    Stack st(m);
    std::unique_ptr<GraphStep> graph;
    if (path > 0 && !(graph = make_graph(state, st, path == 2))) return;
    const std::function<void()> step = [&] {
        if (path == 0) run_step_eager(st.model, st.buffers, st.in.data(), st.out.data(), false, st.stream);
        else graph->step_direct(st.stream);
    };
    if (!warm_up(state, step, st.stream)) return;
    // Host submit: the enqueue alone, from a drained stream.
    std::vector<double> submit;
    const std::int64_t launches0 = host_launches();
    for (int i = 0; i < kSubmitReps; ++i) {
        CUDA_CHECK(cudaStreamSynchronize(st.stream));
        const auto t0 = std::chrono::steady_clock::now();
        step();
        submit.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    const double launches = double(host_launches() - launches0) / kSubmitReps;
    CUDA_CHECK(cudaStreamSynchronize(st.stream));
    time_runs(state, step, st.stream, kStepRun);
    gpulab::bench::set_counters(state, {{"path", path}, {"M", m}, {"submit_us", gpulab::median_of(submit)},
                                        {"host_launches", launches}});
}

void breakeven(benchmark::State& state) {
    const int path = static_cast<int>(state.range(0));
    const std::int64_t mib = state.range(1);
    const std::size_t x = std::size_t(mib * kMiB);
    Stack st(1);
    std::unique_ptr<GraphStep> graph;
    if (path > 0 && !(graph = make_graph(state, st, false))) return;
    unsigned char* from = produced().data();
    unsigned char* to = captured().data();
    const std::function<void()> step = [&] {
        if (path == 0) {
            run_step_eager(st.model, st.buffers, st.in.data(), st.out.data(), false, st.stream);
        } else if (path == 1) {
            CUDA_CHECK(cudaMemcpyAsync(to, from, x, cudaMemcpyDeviceToDevice, st.stream));
            graph->step_direct(st.stream);
        } else {
            graph->step_direct(st.stream);
        }
    };
    if (!warm_up(state, step, st.stream)) return;
    time_runs(state, step, st.stream, kSweepRun);
    state.counters["path"] = path;
    state.counters["mib"] = double(mib);
}

void breakeven_model(benchmark::State& state) {
    Stack st(1);
    const std::unique_ptr<GraphStep> graph = make_graph(state, st, false);
    if (!graph) return;
    unsigned char* from = produced().data();
    unsigned char* to = captured().data();
    // The saving per step: eager − direct (neither copies).
    const std::function<void()> eager = [&] {
        run_step_eager(st.model, st.buffers, st.in.data(), st.out.data(), false, st.stream);
    };
    const std::function<void()> direct = [&] { graph->step_direct(st.stream); };
    if (!warm_up(state, eager, st.stream) || !warm_up(state, direct, st.stream)) return;
    std::vector<double> e, d;
    for (int trial = 0; trial < 5; ++trial) {
        e.push_back(run_us(eager, st.stream, kSweepRun));
        d.push_back(run_us(direct, st.stream, kSweepRun));
    }
    const double eager_us = gpulab::median_of(e), direct_us = gpulab::median_of(d), saving_us = eager_us - direct_us;
    // The copy rate at the largest size: the manual time.
    const std::size_t bytes = produced().bytes();
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s));
    });
    if (ms < 0) return;
    const double copy_gbps = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
    gpulab::bench::set_counters(state, {{"copy_mib", gpulab::models::to_mib(double(bytes))}, {"copy_gbps", copy_gbps},
                                        {"eager_us", eager_us}, {"direct_us", direct_us}, {"saving_us", saving_us}});
    state.counters["model_mib"] =
        gpulab::models::to_mib(gpulab::models::graph_break_even_input_bytes(std::max(saving_us, 0.0), copy_gbps));
}

}  // namespace

BENCHMARK(steps)->ArgsProduct({{0, 1, 2}, {1, 16, 256}})->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(breakeven)
    ->ArgsProduct({{0, 1, 2}, {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, kSweepMaxMiB}})
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(breakeven_model)->UseManualTime()->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) { return gpulab::bench::run_benchmarks(argc, argv); }
