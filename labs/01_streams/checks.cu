// FROZEN: do not edit. Lab 01's graded checks: the pipeline's bits against the serial path (chunk counts 1,
// 2, 7, 64, a tail), the same under chaos (random delays on every stream, many seeds), pinned buffers that
// are allocated once, the three clocks against the grader's own events and the call's stages timed alone, a
// watchdog on a program that hangs, and time: pinned over pageable copies, the pipeline against the serial
// path (host clock) and against the three-stage model.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/bf16.hpp"
#include "labs/compare.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"
#include "streams.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

constexpr std::size_t kTimedElements = std::size_t(32) << 20;  // 64 MiB of BF16: Example 5-1's tensor
constexpr std::size_t kMaxChunks = 64;
constexpr int kCheckIters = 24;          // the correctness checks' work per element
constexpr std::size_t kTimedChunks = 16; // the timed pipeline's chunks

// The grader's one Pipeline (pinned memory is allocated once, as the lab asks), made on first use.
Pipeline& pipeline() {
    static const std::unique_ptr<Pipeline> p = std::make_unique<Pipeline>(kTimedElements, kMaxChunks);
    return *p;
}

// Host input of n elements and the serial path's output for it, made once per run.
struct Case {
    std::size_t n = 0;
    int iters = 0;
    std::vector<std::uint16_t> in, expected;
};

const Case& get_case(Context& ctx, std::size_t n, int iters) {
    const std::string key = std::to_string(n) + "/" + std::to_string(iters);
    return cached_case<Case>(key, [&] {
        auto c = std::make_unique<Case>();
        c->n = n;
        c->iters = iters;
        c->in.resize(n);
        fill_uniform_bf16(c->in, ctx.seed_for("lab01 input " + key), -4.0f, 4.0f);
        c->expected.resize(n);
        run_serial(c->in.data(), c->expected.data(), n, iters);
        return c;
    });
}

// Why the pipeline's pinned buffers cannot be used ("" when they can).
std::string buffers_problem(Pipeline& p) {
    if (p.input() == nullptr || p.output() == nullptr) return "input() or output() returned no memory";
    for (const void* ptr : {static_cast<const void*>(p.input()), static_cast<const void*>(p.output())}) {
        cudaPointerAttributes a{};
        CUDA_CHECK(cudaPointerGetAttributes(&a, ptr));
        if (a.type != cudaMemoryTypeHost)
            return std::string(ptr == p.input() ? "input()" : "output()") + " is not pinned host memory (" +
                   (a.type == cudaMemoryTypeUnregistered ? "pageable" : "device or managed") + ")";
    }
    return "";
}

// A failed result when the pipeline's buffers cannot be used; nullopt when they can.
std::optional<CorrectnessResult> refuse_unpinned(Pipeline& p) {
    const std::string bad = buffers_problem(p);
    if (bad.empty()) return std::nullopt;
    CorrectnessResult r;
    r.message = bad;
    r.hint = "allocate the pinned input and output once, in the constructor (cudaMallocHost or gpulab::PinnedBuffer)";
    return r;
}

// One run of the pipeline on a case: fresh input in input(), poisoned output(), then the bits of output().
std::vector<std::uint16_t> run_once(Pipeline& p, const Case& c, std::size_t chunks, Chaos& chaos) {
    std::memcpy(p.input(), c.in.data(), c.n * sizeof(std::uint16_t));
    std::memset(const_cast<std::uint16_t*>(p.output()), 0xFF, c.n * sizeof(std::uint16_t));
    p.run(c.n, c.iters, chunks, chaos);
    return {p.output(), p.output() + c.n};
}

