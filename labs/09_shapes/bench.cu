// FROZEN: do not edit. Lab 09 experiment (Y[M × N] = X[M × K] · W[K × N], N = K = 4096 as in the checks; one
// program cache per measurement, in a fresh temporary directory, so every specialised M starts uncompiled):
//   costs/STRATEGY/M      one call at M = 1, 8, 16, 32 … 4096 (the checks' cost grid, every bucket among them),
//                         generic (0), bucketed (1: padded to the smallest of 16, 64, 256, 512, 1024, 2048, 4096
//                         that holds M) and specialised (2): call_ms, the median of 20 calls (CUDA events around
//                         each, the L2 flushed before it, as the checks' time_region), and for specialised prep_ms, P:
//                         the first call from an empty cache (host clock: NVRTC, the cache's store, the load, the
//                         call) minus call_ms
//   crossover             at M = 16, the calls after which specialising pays, P / (T_generic − T_specialised), from
//                         costs/'s P and T at 16 (none when T_specialised ≥ T_generic); then a third of that many
//                         calls and three times as many run both ways, from an empty cache (host clock, ms; not beyond
//                         20000 calls). measure.crossover runs half and twice as many, from T timed back to back (W
//                         stays in the L2); costs/ flushes the L2 before each call, hence the wider margins here
//   serve/TRACE/STRATEGY  the first 200 calls of datasets/traces/TRACE.csv served always generic (0), always
//                         specialised (2) and by your choose_strategy (-1) in the grader's loop (perf.policy_*):
//                         before each call, the calls of its M still expected (M's share of the calls so far, 16
//                         calls of other M assumed before the first, times the calls left, plus this one) and M's
//                         costs from costs/' grid (a bucketed call its bucket's time, the others interpolated
//                         between M's neighbours on the grid; P the grid's median, 0 once M is compiled in this
//                         run): total_ms on the host clock, preparation included, from an empty cache; the calls
//                         each strategy served; hindsight_ms, the least these costs allow with every M's count
//                         known ahead
//   cache/CALLS           the mixed trace's first CALLS calls (50 … 2000) through your ProgramCache (16 programs in
//                         memory) with a stand-in build (no NVRTC), from an empty directory, then again through a
//                         second cache on that directory (a second process): memory_hits, disk_hits, built and
//                         warm_memory_hits, warm_disk_hits, warm_built; host only
// The process compiles one program (M = 3, not on the grid) before it measures any P: its first NVRTC compile and
// library load pay one-off costs that belong to no M (the checks have compiled before they measure). In costs/ an
// iteration is one call and its manual time that call's; in crossover it is P; in serve/ the whole run (1 iteration).
//
//   build/labs/09_shapes/lab09_bench --benchmark_format=json > bench.json   (your code)
//   labs/09_shapes/figures.py --bench bench.json                            (the pictures)
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/models/datasets.hpp"
#include "labs/random.hpp"
#include "labs/temp_dir.hpp"
#include "labs/timing.hpp"
#include "serving.hpp"
#include "shapes.hpp"

namespace {

using namespace lab09;

constexpr int kN = 4096, kK = 4096;
constexpr int kCallReps = 20;     // calls timed per costs/ point
constexpr int kCrossoverM = 16;   // a decode shape (as measure.crossover)
constexpr int kMaxCrossoverRun = 20000;  // the runs of crossover are skipped beyond this many calls

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}


// The first kServeCalls row counts of datasets/traces/NAME.csv.
const std::vector<int>& trace(const std::string& name) {
    static std::map<std::string, std::vector<int>> traces;
    auto it = traces.find(name);
    if (it == traces.end()) {
        std::vector<int> all = load_trace(gpulab::models::datasets_dir() / "traces" / (name + ".csv"));
        all.resize(std::min<std::size_t>(all.size(), kServeCalls));
        it = traces.emplace(name, std::move(all)).first;
    }
    return it->second;
}

