// FROZEN: do not edit. Lab 01's graded checks. They grade what the GPU ran (the grader's observer, CUPTI:
// grader/observer.hpp), never what the code reports about itself: the pipeline's bits against the serial path
// (chunk counts 1, 2, 7, 64, a tail, the timed size; fresh data for each) with its copies, kernels and streams as
// observed; the same under the grader's chaos (random delays put on every stream the pipeline's copies and
// kernels really use, many runs, fresh data and a fresh shape each); pinned buffers allocated once (no
// allocation observed in any run()); the three clocks against the call's work and calls as observed; a watchdog
// timed from outside, on a program that hangs, with deadlines and names drawn per run; and time: pinned over
// pageable copies, the pipeline against the serial path (host clock; every timed run on fresh data, verified)
// and against the three-stage model, each with its plausibility floor.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/bf16.hpp"
#include "labs/compare.hpp"
#include "labs/launch.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"
#include "streams.hpp"

using namespace gpulab;
using namespace gpulab::grader;

// The grader's spin kernel (checks_kernels.cu): one thread, one argument (long long cycles), keeps a stream busy for
// that many clock cycles — the grader's own work on a stream (its chaos, work queued ahead).
const void* lab01_hold_kernel();

namespace {

constexpr std::size_t kTimedElements = std::size_t(32) << 20;  // 64 MiB of BF16: Example 5-1's tensor
constexpr std::size_t kMaxChunks = 64;
constexpr int kCheckIters = 24;          // the correctness checks' work per element (not the timed size's)
constexpr std::size_t kTimedChunks = 16; // the timed pipeline's chunks
// The given work kernel (launch_work's, baseline.cu): the one kernel the graded code launches (Lab::given_kernels).
constexpr const char* kWorkKernel = "(^|::)work_kernel$";

using Clock = std::chrono::steady_clock;

double ms_between(std::uint64_t from_ns, std::uint64_t to_ns) { return to_ns > from_ns ? double(to_ns - from_ns) * 1e-6 : 0.0; }

double clock_khz() {
    static const double khz = gpulab::device_attribute(cudaDevAttrClockRate);
    return khz;
}

// The spin kernel's mangled name, as the observer records it.
std::string hold_name() {
    static const std::string name = [] {
        const char* n = nullptr;
        CUDA_CHECK(cudaFuncGetName(&n, lab01_hold_kernel()));
        return std::string(n != nullptr ? n : "");
    }();
    return name;
}

void hold_stream(cudaStream_t s, double us) {
    long long cycles = static_cast<long long>(us * clock_khz() / 1000.0);
    void* args[] = {&cycles};
    CUDA_CHECK(cudaLaunchKernel(lab01_hold_kernel(), dim3(1), dim3(1), args, 0, s));
}

// ---- the pipeline, as the grader calls it ----------------------------------------------------------------

// The grader's one Pipeline (pinned memory is allocated once, as the lab asks), made on first use, and the buffers
// it returned then. Every call of the student's code is a graded call.
struct Piped {
    std::unique_ptr<Pipeline> p;
    std::uint16_t* in = nullptr;
    const std::uint16_t* out = nullptr;
    void run(std::size_t n, int iters, std::size_t chunks) {
        Chaos timeline;  // the bench's timeline hook: it only counts here, and nothing graded reads it
        GradedCall graded;
        p->run(n, iters, chunks, timeline);
    }
};

Piped& pipeline() {
    static Piped piped = [] {
        GradedCall graded;
        Piped q;
        q.p = std::make_unique<Pipeline>(kTimedElements, kMaxChunks);
        q.in = q.p->input();
        q.out = q.p->output();
        return q;
    }();
    return piped;
}

// Why the pipeline's pinned buffers cannot be used ("" when they can).
std::string buffers_problem(const Piped& p) {
    if (p.in == nullptr || p.out == nullptr) return "input() or output() returned no memory";
    for (const void* ptr : {static_cast<const void*>(p.in), static_cast<const void*>(p.out)}) {
        cudaPointerAttributes a{};
        CUDA_CHECK(cudaPointerGetAttributes(&a, ptr));
        if (a.type != cudaMemoryTypeHost)
            return std::string(ptr == p.in ? "input()" : "output()") + " is not pinned host memory (" +
                   (a.type == cudaMemoryTypeUnregistered ? "pageable" : "device or managed") + ")";
    }
    return "";
}

// Why a check of the pipeline's runs cannot grade them: a failed result when its buffers cannot be used, a skipped one
// when the observer does not record here; nullopt when it can.
std::optional<CorrectnessResult> refuse_ungradable(const Piped& p) {
    CorrectnessResult r;
    const std::string bad = buffers_problem(p);
    if (bad.empty()) {
        if (skip_unobserved(r)) return r;
        return std::nullopt;
    }
    r.message = bad;
    r.hint = "allocate the pinned input and output once, in the constructor (cudaMallocHost or gpulab::PinnedBuffer)";
    return r;
}

// Fresh input of n elements drawn from `seed` (on the device: the same bits as fill_uniform_bf16) and the serial
// path's output for it.
struct Case {
    std::size_t n = 0;
    int iters = 0;
    std::vector<std::uint16_t> in, expected;
};

Case make_case(std::size_t n, int iters, std::uint64_t seed) {
    Case c;
    c.n = n;
    c.iters = iters;
    c.in.resize(n);
    c.expected.resize(n);
    DeviceBuffer<bf16> d(n);
    fill_uniform_bf16_device(d.data(), n, seed, -4.0f, 4.0f);
    CUDA_CHECK(cudaMemcpy(c.in.data(), d.data(), n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
    run_serial(c.in.data(), c.expected.data(), n, iters);
    return c;
}

// ---- the grader's chaos --------------------------------------------------------------------------------------

// At every copy and kernel the graded code enqueues (the observer's enqueue hook, on the stream the operation
// really goes to), a spin kernel of random length on that stream and a random host delay. Each stream draws a
// pace when first seen in a run (slow, normal or rushed), so that some runs starve one stream and rush another:
// any order the events do not enforce comes out wrong, sooner or later. Nothing is asked of the pipeline, and
// the draws come from randomness the process cannot know.
class GraderChaos {
public:
    GraderChaos(double max_spin_us, double max_delay_us)
        : seed_(secret_draw()), max_spin_us_(max_spin_us), max_delay_us_(max_delay_us), khz_(clock_khz()) {
        hold_stream(nullptr, 0);  // loads the spin kernel now, not first inside a hook
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    GraderChaos(const GraderChaos&) = delete;
    GraderChaos& operator=(const GraderChaos&) = delete;

    // The hook, armed for one run() (the scope of the object); each run draws new paces.
    class Armed {
    public:
        explicit Armed(GraderChaos& c) {
            {
                const std::lock_guard<std::mutex> lock(c.mu_);
                c.paces_.clear();
            }
            // The spin kernel is the grader's: named as the hook's own, it never counts as graded work.
            Observer::instance().set_enqueue_hook([&c](cudaStream_t s, const char*) { c.delay(s); }, {hold_name()});
        }
        ~Armed() { Observer::instance().set_enqueue_hook({}); }
        Armed(const Armed&) = delete;
        Armed& operator=(const Armed&) = delete;
    };

    [[nodiscard]] std::size_t delays() const { return delays_; }
    [[nodiscard]] std::size_t failed() const { return failed_; }

private:
    double uniform() { return double(random_bits(seed_, draws_++) >> 11) * 0x1.0p-53; }

    // Runs inside the graded code's enqueuing call (a CUPTI callback): it must never throw.
    void delay(cudaStream_t s) noexcept {
        try {
            const std::lock_guard<std::mutex> lock(mu_);  // the graded code's own threads enqueue too
            auto [it, fresh] = paces_.try_emplace(s, 1.0);
            if (fresh) {
                const double u = uniform();
                it->second = u < 1.0 / 3 ? 0.05 : u < 2.0 / 3 ? 1.0 : 8.0;
            }
            long long cycles = static_cast<long long>(max_spin_us_ * it->second * uniform() * khz_ / 1000.0);
            void* args[] = {&cycles};
            if (cudaLaunchKernel(lab01_hold_kernel(), dim3(1), dim3(1), args, 0, s) == cudaSuccess) {
                ++delays_;
            } else {
                (void)cudaGetLastError();  // the grader's error, not the graded code's
                ++failed_;
            }
            // A busy wait: a host sleep of a few microseconds lasts tens.
            const Clock::time_point until =
                Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(max_delay_us_ * uniform()));
            while (Clock::now() < until) {
            }
        } catch (...) {
            ++failed_;
        }
    }

    std::mutex mu_;
    std::uint64_t seed_ = 0, draws_ = 0;
    double max_spin_us_ = 0, max_delay_us_ = 0, khz_ = 0;
    std::map<cudaStream_t, double> paces_;
    std::size_t delays_ = 0, failed_ = 0;
};

constexpr double kChaosSpinUs = 40, kChaosDelayUs = 15;

// ---- one observed run ---------------------------------------------------------------------------------------

// Allocations the observer saw the graded code make inside run(), over every observed run of this process:
// what pinned.reused grades (everything is allocated once, in the constructor).
struct RunAllocations {
    std::size_t runs = 0, count = 0;
    std::map<std::string, std::uint64_t> bytes_by_kind;
    std::string first_in;
};

RunAllocations& run_allocations() {
    static RunAllocations a;
    return a;
}

// One observed run of the pipeline on a case: its input in input(), a poisoned output(), then (at once) the bits of
// output() and what ran. With `chaos`, the grader's chaos is on during the run.
struct SeenRun {
    std::vector<std::uint16_t> out;
    Observation seen;
    std::uint64_t returned = 0;  // when run() returned (the observer's clock)
};

SeenRun run_observed(Piped& p, const Case& c, std::size_t chunks, GraderChaos* chaos, const std::string& check) {
    std::memcpy(p.in, c.in.data(), c.n * sizeof(std::uint16_t));
    std::memset(const_cast<std::uint16_t*>(p.out), 0xFF, c.n * sizeof(std::uint16_t));
    SeenRun s;
    Window window;
    {
        std::optional<GraderChaos::Armed> armed;
        if (chaos != nullptr) armed.emplace(*chaos);
        p.run(c.n, c.iters, chunks);
        s.returned = Observer::instance().now();
    }
    s.out.assign(p.out, p.out + c.n);  // read at once: run() returns when output() holds the result
    s.seen = window.close();
    RunAllocations& a = run_allocations();
    ++a.runs;
    for (const ObservedAllocation& x : s.seen.allocations) {
        if (!x.graded) continue;
        if (a.count++ == 0) a.first_in = check;
        a.bytes_by_kind[to_string(x.kind)] += x.bytes;
    }
    return s;
}

struct Problem {
    std::string message, hint;
    [[nodiscard]] bool found() const { return !message.empty(); }
};

bool is_work_kernel(const ObservedKernel& k) {
    static const std::regex work(kWorkKernel);
    return !k.own && std::regex_search(kernel_display_name(k.name), work);
}

// What one run() of n elements in `chunks` chunks did, as observed, against what the lab asks (streams.hpp): one
// copy in from pinned memory, one launch of the given work kernel and one copy out to pinned memory per chunk, none
// in a graph, all of it done before run() returned, and (with `streams`) on at least two streams.
Problem structure_problem(const SeenRun& s, std::size_t n, std::size_t chunks, bool streams) {
    const std::size_t chunk = (n + chunks - 1) / chunks, expected = (n + chunk - 1) / chunk;
    const std::uint64_t bytes = n * sizeof(std::uint16_t);
    std::size_t h2d = 0, d2h = 0, work = 0;
    std::uint64_t h2d_bytes = 0, d2h_bytes = 0;
    std::string other;
    for (const ObservedCopy& c : s.seen.copies) {
        if (!c.graded || c.is_memset) continue;
        if (c.pageable_host)
            return {strprintf("run() made a copy (%s, %llu bytes) from or to pageable host memory, which the driver stages "
                              "through a buffer of its own",
                              to_string(c.kind), static_cast<unsigned long long>(c.bytes)),
                    "copy from input() and into output() themselves: they are pinned"};
        if (c.graph != 0) return {"run() ran its copies inside a CUDA graph", "enqueue each copy and kernel on its stream"};
        if (c.kind == CopyKind::h2d) ++h2d, h2d_bytes += c.bytes;
        if (c.kind == CopyKind::d2h) ++d2h, d2h_bytes += c.bytes;
    }
    for (const ObservedKernel& k : s.seen.kernels) {
        if (!k.graded) continue;
        if (k.graph != 0) return {"run() ran its kernels inside a CUDA graph", "enqueue each copy and kernel on its stream"};
        if (is_work_kernel(k)) ++work;
        else if (other.empty()) other = kernel_display_name(k.name);
    }
    const std::string shape = strprintf("run() of %zu elements in %zu chunks", n, chunks);
    // One copy per chunk each way, of every byte once: "copied to the device 3 times (… bytes); expected …".
    const auto copies_problem = [&](const char* where, std::size_t count, std::uint64_t moved, const char* per_chunk,
                                    const char* hint) -> Problem {
        if (count == expected && moved == bytes) return {};
        return Problem{strprintf("%s copied %s %zu times (%llu bytes); expected one copy per chunk %s: %zu copies, %llu bytes",
                                 shape.c_str(), where, count, static_cast<unsigned long long>(moved), per_chunk, expected,
                                 static_cast<unsigned long long>(bytes)),
                       hint};
    };
    if (Problem p = copies_problem("to the device", h2d, h2d_bytes, "from input()",
                                   "each chunk is one cudaMemcpyAsync from input() + first into its slot, on the copy-in "
                                   "stream (a kernel reading host memory directly is not a copy)");
        p.found())
        return p;
    if (Problem p = copies_problem("back to the host", d2h, d2h_bytes, "into output()",
                                   "each chunk's result is one cudaMemcpyAsync from its slot into output() + first");
        p.found())
        return p;
    if (!other.empty())
        return {shape + " launched a kernel that is not launch_work's: " + other,
                "the work is the given kernel: one launch_work per chunk, and nothing else on the GPU"};
    if (work != expected)
        return {strprintf("%s launched the work kernel %zu times; expected once per chunk (%zu)", shape.c_str(), work, expected),
                "one launch_work per chunk"};
    // Every piece of its work ended before run() returned (5 µs of slack for the clocks).
    const auto returned_early = [&](const std::string& what, std::uint64_t end) {
        return Problem{strprintf("run() returned before its work was done: %s ended %.3f ms after run() returned",
                                 what.c_str(), ms_between(s.returned, end)),
                       "run() returns when output() holds the result: wait for the last copy out before returning"};
    };
    for (const ObservedKernel& k : s.seen.kernels)
        if (k.graded && k.end > s.returned + 5000) return returned_early("its kernel", k.end);
    for (const ObservedCopy& c : s.seen.copies)
        if (c.graded && c.end > s.returned + 5000)
            return returned_early(strprintf("a copy (%s)", to_string(c.kind)), c.end);
    if (streams && s.seen.streams_of_graded().size() < 2)
        return {shape + " ran all of its copies and kernels on one stream",
                "copy in, compute and copy out on their own streams (at least two), ordered by events"};
    return {};
}

// ---- correctness ----------------------------------------------------------------------------------------------

// One run on fresh data (drawn for this shape): bits against the serial path, input() unchanged, and the run as
// observed. Half of these runs, drawn in secret, are under the grader's chaos, unannounced.
CorrectnessResult check_chunks(Context& ctx, const std::string& id, std::size_t n, std::size_t chunks, int iters) {
    Piped& p = pipeline();
    if (auto refused = refuse_ungradable(p)) return *refused;
    CorrectnessResult r;
    const Case c = make_case(n, iters, ctx.seed_for(strprintf("lab01 input %zu/%d/%zu", n, iters, chunks)));
    std::optional<GraderChaos> chaos;
    if ((secret_draw() & 1) != 0) chaos.emplace(kChaosSpinUs, kChaosDelayUs);
    const SeenRun s = run_observed(p, c, chunks, chaos ? &*chaos : nullptr, id);
    const std::size_t chunk = (n + chunks - 1) / chunks;
    // Mismatches are located by chunk: the "tile" of the flat layout is one chunk.
    r = to_result(compare_bits(std::span<const std::uint16_t>(s.out), std::span<const std::uint16_t>(c.expected),
                               TileLayout{1, n, 1, chunk}),
                  "bitwise against the serial path");
    if (!std::equal(c.in.begin(), c.in.end(), p.in))
        r = {false, "the pipeline wrote into input()", "input() is the caller's: read it, never write it", {}, "", ""};
    if (r.passed)
        if (const Problem bad = structure_problem(s, n, chunks, false); bad.found()) {
            r.passed = false;
            r.message = bad.message;
            r.hint = bad.hint;
        }
    r.details["chunks"] = chunks;
    r.details["iters"] = iters;
    r.details["under_chaos"] = chaos.has_value();
    r.details["observed"] = s.seen.summary();
    // The timed size's run on a time axis: the report page draws it per engine and stream against T_pipe.
    if (n == kTimedElements) r.details["timeline"] = s.seen.timeline();
    return r;
}

// Many runs under the grader's chaos, each on a fresh shape and fresh data: every one must give the serial path's
// bits, and every one must be the pipeline the lab asks for, on at least two streams.
constexpr int kChaosRuns = 60;

CorrectnessResult check_chaos(Context& ctx) {
    Piped& p = pipeline();
    if (auto refused = refuse_ungradable(p)) return *refused;
    CorrectnessResult r;
    GraderChaos chaos(kChaosSpinUs, kChaosDelayUs);
    int wrong = 0;
    std::string first_what;
    for (int i = 0; i < kChaosRuns; ++i) {
        const std::string salt = "lab01 chaos " + std::to_string(i);
        const auto n = static_cast<std::size_t>(draw(ctx.seed_for(salt + " n"), std::int64_t(1) << 20, std::int64_t(2) << 20));
        const auto chunks = static_cast<std::size_t>(draw(ctx.seed_for(salt + " chunks"), 8, 24));
        const Case c = make_case(n, kCheckIters, ctx.seed_for(strprintf("%s input %zu/%zu", salt.c_str(), n, chunks)));
        const SeenRun s = run_observed(p, c, chunks, &chaos, "races.chaos");
        const std::string which = strprintf("run %d of %d (%zu elements, %zu chunks)", i + 1, kChaosRuns, n, chunks);
        if (const Problem bad = structure_problem(s, n, chunks, true); bad.found()) {
            r.message = which + ": " + bad.message;
            r.hint = bad.hint;
            r.details = {{"run", i + 1}, {"observed", s.seen.summary()}};
            return r;
        }
        if (s.out != c.expected && wrong++ == 0)
            first_what = which + ": " +
                         compare_bits(std::span<const std::uint16_t>(s.out), std::span<const std::uint16_t>(c.expected),
                                      TileLayout{1, n, 1, (n + chunks - 1) / chunks})
                             .describe();
    }
    r.details = {{"runs", kChaosRuns}, {"wrong_runs", wrong}, {"delays", chaos.delays()}, {"delays_failed", chaos.failed()}};
    r.passed = wrong == 0;
    r.message = wrong == 0 ? strprintf("%d of %d runs under chaos bit-identical to the serial path", kChaosRuns, kChaosRuns)
                           : strprintf("%d of %d runs under chaos differ from the serial path; the first, %s", wrong,
                                       kChaosRuns, first_what.c_str());
    if (wrong > 0)
        r.hint = "a chunk was read before it arrived or a slot overwritten before its last use was done: which event "
                 "does each copy and kernel wait for? (Right without chaos, wrong with it: a race.)";
    return r;
}

// (b) The pinned buffers are the same from call to call, and run() allocates nothing: in every run the observer saw
// (this check's and the earlier checks'), no allocation of any kind.
CorrectnessResult check_pinned(Context& ctx) {
    Piped& p = pipeline();
    if (auto refused = refuse_ungradable(p)) return *refused;
    CorrectnessResult r;
    const Case c = make_case(1024, 1, ctx.seed_for("lab01 pinned"));
    (void)run_observed(p, c, 2, nullptr, "pinned.reused");
    const auto [in, out] = as_graded([&] { return std::pair{p.p->input(), p.p->output()}; });
    if (in != p.in || out != p.out) {
        r.message = "input() or output() moved during run(): the pinned buffers must be allocated once";
        return r;
    }
    const RunAllocations& a = run_allocations();
    r.details = {{"observed_runs", a.runs}, {"allocations_in_run", a.count}, {"bytes_by_kind", a.bytes_by_kind}};
    if (a.count > 0) {
        std::string kinds;
        for (const auto& [kind, bytes] : a.bytes_by_kind)
            kinds += (kinds.empty() ? "" : ", ") + kind + strprintf(" %.1f MiB", double(bytes) / (1 << 20));
        r.message = strprintf("run() allocated memory: %zu allocations (%s) in %zu observed runs, the first in %s",
                              a.count, kinds.c_str(), a.runs, a.first_in.c_str());
        r.hint = "allocate the pinned buffers, the device slots, the streams and the events once, in the constructor: "
                 "run() only enqueues copies, kernels and events";
        return r;
    }
    return pass(std::move(r), strprintf("input() and output() are pinned host memory, the same before and after run(); no allocation "
                                        "observed in %zu runs",
                                        a.runs));
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

// (a) The three clocks of one call, at the timed size and on a tiny call, each queued behind 2 ms of the grader's
// work on its stream, which the end-to-end clock waits through and the device clock must not count. Graded against
// what the observer saw: the call's copies and kernel on that stream (the device clock), its enqueuing calls (the
// submit clock), its waits, its event records, and the grader's own clock around the call (end to end).
struct ClockRun {
    std::size_t n = 0;
    Clocks k;
    bool result_ready = false;
    Observation seen;
    std::uint32_t stream = 0;           // the call's stream (the observer's id)
    std::uint64_t entry = 0, exit = 0;  // three_clocks() entered and returned (the observer's clock)
};

constexpr double kQueuedAheadUs = 2000;

ClockRun run_clocks(Context& ctx, std::size_t n) {
    const Case c = make_case(n, kCheckIters, ctx.seed_for("lab01 clocks " + std::to_string(n)));
    PinnedBuffer<std::uint16_t> in(n), out(n);
    DeviceBuffer<bf16> dev_in(n), dev_out(n);
    std::memcpy(in.data(), c.in.data(), n * sizeof(std::uint16_t));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    // The same call by the grader first (first-use costs of the copies and the kernel).
    CUDA_CHECK(cudaMemcpyAsync(dev_in.data(), in.data(), n * 2, cudaMemcpyHostToDevice, stream));
    launch_work(dev_in.data(), dev_out.data(), n, kCheckIters, stream);
    CUDA_CHECK(cudaMemcpyAsync(out.data(), dev_out.data(), n * 2, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memset(out.data(), 0xFF, n * 2);
    Observer& o = Observer::instance();
    ClockRun run;
    run.n = n;
    Window window;  // opened first: it waits for the device, and the work queued ahead must still be there
    hold_stream(stream, kQueuedAheadUs);
    run.entry = o.now();
    run.k = as_graded([&] { return three_clocks(in.data(), out.data(), dev_in.data(), dev_out.data(), n, kCheckIters, stream); });
    run.exit = o.now();
    run.result_ready = std::equal(c.expected.begin(), c.expected.end(), out.data());  // read at once: usable?
    run.seen = window.close();
    run.stream = o.stream_id(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return run;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_host_wait(const std::string& name) {
    return name == "cudaStreamSynchronize" || name == "cudaEventSynchronize" || name == "cudaDeviceSynchronize" ||
           name == "cudaStreamQuery" || name == "cudaEventQuery" || name == "cuStreamSynchronize" ||
           name == "cuCtxSynchronize";
}

// When the GPU and the host did what in one three_clocks() call, as observed (CUPTI's clock, nanoseconds).
struct ClockSpans {
    std::uint64_t first_start = 0, last_end = 0;        // the call's work on the GPU
    std::uint64_t first_enqueue = 0, last_enqueue = 0;  // its enqueuing calls (copies, launches)
    std::uint64_t first_wait_after = 0;                 // its first host wait after the last enqueue
};

// The work: one copy in, the work kernel and one copy out, on the call's stream; sets the work's span.
Problem work_problem(const ClockRun& c, const std::string& at, ClockSpans& t) {
    std::size_t h2d = 0, d2h = 0, work = 0, elsewhere = 0;
    const auto take = [&](std::uint64_t s, std::uint64_t e) {
        if (t.first_start == 0 || s < t.first_start) t.first_start = s;
        t.last_end = std::max(t.last_end, e);
    };
    for (const ObservedCopy& x : c.seen.copies) {
        if (!x.graded) continue;
        take(x.start, x.end);
        if (x.stream != c.stream || x.pageable_host || x.bytes != c.n * 2) ++elsewhere;
        else if (x.kind == CopyKind::h2d) ++h2d;
        else if (x.kind == CopyKind::d2h) ++d2h;
        else ++elsewhere;
    }
    for (const ObservedKernel& k : c.seen.kernels) {
        if (!k.graded) continue;
        take(k.start, k.end);
        if (k.stream == c.stream && is_work_kernel(k)) ++work;
        else ++elsewhere;
    }
    if (h2d == 1 && d2h == 1 && work == 1 && elsewhere == 0) return {};
    return {strprintf("%s, three_clocks() did not run one copy in, the work kernel and one copy out on the given "
                      "stream: the grader saw %zu copies in, %zu kernels of launch_work and %zu copies out there, and "
                      "%zu other operations",
                      at.c_str(), h2d, work, d2h, elsewhere),
            "copy pinned_in to dev_in, launch_work into dev_out and copy back to pinned_out, all on `stream`"};
}

// The calls: the enqueues (copies, launches), the host waits, the event records; sets their times.
Problem calls_problem(const ClockRun& c, const std::string& at, ClockSpans& t) {
    for (const ObservedCall& call : c.seen.calls)
        if (call.graded && call.at >= c.entry && call.at <= c.exit &&
            (starts_with(call.name, "cudaMemcpy") || starts_with(call.name, "cudaLaunch"))) {
            if (t.first_enqueue == 0) t.first_enqueue = call.at;
            t.last_enqueue = std::max(t.last_enqueue, call.at);
        }
    bool record_before = false, record_after = false;
    t.first_wait_after = c.exit;
    for (const ObservedCall& call : c.seen.calls) {
        if (!call.graded || call.at < c.entry || call.at > c.exit) continue;
        if (is_host_wait(call.name)) {
            if (call.at < t.last_enqueue)
                return {strprintf("%s, three_clocks() waited (%s) before its last enqueue: the work queued ahead on the "
                                  "stream was drained before the clocks started",
                                  at.c_str(), call.name.c_str()),
                        "enqueue first, then wait: the end-to-end clock must see whatever is already queued on the "
                        "stream, and the device clock's events leave it out by themselves"};
            t.first_wait_after = std::min(t.first_wait_after, call.at);
        }
        if (starts_with(call.name, "cudaEventRecord")) {
            record_before = record_before || call.at < t.first_enqueue;
            record_after = record_after || call.at > t.last_enqueue;
        }
    }
    if (record_before && record_after) return {};
    return {at + ", three_clocks() recorded no CUDA event " + (record_before ? "after its copy out" : "before its copy in"),
            "the device clock is a pair of CUDA events on the call's stream (one before the copy in, one after the "
            "copy out) and cudaEventElapsedTime"};
}

// The three clocks the call returned, against what was observed.
Problem clock_values_problem(const ClockRun& c, const std::string& at, const ClockSpans& t) {
    const double span = ms_between(t.first_start, t.last_end);
    if (c.k.device_ms < 0.95 * span - 0.005 || c.k.device_ms > 1.05 * span + 0.012)
        return {strprintf("%s the device time is not the call's: %.3f ms, while the GPU ran the call's copy in, kernel and "
                          "copy out in %.3f ms",
                          at.c_str(), c.k.device_ms, span),
                "the device clock is a pair of CUDA events on the call's stream (one before the copy in, one after "
                "the copy out) and cudaEventElapsedTime — not the host clock, which also counts the work queued ahead "
                "and the host's own latency"};
    const double done = ms_between(c.entry, t.last_end), call = ms_between(c.entry, c.exit);
    if (c.k.end_to_end_ms < 0.98 * done - 0.02)
        return {strprintf("%s, end to end (%.3f ms) does not cover the call: its work ended %.3f ms after three_clocks() "
                          "was entered (the work queued ahead on the stream included)",
                          at.c_str(), c.k.end_to_end_ms, done),
                "end to end runs on the host clock from before the first enqueue until the result is usable"};
    if (c.k.end_to_end_ms > call + 0.02)
        return {strprintf("%s, end to end (%.3f ms) is longer than the call itself (%.3f ms on the grader's clock)",
                          at.c_str(), c.k.end_to_end_ms, call),
                "end to end is measured inside the call: from before the first enqueue until the result is usable"};
    const double enqueues = ms_between(t.first_enqueue, t.last_enqueue), before_wait = ms_between(c.entry, t.first_wait_after);
    if (c.k.submit_ms < 0.8 * enqueues - 0.002 || c.k.submit_ms > before_wait + 0.01)
        return {strprintf("%s, submitting took %.4f ms by the submit clock; the grader saw the enqueuing calls begin %.4f ms "
                          "apart, and the first wait %.4f ms into the call",
                          at.c_str(), c.k.submit_ms, enqueues, before_wait),
                "the submit clock: steady_clock before the first enqueue, read again when the last enqueuing call has "
                "returned, before any wait"};
    return {};
}

// One three_clocks() call as observed, against the clocks it returned: nothing found when they agree.
Problem clocks_problem(const ClockRun& c) {
    const std::string at = c.n >= kTimedElements ? "at 64 MiB" : "on the 4 KiB call";
    ClockSpans t;
    if (Problem p = work_problem(c, at, t); p.found()) return p;
    if (Problem p = calls_problem(c, at, t); p.found()) return p;
    return clock_values_problem(c, at, t);
}

constexpr std::size_t kTinyCall = 2048;

// The given serial path at the timed size, on the host clock (median of 3), and its stages alone: synchronous
// copies from and to pageable memory and the kernel, each on the host clock too. Shown, not graded.
struct SerialPath {
    double end_to_end_ms = 0;
    models::StreamStages stages;
};

SerialPath time_serial_path(Context& ctx) {
    const Case c = make_case(kTimedElements, kCheckIters, ctx.seed_for("lab01 serial path"));
    std::vector<std::uint16_t> out(kTimedElements);
    DeviceBuffer<bf16> a(kTimedElements), b(kTimedElements);
    const std::size_t bytes = kTimedElements * 2;
    const auto host_ms = [](const auto& f) {
        std::vector<double> t;
        for (int i = 0; i < 3; ++i) {
            const auto t0 = Clock::now();
            f();
            t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
        std::sort(t.begin(), t.end());
        return t[1];
    };
    SerialPath s;
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
    CorrectnessResult r;
    const ClockRun big = run_clocks(ctx, kTimedElements), tiny = run_clocks(ctx, kTinyCall);
    // One call on one stream is the serial path: its device time is its three stages, end to end.
    const models::StreamStages stages = time_stages(kTimedElements, kCheckIters);
    const SerialPath serial = time_serial_path(ctx);
    const auto as_json = [](const ClockRun& c) {
        return nlohmann::json{{"submit_ms", c.k.submit_ms}, {"device_ms", c.k.device_ms},
                              {"end_to_end_ms", c.k.end_to_end_ms}, {"call_ms", ms_between(c.entry, c.exit)},
                              {"observed", c.seen.summary()}};
    };
    const auto stages_json = [](const models::StreamStages& s) {
        return nlohmann::json{{"h2d_ms", s.h2d_us / 1e3}, {"kernel_ms", s.kernel_us / 1e3}, {"d2h_ms", s.d2h_us / 1e3}};
    };
    r.details = {{"timed_size", as_json(big)},
                 {"tiny_call", as_json(tiny)},
                 {"timed_size_stages_alone", stages_json(stages)},
                 {"serial_path", {{"end_to_end_ms", serial.end_to_end_ms}, {"stages_alone", stages_json(serial.stages)}}}};
    const auto text = [](const ClockRun& c) {
        return strprintf("submit %.3f ms, device %.3f ms, end to end %.3f ms (the call took %.3f ms on the grader's clock)",
                         c.k.submit_ms, c.k.device_ms, c.k.end_to_end_ms, ms_between(c.entry, c.exit));
    };
    const auto sum = [](const models::StreamStages& s) {
        return strprintf("%.3f + %.3f + %.3f = %.3f ms", s.h2d_us / 1e3, s.kernel_us / 1e3, s.d2h_us / 1e3, total_ms(s));
    };
    r.message = "64 MiB: " + text(big) + "; its stages alone, in + kernel + out: " + sum(stages) + "; 4 KiB: " + text(tiny) +
                strprintf(". The serial path (pageable, synchronous, not graded): %.3f ms end to end, its stages alone ",
                          serial.end_to_end_ms) +
                sum(serial.stages);
    for (const ClockRun* c : {&big, &tiny}) {
        if (!c->result_ready)
            return fail_because(r, "the result was not in pinned_out when three_clocks() returned",
                        "end to end means until the result is usable: wait for the last copy before reading the host clock");
        if (!(c->k.submit_ms > 0 && c->k.device_ms > 0 && c->k.end_to_end_ms > 0))
            return fail_because(r, "a clock reads zero", "measure all three");
        if (const Problem bad = clocks_problem(*c); bad.found()) return fail_because(r, bad.message, bad.hint);
    }
    if (std::abs(big.k.device_ms - total_ms(stages)) > 0.1 * total_ms(stages) + 0.02)
        return fail_because(r, "at 64 MiB the device time is not the sum of the call's three stages timed alone",
                    "one stream runs its copy in, kernel and copy out one after another: the events go before the "
                    "first and after the last");
    if (big.k.submit_ms > 0.5 * big.k.device_ms)
        return fail_because(r, "at 64 MiB, submitting took more than half the device time",
                    "the submit clock stops when the last enqueuing call returns, before any wait");
    return pass(std::move(r));
}

// (d) The watchdog on the program that hangs and on the fixed program, in an order, under names and with deadlines
// drawn for each run from randomness the process cannot know. The grader times watch() itself, compares its report
// with its own queries of each item right after watch() returned (before it releases the hang), and looks at the
// calls watch() made (its thread's calls are the graded code's).
struct WatchRun {
    double deadline_ms = 0;
    WatchReport rep;
    bool in_time = false;
    double took_ms = 0;                   // watch() entered → returned, on the grader's clock
    std::vector<std::string> unfinished;  // what the grader's own queries found still running, in the order given
    std::size_t queries = 0, blocking = 0;
    std::string blocked_in;
    double last_query_ms = 0;             // the last query, from watch()'s entry
};

WatchRun watch_once(HangDemo& demo, const std::vector<Watched>& items, bool hang, double deadline_ms) {
    WatchRun w;
    w.deadline_ms = deadline_ms;
    Observer& o = Observer::instance();
    Window window;  // opened before the hang: it waits for the device
    demo.start(!hang);
    Clock::time_point entered, returned;
    std::uint64_t entered_ns = 0;
    // The watchdog runs on a thread of its own: if it blocks, the grader releases the hang after a grace period
    // (so the process goes on) and the check fails.
    std::future<WatchReport> f = std::async(std::launch::async, [&] {
        entered_ns = o.now();
        entered = Clock::now();
        WatchReport rep = watch(items, deadline_ms);
        returned = Clock::now();
        return rep;
    });
    w.in_time = f.wait_for(std::chrono::duration<double, std::milli>(deadline_ms + 1000)) == std::future_status::ready;
    cudaError_t failed = cudaSuccess;
    if (w.in_time)
        for (const Watched& item : items) {
            const cudaError_t e = item.stream != nullptr ? cudaStreamQuery(item.stream) : cudaEventQuery(item.event);
            if (e == cudaErrorNotReady) w.unfinished.push_back(item.name);
            else if (e != cudaSuccess) failed = e;
        }
    demo.unblock();
    w.rep = f.get();
    w.took_ms = std::chrono::duration<double, std::milli>(returned - entered).count();
    CUDA_CHECK(failed);
    CUDA_CHECK(cudaStreamSynchronize(demo.consumer()));
    const Observation seen = window.close();
    for (const ObservedCall& c : seen.calls) {
        if (!c.graded) continue;
        if (c.name == "cudaStreamQuery" || c.name == "cudaEventQuery") {
            ++w.queries;
            w.last_query_ms = std::max(w.last_query_ms, ms_between(entered_ns, c.at));
        } else if (c.name == "cudaStreamSynchronize" || c.name == "cudaEventSynchronize" ||
                   c.name == "cudaDeviceSynchronize" || c.name == "cuStreamSynchronize" || c.name == "cuCtxSynchronize") {
            ++w.blocking;
            w.blocked_in = c.name;
        }
    }
    return w;
}

// The names, comma-separated ("nothing" when none).
std::string names(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("nothing") : s;
}

nlohmann::json watch_json(const WatchRun& w) {
    return nlohmann::json{{"deadline_ms", w.deadline_ms}, {"finished", w.rep.finished}, {"unfinished", w.rep.unfinished},
                          {"waited_ms", w.rep.waited_ms}, {"returned_after_ms", w.took_ms},
                          {"grader_found_unfinished", w.unfinished}, {"queries", w.queries},
                          {"last_query_ms", w.last_query_ms}, {"blocking_calls", w.blocking}};
}

// The hanging program's run of @p items: nothing found when watch() polled until its deadline, never blocked, and
// named what the grader's own queries found still running.
Problem hang_problem(const WatchRun& hung, std::size_t items) {
    const double d = hung.deadline_ms;
    const std::string poll = "never block on a stream or an event (cudaStreamSynchronize, cudaEventSynchronize): poll with "
                             "cudaStreamQuery / cudaEventQuery until the deadline";
    if (!hung.in_time)
        return {strprintf("on the hanging program, watch() returned only after the grader released the hang (%.0f ms; "
                          "deadline %.0f ms)",
                          hung.took_ms, d),
                poll};
    if (hung.blocking > 0) return {"on the hanging program, watch() blocked in " + hung.blocked_in, poll};
    if (hung.took_ms < 0.97 * d || hung.took_ms > d + 250)
        return {strprintf("on the hanging program, watch() returned after %.0f ms (the grader's clock; it reported "
                          "%.0f ms); the deadline was %.0f ms",
                          hung.took_ms, hung.rep.waited_ms, d),
                "keep polling until the deadline has passed on your own clock (std::chrono::steady_clock), then stop"};
    if (std::abs(hung.rep.waited_ms - hung.took_ms) > 20)
        return {strprintf("on the hanging program, watch() reported waiting %.0f ms; the grader timed it at %.0f ms",
                          hung.rep.waited_ms, hung.took_ms),
                "waited_ms is how long watch() waited: from its start until it gave up"};
    if (hung.rep.finished || hung.rep.unfinished != hung.unfinished)
        return {"on the hanging program, watch() reported " +
                    std::string(hung.rep.finished ? "finished" : "unfinished: " + names(hung.rep.unfinished)) +
                    "; the grader's own queries right after it returned found unfinished: " + names(hung.unfinished),
                "cudaErrorNotReady from a query means still running; report each item that never completed, by the name "
                "it was given, in the order given"};
    if (hung.queries < items || hung.last_query_ms < 0.9 * d)
        return {strprintf("on the hanging program, watch() made %zu queries, the last %.0f ms after it began (deadline "
                          "%.0f ms)",
                          hung.queries, hung.last_query_ms, d),
                "query every item that has not completed, again and again, until the deadline"};
    return {};
}

// The fixed program's run: nothing found when watch() returned finished, soon, and everything had finished.
Problem fixed_problem(const WatchRun& fixed) {
    if (!fixed.in_time || fixed.blocking > 0 || !fixed.rep.finished || !fixed.rep.unfinished.empty() ||
        fixed.took_ms > 0.5 * fixed.deadline_ms)
        return {strprintf("on the fixed program, watch() reported %s after %.0f ms (deadline %.0f ms%s)",
                          fixed.rep.finished ? "finished" : ("unfinished: " + names(fixed.rep.unfinished)).c_str(),
                          fixed.took_ms, fixed.deadline_ms,
                          fixed.blocking > 0 ? ("; it blocked in " + fixed.blocked_in).c_str() : ""),
                "return as soon as everything has completed"};
    if (!fixed.unfinished.empty())
        return {"on the fixed program, watch() reported finished, but the grader's own queries right after it returned "
                "found still running: " + names(fixed.unfinished),
                "finished means every item's query answered cudaSuccess"};
    return {};
}

CorrectnessResult check_watchdog(Context&) {
    CorrectnessResult r;
    HangDemo demo;
    const std::uint64_t secret = secret_draw();
    const auto tag = [&](std::uint64_t i) { return strprintf(" %04x", unsigned(random_bits(secret, i) & 0xffffu)); };
    std::vector<Watched> items{{"producer" + tag(0), demo.producer(), nullptr},
                               {"consumer" + tag(1), demo.consumer(), nullptr},
                               {"flag seen" + tag(2), nullptr, demo.consumed()}};
    std::mt19937_64 order(random_bits(secret, 3));
    std::shuffle(items.begin(), items.end(), order);
    const double hang_deadline = 200 + double(random_bits(secret, 4) % 401);   // 200 … 600 ms
    const double fixed_deadline = 200 + double(random_bits(secret, 5) % 401);  // the same range: nothing to branch on
    WatchRun hung, fixed;
    if ((random_bits(secret, 6) & 1) != 0) {
        fixed = watch_once(demo, items, false, fixed_deadline);
        hung = watch_once(demo, items, true, hang_deadline);
    } else {
        hung = watch_once(demo, items, true, hang_deadline);
        fixed = watch_once(demo, items, false, fixed_deadline);
    }
    r.details = {{"hang", watch_json(hung)}, {"fixed", watch_json(fixed)}};
    if (const Problem p = hang_problem(hung, items.size()); p.found()) return fail(std::move(r), p.message, p.hint);
    if (const Problem p = fixed_problem(fixed); p.found()) return fail(std::move(r), p.message, p.hint);
    return pass(std::move(r), strprintf("hanging program: unfinished %s after %.0f ms (deadline %.0f ms, the grader's clock); "
                                        "fixed program: finished after %.1f ms",
                                        names(hung.rep.unfinished).c_str(), hung.took_ms, hung.deadline_ms, fixed.took_ms));
}

// ---- time ---------------------------------------------------------------------------------------------

// The work per element at which a timed chunk's kernel takes about as long as its copy in: the balanced
// point, where overlap pays most. Measured once per run on this GPU (correct.timed_size runs at it too).
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

constexpr int kTimedReps = 9;

// The timed runs of the serial path (A, the grader's) and the pipeline (B, graded), interleaved. Before each
// pipeline run — in the grader's turn, outside the pipeline's timing — the previous run's output() is verified
// against the serial path on the same input, input() gets fresh data from a seed the process cannot know, and
// output() a poison; then the serial path runs on the same data, timed alone (the A of the ratio). Every timed run of
// the pipeline (the warm-up too) sees new data, and every one is verified.
struct TimedPaths {
    Piped& p;
    int iters = balanced_iters();
    std::vector<std::uint16_t> in, serial_out;  // pageable: the serial path's
    DeviceBuffer<bf16> fresh{kTimedElements};
    std::vector<double> serial_ms;
    int runs = 0;          // pipeline runs so far
    bool pending = false;  // the last pipeline run is not verified yet
    std::string wrong;     // why the first wrong one was wrong

    explicit TimedPaths(Piped& piped) : p(piped), in(kTimedElements), serial_out(kTimedElements) {}

    void grader_turn() {
        verify();
        const std::size_t bytes = kTimedElements * sizeof(std::uint16_t);
        fill_uniform_bf16_device(fresh.data(), kTimedElements, secret_draw(), -4.0f, 4.0f);
        CUDA_CHECK(cudaMemcpy(p.in, fresh.data(), bytes, cudaMemcpyDeviceToHost));
        std::memcpy(in.data(), p.in, bytes);
        std::memset(const_cast<std::uint16_t*>(p.out), static_cast<int>(secret_draw() & 0xFF), bytes);
        const Clock::time_point t0 = Clock::now();
        run_serial(in.data(), serial_out.data(), kTimedElements, iters);
        serial_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    void piped() {
        p.run(kTimedElements, iters, kTimedChunks);
        pending = true;
        ++runs;
    }
    void verify() {
        if (!pending) return;
        pending = false;
        const auto bad = std::mismatch(serial_out.begin(), serial_out.end(), p.out);
        if (bad.first == serial_out.end() || !wrong.empty()) return;
        const auto at = static_cast<std::size_t>(bad.first - serial_out.begin());
        wrong = strprintf("timed run %d of %d produced a wrong result: output() differs from the serial path on the same "
                          "(fresh) input from element %zu on (chunk %zu)",
                          runs, kTimedReps + 1, at, at / (kTimedElements / kTimedChunks));
    }
    // The serial path's timed runs (its warm-up left out), summarised as time_host_ab() summarises its own.
    [[nodiscard]] TimingResult serial() const {
        TimingResult t = summarize(std::vector<double>(serial_ms.begin() + std::min<std::size_t>(1, serial_ms.size()), serial_ms.end()));
        t.converged = t.rel_ci <= grading_timing("host").max_rel_ci;
        return t;
    }
};

// The baseline the timed checks compare against what they measured alone: a 64 MiB copy from pinned
// memory, timed with events. (The serial path's own host time moves by tens of percent from run to run with
// the host's memory, so it cannot tell whether the GPU or the link was shared.)
struct PinnedCopy {
    PinnedBuffer<std::uint16_t> host{kTimedElements};
    DeviceBuffer<bf16> dev{kTimedElements};
    void enqueue(cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dev.data(), host.data(), kTimedElements * 2, cudaMemcpyHostToDevice, s));
    }
};

Baseline pinned_copy_baseline() {
    Baseline b{"pinned_copy", "the 64 MiB copy from pinned memory", {}};
    b.time_alone = [what = b.what](Context&) {
        PinnedCopy copy;
        std::memset(copy.host.data(), 0, copy.host.bytes());
        return baseline_alone(what, [&](int, cudaStream_t s) { copy.enqueue(s); }, 1, "baseline alone: lab01 pinned copy");
    };
    return b;
}

// Times the baseline inside a check and compares it with its timing alone.
void compare_pinned_copy(const Context& ctx, PerfResult& r) {
    PinnedCopy copy;
    std::memset(copy.host.data(), 0, copy.host.bytes());
    const TimingResult inside = time_region([&](cudaStream_t s) { copy.enqueue(s); }, grading_timing("lab01 pinned copy"));
    compare_baseline(ctx, pinned_copy_baseline(), inside, r);
}

// The timed chunk's stages alone, observed: graded work running meanwhile (left running, or from a thread of the
// graded code) would inflate them — and the model and the floor made from them.
models::StreamStages stages_alone(PerfResult& r) {
    Window window;
    const models::StreamStages s = time_stages(kTimedElements / kTimedChunks, balanced_iters());
    const Observation seen = window.close();
    if (!seen.graded_kernels().empty() || !seen.graded_copies().empty())
        r.invalid.push_back(strprintf("the code under test ran work on the GPU (%zu kernels, %zu copies) while the grader "
                                      "timed the pipeline's stages alone",
                                      seen.graded_kernels().size(), seen.graded_copies().size()));
    return s;
}

// What the timed pipeline cannot beat: 64 MiB each way over the host link (the two directions overlap), and, each
// stage running on one engine one chunk after another, its slowest stage timed alone, once per chunk.
void declare_floor(PerfResult& r, const models::StreamStages& s) {
    r.floor.host_bytes = double(kTimedElements * sizeof(std::uint16_t));
    r.floor.time_at_least(double(kTimedChunks) * std::max({s.h2d_us, s.kernel_us, s.d2h_us}) / 1e3,
                          strprintf("%zu chunks × the slowest stage of one chunk timed alone", kTimedChunks));
}

// The serial path against the pipeline, both synchronous host programs, on the host clock (time_host_ab, observed:
// the pipeline's work must be done when run() returns, and none of it may run into the grader's turn).
struct TimedAb {
    AbResult ab;
    TimingResult serial;
    int runs = 0;
};

TimedAb time_paths(Context& ctx, PerfResult& r) {
    TimedPaths t(pipeline());
    TimedAb out;
    out.ab = time_host_ab(ctx, [&] { t.grader_turn(); }, [&] { t.piped(); }, kTimedReps, r, /*b_completes=*/true);
    if (!r.skipped.empty()) return out;
    t.verify();  // the last timed run
    if (r.wrong_result.empty()) r.wrong_result = t.wrong;
    out.serial = t.serial();
    out.runs = t.runs;
    return out;
}

// The pipeline against the serial path, with its stages timed alone, the floor they give and the pinned copy
// compared: what perf.speedup and perf.model share. Empty when the timing was skipped.
struct PipelineTiming {
    models::StreamStages stages;
    TimedAb t;
    double pipe_ms = 0;
};

std::optional<PipelineTiming> time_pipeline(Context& ctx, PerfResult& r) {
    (void)pipeline();
    PipelineTiming p;
    p.stages = stages_alone(r);
    p.t = time_paths(ctx, r);
    if (!r.skipped.empty()) return std::nullopt;
    p.pipe_ms = p.t.ab.b.median_ms;
    r.time_ms = p.pipe_ms;
    declare_floor(r, p.stages);
    r.details["pipeline"] = p.t.ab.b;
    r.details["serial"] = p.t.serial;
    r.details["verified_runs"] = p.t.runs;
    compare_pinned_copy(ctx, r);
    return p;
}

// A check graded from the timed pipeline: @p grade sets its ratio and says what was measured.
PerfResult pipeline_check(Context& ctx, const std::function<void(PerfResult&, const PipelineTiming&)>& grade) {
    PerfResult r;
    if (const std::optional<PipelineTiming> p = time_pipeline(ctx, r)) grade(r, *p);
    return r;
}

PerfResult perf_speedup(Context& ctx) {
    return pipeline_check(ctx, [](PerfResult& r, const PipelineTiming& p) {
        r.ratio = p.pipe_ms > 0 ? p.t.serial.median_ms / p.pipe_ms : 0.0;
        r.message = strprintf("pipeline %.3f ms vs serial path %.3f ms end to end (host clock, interleaved, median of %d; "
                              "%zu chunks, %d steps per element; every run on fresh data, verified)",
                              p.pipe_ms, p.t.serial.median_ms, kTimedReps, kTimedChunks, balanced_iters());
        r.details["iters"] = balanced_iters();
        r.details["chunks"] = kTimedChunks;
    });
}

// (b) What pinning buys: 64 MiB copied to the device from input() against the same copy from the grader's own
// pinned buffer, interleaved, so the ratio is input()'s rate as a fraction of this host link's pinned rate (how fast
// pageable memory is varies with the host from run to run — 7 to 17 GB/s on one H200 machine —, so a ratio over
// pageable memory graded the machine, not the code). The pageable copy is timed too, and shown.
PerfResult perf_pinned(Context& ctx) {
    Piped& p = pipeline();
    std::vector<std::uint16_t> pageable(kTimedElements, 0);
    std::memset(p.in, 0, kTimedElements * 2);
    PinnedCopy grader;
    std::memset(grader.host.data(), 0, grader.host.bytes());
    DeviceBuffer<bf16> dev(kTimedElements);
    const std::size_t bytes = kTimedElements * 2;
    const AbResult ab = time_ab([&](cudaStream_t s) { grader.enqueue(s); },
                                [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(dev.data(), p.in, bytes, cudaMemcpyHostToDevice, s)); },
                                grading_timing("lab01 pinned vs grader's pinned"));
    TimingOptions shown = grading_timing("lab01 pageable");  // shown, not graded: a few percent is enough
    shown.max_rel_ci = 0.05;
    shown.max_total_ms = 250;
    const TimingResult from_pageable = time_region(
        [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(dev.data(), pageable.data(), bytes, cudaMemcpyHostToDevice, s)); },
        shown);
    const double input_gbps = bytes / (ab.b.median_ms * 1e6), pinned_gbps = bytes / (ab.a.median_ms * 1e6);
    const double pageable_gbps = bytes / (from_pageable.median_ms * 1e6);
    PerfResult r;
    r.ratio = ab.ratio;
    r.time_ms = ab.b.median_ms;
    r.floor.host_bytes = double(bytes);  // the copy from input() cannot beat the host link
    r.floor.ratio_at_most(
        1.15, "a copy from input() cannot beat the same copy from the grader's pinned memory by more than noise");
    r.message = strprintf("64 MiB to the device: %.1f GB/s from input(), %.1f GB/s from the grader's pinned memory, "
                          "%.1f GB/s from pageable memory (%.1fx slower than input())",
                          input_gbps, pinned_gbps, pageable_gbps, input_gbps / pageable_gbps);
    r.details = {{"input", ab.b},           {"grader_pinned", ab.a},      {"pageable", from_pageable},
                 {"input_gbps", input_gbps}, {"pinned_gbps", pinned_gbps}, {"pageable_gbps", pageable_gbps}};
    compare_pinned_copy(ctx, r);
    return r;
}

PerfResult perf_model(Context& ctx) {
    return pipeline_check(ctx, [](PerfResult& r, const PipelineTiming& p) {
        const models::StreamStages& s = p.stages;
        const double model_ms = models::stream_pipeline_time_us(kTimedChunks, s, 2) / 1e3;
        r.ratio = p.pipe_ms > 0 ? model_ms / p.pipe_ms : 0.0;
        // The solution reaches 0.97-0.98 of the model at 16 chunks on an H200 (at most 1.07 at 64 chunks, in the bench).
        r.floor.ratio_at_most(1.25,
                              "a pipeline cannot beat the model of its own stages by more than their timing's noise");
        r.message = strprintf("pipeline %.3f ms end to end; the model from the measured stages (%.1f µs in, %.1f µs "
                              "kernel, %.1f µs out per chunk, 2 slots): %.3f ms (serial path: %.3f ms; every run on fresh "
                              "data, verified)",
                              p.pipe_ms, s.h2d_us, s.kernel_us, s.d2h_us, model_ms, p.t.serial.median_ms);
        r.details["model_ms"] = model_ms;
        r.details["stages_us"] = {{"h2d", s.h2d_us}, {"kernel", s.kernel_us}, {"d2h", s.d2h_us}};
        r.details["bottleneck"] = models::stream_bottleneck(s);
    });
}

}  // namespace

void register_checks(Lab& lab) {
    lab.given_kernels({kWorkKernel});
    const std::size_t tail = (std::size_t(8) << 20) + 4321;  // not a multiple of any chunk count below
    for (const std::size_t chunks : {std::size_t(1), std::size_t(2), std::size_t(7), kMaxChunks}) {
        const std::string id = "correct.chunks" + std::to_string(chunks);
        lab.correctness(id, "(c) " + std::to_string(chunks) + " chunk" + (chunks > 1 ? "s" : "") + ", 8 Mi + 4321 elements",
                        5, [id, tail, chunks](Context& ctx) { return check_chunks(ctx, id, tail, chunks, kCheckIters); });
    }
    lab.correctness("correct.timed_size", "(c) 16 chunks, 32 Mi elements (the timed size and work)", 4, [](Context& ctx) {
        return check_chunks(ctx, "correct.timed_size", kTimedElements, kTimedChunks, balanced_iters());
    });
    lab.correctness("races.chaos", "(c) 60 runs under the grader's chaos, bit-identical", 14, check_chaos);
    lab.correctness("pinned.reused", "(b) pinned input and output, allocated once; nothing allocated in run()", 2,
                    check_pinned);
    lab.correctness("clocks.three", "(a) submit, device and end-to-end clocks", 10, observed(check_clocks));
    lab.correctness("watchdog.hang", "(d) the watchdog names what hangs, and lets a fixed program finish", 10,
                    observed(check_watchdog));

    // The solution reaches 7.8-11.7x over the serial path and 0.97-0.98 of the model on an H200 (the serial
    // path's pageable copies alone vary by tens of percent from run to run); 1.52-1.55 ms against a floor of about
    // 1.2 ms (16 × the slowest stage alone, 84 µs, less 10%).
    const PerfSpec speedup{.requires_check = "correct.timed_size", .pass_bar = 4.5, .full_bar = 6.5, .unit = "x serial",
                           .baseline = pinned_copy_baseline()};
    // A pinned input() copies at the link's pinned rate (about 55 GB/s on an H200, so about 1.0 of the grader's own
    // pinned copy); pageable memory reached 0.13-0.30 of it there (7-17 GB/s, with the host), and fails.
    const PerfSpec pinned{.requires_check = "pinned.reused", .pass_bar = 0.8, .full_bar = 0.9, .unit = "of pinned rate",
                          .baseline = pinned_copy_baseline()};
    lab.performance("perf.pinned", "(b) a 64 MiB copy from input() at the host link's pinned rate", 4, pinned,
                    perf_pinned);
    lab.performance("perf.speedup", "(b, c) speed-up over the serial path, 64 MiB", 8, speedup, perf_speedup);
    const PerfSpec model{.requires_check = "correct.timed_size", .pass_bar = 0.6, .full_bar = 0.8, .unit = "model / measured",
                         .baseline = pinned_copy_baseline()};
    lab.performance("perf.model", "(c) the three-stage model over measured time", 8, model, perf_model);
}