CorrectnessResult check_chunks(Context& ctx, std::size_t n, std::size_t chunks) {
    Pipeline& p = pipeline();
    if (auto refused = refuse_unpinned(p)) return *refused;
    CorrectnessResult r;
    const Case& c = get_case(ctx, n, kCheckIters);
    Chaos quiet;
    const std::vector<std::uint16_t> out = run_once(p, c, chunks, quiet);
    const std::size_t chunk = (n + chunks - 1) / chunks;
    // Mismatches are located by chunk: the "tile" of the flat layout is one chunk.
    r = to_result(compare_bits(std::span<const std::uint16_t>(out), std::span<const std::uint16_t>(c.expected),
                               TileLayout{1, n, 1, chunk}),
                  "bitwise against the serial path");
    if (!std::equal(c.in.begin(), c.in.end(), p.input()))
        r = {false, "the pipeline wrote into input()", "input() is the caller's: read it, never write it", {}, ""};
    r.details["chunks"] = chunks;
    r.details["operations_announced"] = quiet.points();
    return r;
}

// Many runs under chaos: every one must give the serial path's bits, and announce every operation.
constexpr int kChaosRuns = 60;
constexpr std::size_t kChaosElements = (std::size_t(1) << 20) + 333;
constexpr std::size_t kChaosChunks = 16;

CorrectnessResult check_chaos(Context& ctx) {
    Pipeline& p = pipeline();
    if (auto refused = refuse_unpinned(p)) return *refused;
    CorrectnessResult r;
    const Case& c = get_case(ctx, kChaosElements, kCheckIters);
    int wrong = 0, first_wrong = -1;
    std::size_t fewest_points = std::size_t(-1);
    bool unbalanced = false;
    std::string first_what;
    for (int i = 0; i < kChaosRuns; ++i) {
        Chaos chaos(ctx.seed_for("lab01 chaos " + std::to_string(i)), 40.0, 15.0);
        const std::vector<std::uint16_t> out = run_once(p, c, kChaosChunks, chaos);
        fewest_points = std::min(fewest_points, chaos.points());
        unbalanced = unbalanced || chaos.dones() != chaos.points();
        if (out != c.expected) {
            if (wrong++ == 0) {
                first_wrong = i;
                const CompareReport rep = compare_bits(std::span<const std::uint16_t>(out),
                                                       std::span<const std::uint16_t>(c.expected),
                                                       TileLayout{1, c.n, 1, (c.n + kChaosChunks - 1) / kChaosChunks});
                first_what = rep.describe();
            }
        }
    }
    const std::size_t needed = 3 * kChaosChunks;
    r.details = {{"runs", kChaosRuns}, {"wrong_runs", wrong}, {"fewest_points", fewest_points}, {"needed_points", needed}};
    if (fewest_points < needed) {
        r.message = strprintf("chaos.point() was called %zu times in a run of %zu chunks; every copy and kernel needs one "
                              "(%zu)",
                              fewest_points, kChaosChunks, needed);
        r.hint = "call chaos.point(stream) right before each cudaMemcpyAsync and each launch_work";
        return r;
    }
    if (unbalanced) {
        r.message = "chaos.done() was not called once after each operation chaos.point() announced";
        r.hint = "each copy and kernel goes between chaos.point(stream) and chaos.done(stream), on the same stream";
        return r;
    }
    r.passed = wrong == 0;
    r.message = wrong == 0 ? strprintf("%d of %d runs under chaos bit-identical to the serial path", kChaosRuns, kChaosRuns)
                           : strprintf("%d of %d runs under chaos differ from the serial path; the first (run %d): %s",
                                       wrong, kChaosRuns, first_wrong, first_what.c_str());
    if (wrong > 0)
        r.hint = "a chunk was read before it arrived or a slot overwritten before its last use was done: which event "
                 "does each copy and kernel wait for? (Right without chaos, wrong with it: a race.)";
    return r;
}