// X, W and Y for every call of the grid and of the traces (4096 rows: no M of the traces' first calls is larger).
struct Operands {
    static constexpr int kRows = 4096;
    gpulab::DeviceBuffer<__nv_bfloat16> x{std::size_t(kRows) * kK}, w{std::size_t(kK) * kN}, y{std::size_t(kRows) * kN};
    Operands() {
        gpulab::fill_uniform_bf16_device(x.data(), x.size(), 1, -1.0f, 1.0f);
        gpulab::fill_uniform_bf16_device(w.data(), w.size(), 2, -1.0f, 1.0f);
    }
    [[nodiscard]] Gemm call(int m) {
        if (m > kRows)
            throw std::runtime_error("M = " + std::to_string(m) + " is above the bench's " + std::to_string(kRows) + " rows");
        return {x.data(), w.data(), y.data(), m, kN, kK};
    }
};

Operands& operands() {
    static Operands o;
    return o;
}

void launch(int strategy, const Gemm& g, ProgramCache& cache, cudaStream_t s) {
    if (strategy == 0) launch_gemm_generic(g, s);
    else if (strategy == 1) launch_gemm_bucketed(g, kBuckets, s);
    else launch_gemm_specialized(g, cache, s);
}

// Before any P is measured: one program compiled, stored and loaded (M = 3, off the grid), so that the process's
// first NVRTC compile and library load are nobody's P. An error here is left to the benchmarks to report.
void warm_process() {
    static bool done = false;
    if (done) return;
    done = true;
    try {
        gpulab::TempDir dir("lab09-bench-warm");
        ProgramCache cache(dir.path, 1);
        const Gemm g = operands().call(3);
        launch_gemm_generic(g, nullptr);
        launch_gemm_specialized(g, cache, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const std::exception&) {
    }
}

// One call timed with CUDA events on the default stream, the L2 flushed before it (as time_region does).
double one_call_ms(const std::function<void()>& call) {
    static gpulab::EventTimer timer;
    gpulab::bench::l2_flusher().flush();
    timer.start();
    call();
    timer.stop();
    return timer.elapsed_ms();
}

// What costs/ measured (or, for a point no costs/ benchmark ran, what the same measurement gives), by M.
struct Point {
    std::array<std::optional<double>, 3> call_ms;
    std::optional<double> prep_ms;  // specialised
};
std::map<int, Point>& measured() {
    static std::map<int, Point> points;
    return points;
}

// One strategy at M, from an empty cache: the first call on the host clock, then kCallReps calls timed (each one
// an iteration of `state` when given). Records call_ms (their median) and, for specialised, P. Throws on an error.
void measure(int strategy, int m, benchmark::State* state) {
    warm_process();
    const Gemm g = operands().call(m);
    gpulab::TempDir dir("lab09-bench-costs");
    ProgramCache cache(dir.path, 16);
    const auto call = [&] { launch(strategy, g, cache, nullptr); };
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    call();
    CUDA_CHECK(cudaDeviceSynchronize());
    const double first_ms = ms_since(t0);
    std::vector<double> ms;
    if (state != nullptr) {
        for (auto _ : *state) {
            ms.push_back(one_call_ms(call));
            state->SetIterationTime(ms.back() * 1e-3);
        }
    } else {
        for (int i = 0; i < kCallReps; ++i) ms.push_back(one_call_ms(call));
    }
    if (ms.empty()) return;
    Point& p = measured()[m];
    p.call_ms[std::size_t(strategy)] = median(ms);
    if (strategy == 2) p.prep_ms = std::max(0.0, first_ms - median(ms));
}

const Point& point(int m) {
    for (int s = 0; s < 3; ++s)
        if (!measured()[m].call_ms[std::size_t(s)]) measure(s, m, nullptr);
    return measured()[m];
}

// The policy's cost table, as the checks' Serving::measure_costs builds it: per grid entry the three call times,
// specialised's P the median of the grid's (P when M is not compiled yet).
std::vector<std::array<StrategyCost, 3>> grid_costs() {
    std::vector<std::array<StrategyCost, 3>> costs;
    std::vector<double> preps;
    for (const int m : kCostGrid) {
        const Point& p = point(m);
        costs.push_back({StrategyCost{0, *p.call_ms[0]}, StrategyCost{0, *p.call_ms[1]}, StrategyCost{0, *p.call_ms[2]}});
        preps.push_back(*p.prep_ms);
    }
    const double p = median(preps);
    for (auto& c : costs) c[2].prep_ms = p;
    return costs;
}

struct Served {
    double ms = 0;
    std::array<int, 3> used{};
};

// The checks' Serving::serve as the bench runs it (the checks' code is not linked into the bench; both choose through
// lab09::StrategyChooser): the trace served with one fixed strategy (0, 2) or the policy (-1) from an empty cache,
// timed on the host clock from a drained device to a drained device.
Served serve_trace(const std::vector<int>& trace, int fixed, const std::vector<std::array<StrategyCost, 3>>& costs) {
    Served r;
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    {
        gpulab::TempDir dir("lab09-bench-serve");
        ProgramCache cache(dir.path, 1024);
        lab09::StrategyChooser chooser(fixed);
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const int k = chooser.next(trace, i, costs);
            ++r.used[std::size_t(k)];
            launch(k, operands().call(trace[i]), cache, nullptr);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    r.ms = ms_since(t0);
    return r;
}

// `calls` calls of one M served one way from an empty cache, host clock (as measure.crossover's runs).
double run_calls_ms(int m, int calls, bool specialized) {
    gpulab::TempDir dir("lab09-bench-run");
    ProgramCache cache(dir.path, 4);
    const Gemm g = operands().call(m);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) launch(specialized ? 2 : 0, g, cache, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return ms_since(t0);
}

void costs(benchmark::State& state) {
    const int strategy = static_cast<int>(state.range(0)), m = static_cast<int>(state.range(1));
    if (!gpulab::bench::or_skip(state, [&] { measure(strategy, m, &state); })) return;
    const Point& p = measured()[m];
    if (!p.call_ms[std::size_t(strategy)]) return;
    gpulab::bench::set_counters(state, {{"strategy", strategy}, {"M", m}, {"N", kN}, {"K", kK},
                                        {"call_ms", *p.call_ms[std::size_t(strategy)]},
                                        {"prep_ms", strategy == 2 ? *p.prep_ms : 0.0}});
    if (strategy == 1) state.counters["bucket"] = bucket_of(m);
}

void crossover(benchmark::State& state) {
    double p_ms = 0, t_generic = 0, t_specialized = 0;
    const bool measured_point = gpulab::bench::or_skip(state, [&] {
        const Point& p = point(kCrossoverM);
        p_ms = *p.prep_ms, t_generic = *p.call_ms[0], t_specialized = *p.call_ms[2];
    });
    if (!measured_point) return;
    gpulab::bench::set_counters(state, {{"M", kCrossoverM}, {"p_specialized_ms", p_ms}, {"t_generic_ms", t_generic},
                                        {"t_specialized_ms", t_specialized}});
    // Specialising never pays when its call is not the faster: then no crossover_calls, and no runs.
    const double calls = t_specialized < t_generic ? p_ms / (t_generic - t_specialized) : 0.0;
    const int before = std::max(1, int(calls / 3)), after = int(std::ceil(calls * 3));
    if (calls > 0) state.counters["crossover_calls"] = calls;
    if (calls > 0 && after <= kMaxCrossoverRun) {
        const bool ran = gpulab::bench::or_skip(state, [&] {
            gpulab::bench::set_counters(state, {{"calls_before", before}, {"calls_after", after},
                                                {"generic_before_ms", run_calls_ms(kCrossoverM, before, false)},
                                                {"specialized_before_ms", run_calls_ms(kCrossoverM, before, true)},
                                                {"generic_after_ms", run_calls_ms(kCrossoverM, after, false)},
                                                {"specialized_after_ms", run_calls_ms(kCrossoverM, after, true)}});
        });
        if (!ran) return;
    }
    for (auto _ : state) state.SetIterationTime(p_ms * 1e-3);
}

void serve(benchmark::State& state, const char* name) {
    const int fixed = static_cast<int>(state.range(0));
    Served r;
    std::vector<std::array<StrategyCost, 3>> costs;
    const bool served = gpulab::bench::or_skip(state, [&] {
        const std::vector<int>& calls = trace(name);
        costs = grid_costs();
        for (auto _ : state) {
            r = serve_trace(calls, fixed, costs);
            state.SetIterationTime(r.ms * 1e-3);
        }
    });
    if (!served) return;
    const std::vector<int>& calls = trace(name);
    const double hindsight = lab09::hindsight_ms(calls, costs);
    gpulab::bench::set_counters(state, {{"strategy", fixed}, {"calls", double(calls.size())},
                                        {"distinct", double(std::set<int>(calls.begin(), calls.end()).size())},
                                        {"total_ms", r.ms}, {"calls_generic", r.used[0]}, {"calls_bucketed", r.used[1]},
                                        {"calls_specialized", r.used[2]}, {"p_ms", costs[0][2].prep_ms},
                                        {"hindsight_ms", hindsight}});
}

// cache/CALLS: the whole mixed trace's first CALLS calls, each asking your ProgramCache (kCachePrograms in memory)
// for the program of its M. The build is a stand-in (a few KiB naming M; no NVRTC, no GPU): this measures where
// programs come from, not how long they take. First from an empty directory, then the same calls through a second
// cache on the same directory, as a second process would start.
constexpr std::size_t kCachePrograms = 16;

void cache(benchmark::State& state) {
    const std::size_t n = std::size_t(state.range(0));
    std::vector<int> calls = load_trace(gpulab::models::datasets_dir() / "traces" / "mixed.csv");
    if (calls.size() < n) {
        state.SkipWithError("the mixed trace has fewer calls than asked");
        return;
    }
    calls.resize(n);
    std::array<std::array<int, 4>, 2> outcomes{};  // [first, second cache][CacheOutcome]
    for (auto _ : state) {
        gpulab::TempDir dir("lab09-bench-cache");
        outcomes = {};
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t pass = 0; pass < 2; ++pass) {
            ProgramCache cache(dir.path, kCachePrograms);
            for (const int m : calls) {
                const ProgramKey key{"// the program for M = " + std::to_string(m) + "\n", "--std=c++17", "sm_90", 13000};
                const CacheResult r = cache.get(key, [m] { return std::vector<char>(4096, char('A' + m % 26)); });
                ++outcomes[pass][std::size_t(r.outcome)];
            }
        }
        state.SetIterationTime(ms_since(t0) / 1e3);
    }
    const char* names[2] = {"", "warm_"};
    for (std::size_t pass = 0; pass < 2; ++pass) {
        const std::string p = names[pass];
        state.counters[p + "memory_hits"] = outcomes[pass][std::size_t(CacheOutcome::memory_hit)];
        state.counters[p + "disk_hits"] = outcomes[pass][std::size_t(CacheOutcome::disk_hit)];
        state.counters[p + "built"] = outcomes[pass][std::size_t(CacheOutcome::built)] +
                                      outcomes[pass][std::size_t(CacheOutcome::rebuilt_corrupt)];
    }
    gpulab::bench::set_counters(state, {{"calls", double(n)},
                                        {"distinct", double(std::set<int>(calls.begin(), calls.end()).size())},
                                        {"memory_programs", double(kCachePrograms)}});
}

}  // namespace

BENCHMARK(cache)->Arg(50)->Arg(100)->Arg(200)->Arg(500)->Arg(1000)->Arg(2000)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(costs)
    ->ArgsProduct({{0, 1, 2}, {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}})
    ->UseManualTime()
    ->Iterations(kCallReps)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(crossover)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
// serve/TRACE/STRATEGY: 0 always generic, 2 always specialised, -1 your policy.
BENCHMARK_CAPTURE(serve, decode_heavy, "decode_heavy")
    ->Arg(0)->Arg(2)->Arg(-1)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(serve, prefill_heavy, "prefill_heavy")
    ->Arg(0)->Arg(2)->Arg(-1)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(serve, mixed, "mixed")->Arg(0)->Arg(2)->Arg(-1)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) { return gpulab::bench::run_benchmarks(argc, argv); }