// (b) The pinned buffers are the same from call to call.
CorrectnessResult check_pinned(Context&) {
    Pipeline& p = pipeline();
    if (auto refused = refuse_unpinned(p)) return *refused;
    CorrectnessResult r;
    const std::uint16_t* in = p.input();
    const std::uint16_t* out = p.output();
    Chaos quiet;
    std::memset(p.input(), 0, 1024 * sizeof(std::uint16_t));
    p.run(1024, 1, 2, quiet);
    r.passed = in == p.input() && out == p.output();
    if (!r.passed) {
        r.message = "input() or output() moved during run(): the pinned buffers must be allocated once";
        return r;
    }
    r.message = "input() and output() are pinned host memory, the same before and after run()";
    return r;
}

// The three stages of one call of n elements (copy in from pinned memory, the kernel, copy out to pinned
// memory), each timed alone with events.
models::StreamStages time_stages(std::size_t n, int iters) {
    PinnedBuffer<std::uint16_t> host(n);
    std::memset(host.data(), 0, n * 2);
    DeviceBuffer<bf16> a(n), b(n);
    models::StreamStages s;
    s.h2d_us = 1e3 * time_region([&](cudaStream_t st) {
        CUDA_CHECK(cudaMemcpyAsync(a.data(), host.data(), n * 2, cudaMemcpyHostToDevice, st));
    }).median_ms;
    s.kernel_us = 1e3 * time_region([&](cudaStream_t st) { launch_work(a.data(), b.data(), n, iters, st); }).median_ms;
    s.d2h_us = 1e3 * time_region([&](cudaStream_t st) {
        CUDA_CHECK(cudaMemcpyAsync(host.data(), b.data(), n * 2, cudaMemcpyDeviceToHost, st));
    }).median_ms;
    return s;
}

double total_ms(const models::StreamStages& s) { return (s.h2d_us + s.kernel_us + s.d2h_us) / 1e3; }

// (a) The three clocks of one call, against the grader's own events on the same call: at the timed size and
// on a tiny call, each queued behind 2 ms of earlier work on its stream, which the end-to-end clock waits
// through and the device clock must not count.
struct ClockRun {
    Clocks k;
    double grader_ms = 0;
    bool result_ready = false;
};

// Keeps a stream busy for about `us` microseconds: work queued ahead of the call, which its end-to-end clock
// waits through and its device clock (events on the stream) does not see.
__global__ void hold(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

void hold_stream(cudaStream_t s, double us) {
    int dev = 0, khz = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    hold<<<1, 1, 0, s>>>(static_cast<long long>(us * khz / 1000.0));
    CUDA_CHECK(cudaGetLastError());
}

constexpr double kQueuedAheadUs = 2000;

ClockRun run_clocks(Context& ctx, std::size_t n) {
    const Case& c = get_case(ctx, n, kCheckIters);
    PinnedBuffer<std::uint16_t> in(n), out(n);
    DeviceBuffer<bf16> dev_in(n), dev_out(n);
    std::memcpy(in.data(), c.in.data(), n * sizeof(std::uint16_t));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const auto grader_call = [&] {
        EventTimer t;
        t.start(stream);
        CUDA_CHECK(cudaMemcpyAsync(dev_in.data(), in.data(), n * 2, cudaMemcpyHostToDevice, stream));
        launch_work(dev_in.data(), dev_out.data(), n, kCheckIters, stream);
        CUDA_CHECK(cudaMemcpyAsync(out.data(), dev_out.data(), n * 2, cudaMemcpyDeviceToHost, stream));
        t.stop(stream);
        return double(t.elapsed_ms());
    };
    (void)grader_call();  // warm-up
    ClockRun run;
    const double before = grader_call();
    std::memset(out.data(), 0xFF, n * 2);
    hold_stream(stream, kQueuedAheadUs);
    run.k = three_clocks(in.data(), out.data(), dev_in.data(), dev_out.data(), n, kCheckIters, stream);
    run.result_ready = std::equal(c.expected.begin(), c.expected.end(), out.data());  // read at once: usable?
    const double after = grader_call();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    run.grader_ms = (before + after) / 2;
    return run;
}

constexpr std::size_t kTinyCall = 2048;

// The given serial path at the timed size, on the host clock (median of 3), and its stages alone: synchronous
// copies from and to pageable memory and the kernel, each on the host clock too.
struct SerialPath {
    double end_to_end_ms = 0;
    models::StreamStages stages;
};

SerialPath time_serial_path(Context& ctx) {
    const Case& c = get_case(ctx, kTimedElements, kCheckIters);
    std::vector<std::uint16_t> out(kTimedElements);
    DeviceBuffer<bf16> a(kTimedElements), b(kTimedElements);
    const std::size_t bytes = kTimedElements * 2;
    const auto host_ms = [](const auto& f) {
        std::vector<double> t;
        for (int i = 0; i < 3; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            f();
            t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(t.begin(), t.end());
        return t[1];
    };
    SerialPath s;
    run_serial(c.in.data(), out.data(), kTimedElements, kCheckIters);  // warm-up
    s.end_to_end_ms = host_ms([&] { run_serial(c.in.data(), out.data(), kTimedElements, kCheckIters); });
    s.stages.h2d_us = 1e3 * host_ms([&] { CUDA_CHECK(cudaMemcpy(a.data(), c.in.data(), bytes, cudaMemcpyHostToDevice)); });
    s.stages.kernel_us = 1e3 * host_ms([&] {
        launch_work(a.data(), b.data(), kTimedElements, kCheckIters, nullptr);
        CUDA_CHECK(cudaStreamSynchronize(nullptr));
    });
    s.stages.d2h_us = 1e3 * host_ms([&] { CUDA_CHECK(cudaMemcpy(out.data(), b.data(), bytes, cudaMemcpyDeviceToHost)); });
    return s;
}

CorrectnessResult check_clocks(Context& ctx) {
    const ClockRun big = run_clocks(ctx, kTimedElements), tiny = run_clocks(ctx, kTinyCall);
    // One call on one stream is the serial path: its device time is its three stages, end to end.
    const models::StreamStages stages = time_stages(kTimedElements, kCheckIters);
    const SerialPath serial = time_serial_path(ctx);
    CorrectnessResult r;
    const auto as_json = [](const ClockRun& c) {
        return nlohmann::json{{"submit_ms", c.k.submit_ms}, {"device_ms", c.k.device_ms},
                              {"end_to_end_ms", c.k.end_to_end_ms}, {"grader_device_ms", c.grader_ms}};
    };
    const auto stages_json = [](const models::StreamStages& s) {
        return nlohmann::json{{"h2d_ms", s.h2d_us / 1e3}, {"kernel_ms", s.kernel_us / 1e3}, {"d2h_ms", s.d2h_us / 1e3}};
    };
    r.details = {{"timed_size", as_json(big)},
                 {"tiny_call", as_json(tiny)},
                 {"timed_size_stages_alone", stages_json(stages)},
                 {"serial_path", {{"end_to_end_ms", serial.end_to_end_ms}, {"stages_alone", stages_json(serial.stages)}}}};
    const auto text = [](const ClockRun& c) {
        return strprintf("submit %.3f ms, device %.3f ms, end to end %.3f ms (the grader's events: %.3f ms)", c.k.submit_ms,
                         c.k.device_ms, c.k.end_to_end_ms, c.grader_ms);
    };
    const auto sum = [](const models::StreamStages& s) {
        return strprintf("%.3f + %.3f + %.3f = %.3f ms", s.h2d_us / 1e3, s.kernel_us / 1e3, s.d2h_us / 1e3, total_ms(s));
    };
    r.message = "64 MiB: " + text(big) + "; its stages alone, in + kernel + out: " + sum(stages) + "; 4 KiB: " + text(tiny) +
                strprintf(". The serial path (pageable, synchronous, not graded): %.3f ms end to end, its stages alone ",
                          serial.end_to_end_ms) +
                sum(serial.stages);
    const auto fail = [&](const std::string& why, const std::string& hint) {
        r.message = why + ". " + r.message;
        r.hint = hint;
        return r;
    };
    for (const ClockRun* c : {&big, &tiny}) {
        if (!c->result_ready)
            return fail("the result was not in pinned_out when three_clocks() returned",
                        "end to end means until the result is usable: wait for the last copy before reading the host clock");
        if (!(c->k.submit_ms > 0 && c->k.device_ms > 0 && c->k.end_to_end_ms > 0))
            return fail("a clock reads zero", "measure all three");
        // Events resolve about a microsecond, but the grader's pair brackets the call from outside: on the H200 the
        // reference's 4 KiB call once read 0.015 ms against the grader's 0.023 ms. The host clock around a
        // synchronised call reads milliseconds there (the call's end-to-end time), so 0.02 ms still tells them apart.
        if (std::abs(c->k.device_ms - c->grader_ms) > 0.15 * c->grader_ms + 0.02)
            return fail(c == &big ? "at 64 MiB the device time is not the call's" : "on the 4 KiB call the device time is not the call's",
                        "the device clock is a pair of CUDA events on the call's stream (one before the copy in, one after "
                        "the copy out) and cudaEventElapsedTime — not the host clock, which also counts the host's own latency");
        if (c->k.device_ms > 1.02 * c->k.end_to_end_ms + 0.005)
            return fail("the device time exceeds the end-to-end time", "end to end starts before the first enqueue");
    }
    if (std::abs(big.k.device_ms - total_ms(stages)) > 0.1 * total_ms(stages) + 0.02)
        return fail("at 64 MiB the device time is not the sum of the call's three stages timed alone",
                    "one stream runs its copy in, kernel and copy out one after another: the events go before the "
                    "first and after the last");
    if (big.k.submit_ms > 0.5 * big.k.device_ms)
        return fail("at 64 MiB, submitting took more than half the device time",
                    "the submit clock stops when the last enqueuing call returns, before any wait");
    r.passed = true;
    return r;
}

// (d) The watchdog on the program that hangs, then on the fixed program.
constexpr double kDeadlineMs = 300;

CorrectnessResult check_watchdog(Context&) {
    HangDemo demo;
    const std::vector<Watched> items{{"producer", demo.producer(), nullptr},
                                     {"consumer", demo.consumer(), nullptr},
                                     {"flag seen", nullptr, demo.consumed()}};
    CorrectnessResult r;
    // The watchdog runs on a thread of its own: if it blocks, the grader releases the hang after a grace period
    // (so the process goes on) and the check fails.
    const auto watched = [&](double deadline_ms, bool release) {
        demo.start(release);
        const auto t0 = std::chrono::steady_clock::now();
        std::future<WatchReport> f = std::async(std::launch::async, [&] { return watch(items, deadline_ms); });
        const bool in_time = f.wait_for(std::chrono::duration<double, std::milli>(deadline_ms + 1000)) ==
                             std::future_status::ready;
        demo.unblock();
        const WatchReport rep = f.get();
        const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        CUDA_CHECK(cudaStreamSynchronize(demo.consumer()));
        return std::tuple{rep, in_time, took};
    };
    const auto [hung, hung_in_time, hung_took] = watched(kDeadlineMs, false);
    const auto [fixed, fixed_in_time, fixed_took] = watched(10 * kDeadlineMs, true);
    const std::vector<std::string> stuck{"consumer", "flag seen"};
    const auto names = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
        return s.empty() ? std::string("nothing") : s;
    };
    r.details = {{"hang", {{"finished", hung.finished}, {"unfinished", hung.unfinished}, {"waited_ms", hung.waited_ms},
                           {"returned_after_ms", hung_took}}},
                 {"fixed", {{"finished", fixed.finished}, {"unfinished", fixed.unfinished}, {"returned_after_ms", fixed_took}}}};
    if (!hung_in_time) {
        r.message = strprintf("on the hanging program, watch() returned only after the grader released the hang (%.0f ms; "
                              "deadline %.0f ms)",
                              hung_took, kDeadlineMs);
        r.hint = "never block on a stream or an event (cudaStreamSynchronize, cudaEventSynchronize): poll with "
                 "cudaStreamQuery / cudaEventQuery until the deadline";
        return r;
    }
    if (hung.finished || hung.unfinished != stuck) {
        r.message = "on the hanging program, watch() reported " + std::string(hung.finished ? "finished" : "unfinished: ") +
                    (hung.finished ? "" : names(hung.unfinished)) + "; expected unfinished: " + names(stuck);
        r.hint = "cudaErrorNotReady from a query means still running; report each item that never completed, by name";
        return r;
    }
    if (hung.waited_ms < 0.9 * kDeadlineMs || hung_took > kDeadlineMs + 250) {
        r.message = strprintf("on the hanging program, watch() gave up after %.0f ms (returned after %.0f ms); the "
                              "deadline was %.0f ms",
                              hung.waited_ms, hung_took, kDeadlineMs);
        r.hint = "wait until the deadline, then stop";
        return r;
    }
    if (!fixed_in_time || !fixed.finished || !fixed.unfinished.empty() || fixed_took > 1000) {
        r.message = strprintf("on the fixed program, watch() reported %s after %.0f ms", fixed.finished ? "finished" : "unfinished",
                              fixed_took);
        r.hint = "return as soon as everything has completed";
        return r;
    }
    r.passed = true;
    r.message = strprintf("hanging program: unfinished %s after %.0f ms (deadline %.0f ms); fixed program: finished "
                          "after %.1f ms",
                          names(hung.unfinished).c_str(), hung.waited_ms, kDeadlineMs, fixed_took);
    return r;
}

// ---- time ---------------------------------------------------------------------------------------------

// The work per element at which a timed chunk's kernel takes about as long as its copy in: the balanced
// point, where overlap pays most. Measured once per run on this GPU.
int balanced_iters() {
    static const int iters = [] {
        const std::size_t n = kTimedElements / kTimedChunks;
        PinnedBuffer<std::uint16_t> host(n);
        std::memset(host.data(), 0, n * 2);
        DeviceBuffer<bf16> a(n), b(n);
        const TimingResult copy = time_region([&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(a.data(), host.data(), n * 2, cudaMemcpyHostToDevice, s));
        }, TimingOptions{});
        const int probe = 256;
        const TimingResult kernel = time_region([&](cudaStream_t s) { launch_work(a.data(), b.data(), n, probe, s); },
                                                TimingOptions{});
        return std::clamp(static_cast<int>(probe * copy.median_ms / kernel.median_ms), 8, 8192);
    }();
    return iters;
}

// The serial path and the pipeline, both synchronous, on the same data; the pipeline's output is verified
// against the serial path's after the timing.
struct TimedPaths {
    std::vector<std::uint16_t> in, serial_out;
    int iters = balanced_iters();
    explicit TimedPaths(std::uint64_t seed) : in(kTimedElements), serial_out(kTimedElements) {
        fill_uniform_bf16(in, seed, -4.0f, 4.0f);
    }
    void serial() { run_serial(in.data(), serial_out.data(), in.size(), iters); }
    void piped(Pipeline& p) {
        Chaos quiet;
        p.run(in.size(), iters, kTimedChunks, quiet);
    }
};

constexpr int kTimedReps = 9;

// The reference the timed checks compare against what they measured alone: a 64 MiB copy from pinned
// memory, timed with events. (The serial path's own host time moves by tens of percent from run to run with
// the host's memory, so it cannot tell whether the GPU or the link was shared.)
struct PinnedCopy {
    PinnedBuffer<std::uint16_t> host{kTimedElements};
    DeviceBuffer<bf16> dev{kTimedElements};
    void enqueue(cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dev.data(), host.data(), kTimedElements * 2, cudaMemcpyHostToDevice, s));
    }
};

// Times the reference inside a check and compares it with its timing alone.
void compare_pinned_copy(const Context& ctx, PerfResult& r) {
    PinnedCopy copy;
    std::memset(copy.host.data(), 0, copy.host.bytes());
    const TimingResult inside = time_region([&](cudaStream_t s) { copy.enqueue(s); }, grading_timing("lab01 pinned copy"));
    compare_reference(ctx, inside, r);
}

// Verifies the pipeline on new data after its timed runs: "" when right.
std::string verify_pipeline(Pipeline& p, TimedPaths& t, std::uint64_t seed) {
    fill_uniform_bf16(t.in, seed, -4.0f, 4.0f);
    std::memcpy(p.input(), t.in.data(), t.in.size() * 2);
    std::memset(const_cast<std::uint16_t*>(p.output()), 0xFF, t.in.size() * 2);
    t.piped(p);
    t.serial();
    if (std::equal(t.serial_out.begin(), t.serial_out.end(), p.output())) return "";
    return "the pipeline's output on new data differs from the serial path's";
}

PerfResult perf_speedup(Context& ctx) {
    Pipeline& p = pipeline();
    TimedPaths t(ctx.seed_for("lab01 timed"));
    std::memcpy(p.input(), t.in.data(), t.in.size() * 2);
    const AbResult ab = time_host_ab([&] { t.serial(); }, [&] { t.piped(p); }, kTimedReps);
    PerfResult r;
    r.ratio = ab.ratio;
    r.time_ms = ab.b.median_ms;
    r.message = strprintf("pipeline %.3f ms vs serial path %.3f ms end to end (host clock, interleaved, median of %d; "
                          "%zu chunks, %d steps per element)",
                          ab.b.median_ms, ab.a.median_ms, kTimedReps, kTimedChunks, t.iters);
    r.details = {{"pipeline", ab.b}, {"serial", ab.a}, {"iters", t.iters}, {"chunks", kTimedChunks}};
    compare_pinned_copy(ctx, r);
    r.wrong_result = verify_pipeline(p, t, ctx.seed_for("lab01 timed verify"));
    return r;
}

// (b) What pinning buys: 64 MiB copied to the device from input() and from pageable memory, interleaved.
PerfResult perf_pinned(Context& ctx) {
    Pipeline& p = pipeline();
    std::vector<std::uint16_t> pageable(kTimedElements, 0);
    std::memset(p.input(), 0, kTimedElements * 2);
    DeviceBuffer<bf16> dev(kTimedElements);
    const std::size_t bytes = kTimedElements * 2;
    const AbResult ab = time_ab(
        [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(dev.data(), pageable.data(), bytes, cudaMemcpyHostToDevice, s)); },
        [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(dev.data(), p.input(), bytes, cudaMemcpyHostToDevice, s)); },
        grading_timing("lab01 pinned vs pageable"));
    const double pageable_gbps = bytes / (ab.a.median_ms * 1e6), pinned_gbps = bytes / (ab.b.median_ms * 1e6);
    PerfResult r;
    r.ratio = ab.ratio;
    r.time_ms = ab.b.median_ms;
    r.message = strprintf("64 MiB to the device: %.1f GB/s from input(), %.1f GB/s from pageable memory", pinned_gbps,
                          pageable_gbps);
    r.details = {{"pinned", ab.b}, {"pageable", ab.a}, {"pinned_gbps", pinned_gbps}, {"pageable_gbps", pageable_gbps}};
    compare_pinned_copy(ctx, r);
    return r;
}

PerfResult perf_model(Context& ctx) {
    Pipeline& p = pipeline();
    TimedPaths t(ctx.seed_for("lab01 timed model"));
    std::memcpy(p.input(), t.in.data(), t.in.size() * 2);
    const models::StreamStages s = time_stages(kTimedElements / kTimedChunks, balanced_iters());
    const double model_ms = models::stream_pipeline_time_us(kTimedChunks, s, 2) / 1e3;
    const AbResult ab = time_host_ab([&] { t.serial(); }, [&] { t.piped(p); }, kTimedReps);
    PerfResult r;
    r.ratio = model_ms / ab.b.median_ms;
    r.time_ms = ab.b.median_ms;
    r.message = strprintf("pipeline %.3f ms end to end; the model from the measured stages (%.1f µs in, %.1f µs kernel, "
                          "%.1f µs out per chunk, 2 slots): %.3f ms (serial path: %.3f ms)",
                          ab.b.median_ms, s.h2d_us, s.kernel_us, s.d2h_us, model_ms, ab.a.median_ms);
    r.details = {{"pipeline", ab.b}, {"serial", ab.a}, {"model_ms", model_ms},
                 {"stages_us", {{"h2d", s.h2d_us}, {"kernel", s.kernel_us}, {"d2h", s.d2h_us}}},
                 {"bottleneck", models::stream_bottleneck(s)}};
    compare_pinned_copy(ctx, r);
    r.wrong_result = verify_pipeline(p, t, ctx.seed_for("lab01 timed model verify"));
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    const std::size_t tail = (std::size_t(8) << 20) + 4321;  // not a multiple of any chunk count below
    for (const std::size_t chunks : {std::size_t(1), std::size_t(2), std::size_t(7), kMaxChunks})
        lab.correctness("correct.chunks" + std::to_string(chunks), "(c) " + std::to_string(chunks) + " chunk" +
                                                                      (chunks > 1 ? "s" : "") + ", 8 Mi + 4321 elements",
                        5, [tail, chunks](Context& ctx) { return check_chunks(ctx, tail, chunks); });
    lab.correctness("correct.timed_size", "(c) 16 chunks, 32 Mi elements (the timed size)", 4,
                    [](Context& ctx) { return check_chunks(ctx, kTimedElements, kTimedChunks); });
    lab.correctness("races.chaos", "(c) 60 runs under chaos, bit-identical", 14, check_chaos);
    lab.correctness("pinned.reused", "(b) pinned input and output, allocated once", 2, check_pinned);
    lab.correctness("clocks.three", "(a) submit, device and end-to-end clocks", 10, check_clocks);
    lab.correctness("watchdog.hang", "(d) the watchdog names what hangs, and lets a fixed program finish", 10,
                    check_watchdog);

    lab.reference("pinned_copy", [](Context&) {
        PinnedCopy copy;
        std::memset(copy.host.data(), 0, copy.host.bytes());
        return reference_alone("the 64 MiB copy from pinned memory", [&](int, cudaStream_t s) { copy.enqueue(s); }, 1,
                               "reference alone: lab01 pinned copy");
    });
    // The reference reaches 7.8-11.7x over the serial path and 0.97-0.98 of the model on an H200 (the serial
    // path's pageable copies alone vary by tens of percent from run to run).
    const PerfSpec speedup{.requires_check = "correct.timed_size", .pass_bar = 4.5, .full_bar = 6.5, .unit = "x serial",
                           .reference = "pinned_copy"};
    // Pinned over pageable: 5.9-7.3x on an H200 (55 GB/s vs 7.5-9.3 GB/s from pageable memory, which varies from run
    // to run): any pinned input() earns full marks there; the check shows what pinning buys.
    const PerfSpec pinned{.requires_check = "pinned.reused", .pass_bar = 2.5, .full_bar = 4.0, .unit = "x pageable",
                          .reference = "pinned_copy"};
    lab.performance("perf.pinned", "(b) a 64 MiB copy from input() over the same from pageable memory", 4, pinned,
                    perf_pinned);
    lab.performance("perf.speedup", "(b, c) speed-up over the serial path, 64 MiB", 8, speedup, perf_speedup);
    const PerfSpec model{.requires_check = "correct.timed_size", .pass_bar = 0.6, .full_bar = 0.8, .unit = "model / measured",
                         .reference = "pinned_copy"};
    lab.performance("perf.model", "(c) the three-stage model over measured time", 8, model, perf_model);
}
