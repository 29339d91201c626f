/**
 * @file gpu_checks.hpp
 * @brief The lab kit: what every lab's checks.cu needs, written once.
 *
 * - cases: cached_case() makes a shape's inputs (and what is expected of them) once per run, from the run's seed;
 *   draw() (grader/lab.hpp) picks sizes from the seed, so each run adds shapes nobody could tune for;
 * - results: run_on_poisoned() runs a launcher on a poisoned output and brings it back; to_result()
 *   turns a comparison into a correctness result; require_unchanged() fails it, with one wording, when
 *   the code wrote into an input;
 * - launches: kernel_count_result() grades what a captured graph (labs/graph.hpp) launched;
 *   require_own_kernels() fails a variant whose launcher runs kernels the student's file does not
 *   define (a vendor library's, the lab's baseline);
 * - observation (grader/observer.hpp): observe_graded() runs the graded code in a window of the grader's
 *   observer; observed_kernel_count(), require_own_kernels() and judge_observation() grade what it did —
 *   kernels counted and named from CUPTI's records, never from what the code says about itself;
 * - timings: fraction_of_copy_bandwidth() and speedup_over(), always interleaved in one process, each
 *   against the check's baseline (one object: copy_baseline(), baseline_on(); the runner times it alone before
 *   the first check, the helper times it again inside and compares). Every timed call of the graded code gets
 *   fresh inputs and a scrambled output; the calls verified are picked after each call, from randomness the
 *   process cannot know (secret_draw()). A baseline that ran slower inside the check, graded work that
 *   ran while the grader's own work did, a thread started during the timing, or a foreign kernel in a timed
 *   call makes the check INVALID or FAIL instead of graded.
 *
 * @code
 * struct Case { std::vector<float> hx; DeviceBuffer<float> x; };
 * CorrectnessResult check(Context& ctx, std::size_t n) {
 *     const Case& c = cached_case<Case>("n=" + std::to_string(n), [&] { ... });
 *     const auto y = run_on_poisoned<float>(n, [&](float* out) { launch_mine(c.x.data(), out, n, nullptr); });
 *     CorrectnessResult r = to_result(compare_f32(y, expected(c), tol), "y = f(x)");
 *     return require_unchanged(std::move(r), {input("x", c.x, c.hx)});
 * }
 * @endcode
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "grader/observer.hpp"
#include "labs/bf16.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/graph.hpp"
#include "labs/timing.hpp"

namespace gpulab::grader {

// ---- cases -------------------------------------------------------------------------------------------

/**
 * @brief The case stored under @p key, made by @p make on first use and kept for the rest of the run
 * (one process grades one lab once, so "per process" is "per run"). A lab keeps one case type: its
 * inputs on host and device and whatever it expects of them.
 * @tparam Case the lab's case type
 * @param key  names the case (e.g. its shape); equal keys share one case
 * @param make makes the case (draws its data from the run's seed)
 * @throws std::logic_error when @p make returns no case (a lab definition error, never a grade)
 */
template <typename Case>
Case& cached_case(const std::string& key, const std::function<std::unique_ptr<Case>()>& make) {
    static std::map<std::string, std::unique_ptr<Case>> cases;
    std::unique_ptr<Case>& slot = cases[key];
    if (!slot) slot = make();
    if (!slot) throw std::logic_error("lab definition error: the maker of case '" + key + "' made nothing");
    return *slot;
}


// ---- observation --------------------------------------------------------------------------------------

/** @brief A 64-bit number from the operating system's randomness, unknown to the graded code and not derived
 *  from the run's seed: what picks the verified calls and the verified rows (a check that draws its verified
 *  subset from the seed can be predicted, since the seed reproduces the run). */
[[nodiscard]] std::uint64_t secret_draw();

/** @brief Runs @p enqueue as the graded code (GradedCall) on a fresh stream, waits, and returns what the
 *  observer saw (empty when it is not recording: see observation_skip()). @param enqueue enqueues the work */
[[nodiscard]] Observation observe_graded(const Enqueue& enqueue);

/**
 * @brief Where the observer does not record here, marks @p r SKIPPED ("<what>: <observation_skip()'s reason>", or the
 * reason alone when @p what is empty) and returns true: for a check that must see the graded run before it can say
 * anything (`if (skip_unobserved(r, "the path's memory cannot be observed")) return r;`).
 * @tparam Result a result with a `skipped` reason (CorrectnessResult, or a lab's own) @param r the result
 * @param what what cannot be checked
 */
template <class Result>
[[nodiscard]] bool skip_unobserved(Result& r, const std::string& what = {}) {
    const std::string why = observation_skip();
    if (why.empty()) return false;
    r.skipped = what.empty() ? why : what + ": " + why;
    return true;
}

/**
 * @brief A check that grades what the observer saw, as registered: SKIPPED with observation_skip()'s reason where
 * the observer does not record, else @p check. @param check the check
 */
[[nodiscard]] std::function<CorrectnessResult(Context&)> observed(std::function<CorrectnessResult(Context&)> check);

/**
 * @brief Grades how many kernels a path launched from what the observer saw it run (kernels of graph
 * launches included): "observed 2 kernels: a, b; expected 1". SKIPPED (CorrectnessResult::skipped) when the
 * observer does not record here.
 * @param seen what ran @param expected kernel launches the path must make @param hint what to do when wrong
 */
[[nodiscard]] CorrectnessResult observed_kernel_count(const Observation& seen, std::size_t expected,
                                                      const std::string& hint);

/** @brief What the machine code of a part's kernels must hold (kernel_code_verdict()). */
struct CodeNeeds {
    bool wgmma = false;        ///< warpgroup MMAs (wgmma.mma_async) in at least one of its kernels
    bool tma_load = false;     ///< TMA loads (cp.async.bulk.tensor, or cp.async.bulk) in at least one of its kernels
    bool no_mma_sync = false;  ///< no warp MMA (mma.sync, wmma) in any of its kernels
    bool no_cp_async = false;  ///< no per-thread cp.async copy in any of its kernels (its tiles come by TMA)
    bool float_atomics = false;     ///< a floating-point atomic add to global memory in at least one of its kernels
    bool no_float_atomics = false;  ///< no floating-point atomic add to global memory in any of its kernels
    bool gpu_fence = false;         ///< a memory fence at GPU scope (__threadfence, a release atomic) in one of its kernels
    bool dependency_wait = false;   ///< griddepcontrol.wait (programmatic dependent launch) in one of its kernels
};

/**
 * @brief Grades what the graded kernels of @p seen hold in their machine code (the cubins the driver loaded, read by
 * the observer: Observer::kernel_code), not what the graded code says it used nor what its speed suggests: passes
 * when together they hold what @p needs asks. Fails when no graded kernel ran, when one is not the graded code's own
 * (a library's), or when the code misses what is needed ("its kernels hold no wgmma: 0 of 1,412 instructions"); a
 * kernel can hold an instruction it never runs, so the counts prove absence, and presence only together with the
 * part's speed. SKIPPED where the observer does not record, where the graded code's own symbols are not known (a
 * checks binary started by hand, not by the grader) or where the architecture's encodings are not known (sm_90 only).
 * @param ctx the check's context (its own_symbols) @param seen what one call of the part ran @param needs what its code must hold @param what the part, for messages
 * ("part v4") @param hint for a failure
 */
[[nodiscard]] CorrectnessResult kernel_code_verdict(const Context& ctx, const Observation& seen, const CodeNeeds& needs,
                                                    const std::string& what, const std::string& hint);
/** @brief kernel_code_verdict() on given kernels (the graded ones of a window), each kernel's code found by @p code_of
 *  (a mangled name → what its code holds, nothing when no loaded module holds it): no observer needed. */
[[nodiscard]] CorrectnessResult kernel_code_verdict(const std::vector<ObservedKernel>& kernels,
                                                    const std::function<std::optional<KernelCode>(const std::string&)>& code_of,
                                                    const CodeNeeds& needs, const std::string& what, const std::string& hint);

/**
 * @brief The graded kernels of @p seen that its own objects do not define and that the lab does not give it to
 * launch (Context::given_kernels), by name: a library's, the lab's baseline.
 */
[[nodiscard]] std::vector<std::string> foreign_kernels(const Context& ctx, const Observation& seen);

/**
 * @brief Fails @p r when @p seen shows the graded code ran kernels it does not define (foreign_kernels()).
 * @param r the check's result so far @param ctx the run @param variant names the launcher @param seen what ran
 */
[[nodiscard]] CorrectnessResult require_own_kernels(CorrectnessResult r, const Context& ctx, const std::string& variant,
                                                    const Observation& seen);

/**
 * @brief Judges what ran while a performance check timed the graded code: foreign kernels in a timed call
 * (r.not_own: FAIL), graded work that ran at the same time as the grader's own (its baseline, its flushes,
 * the spans in @p trusted_spans: work left running, INVALID), threads started by the graded code meanwhile
 * (INVALID). Puts the observation's summary in r.details["observed"]. Sets r.skipped when the observer does
 * not record.
 * @param ctx the run @param seen the timing's window @param r the result @param trusted_spans CUPTI-clock spans
 * during which only the grader's work runs (host-timed baselines)
 */
void judge_observation(const Context& ctx, const Observation& seen, PerfResult& r,
                       const std::vector<std::pair<std::uint64_t, std::uint64_t>>& trusted_spans = {});

// ---- results -----------------------------------------------------------------------------------------

/**
 * @brief Runs @p launch on a fresh output of @p count elements that is poisoned first (so an element
 * the code never writes is caught), on the default stream, waits for it, and returns the output's bits.
 * @tparam T     the output's element type (bf16 comes back as std::uint16_t bits)
 * @param count  output elements
 * @param launch called with the device pointer; enqueues the code under test on the default stream
 */
template <typename T, typename Launch>
[[nodiscard]] std::vector<raw_bits_t<T>> run_on_poisoned(std::size_t count, Launch&& launch) {
    DeviceBuffer<T> out(count);
    out.poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    {
        GradedCall graded;
        launch(out.data());
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return to_host_raw(out);
}

/** @brief run_on_poisoned() inside a window of the observer: @p seen receives what the launch ran (for
 *  require_own_kernels(), observed_kernel_count()). */
template <typename T, typename Launch>
[[nodiscard]] std::vector<raw_bits_t<T>> run_on_poisoned(std::size_t count, Launch&& launch, Observation& seen) {
    DeviceBuffer<T> out(count);
    out.poison();
    Window window;
    {
        GradedCall graded;
        launch(out.data());
    }
    seen = window.close();
    return to_host_raw(out);
}

/**
 * @brief A correctness result from a comparison report.
 * @param report what compare() found
 * @param what   what was compared, e.g. "c = a + b, n = 1000"
 */
[[nodiscard]] CorrectnessResult to_result(const CompareReport& report, const std::string& what);

/** @brief One input of a check, to be verified unchanged after the code ran (see input()). */
struct InputCheck {
    std::string name;                          ///< as the handout names it ("A", "W", "G")
    std::function<std::size_t()> first_change; ///< index of the first changed element, or npos
};

/** @brief An input kept on the device (@p device) whose original bits are @p host.
 *  @param name the input's name @param device the buffer the code read @param host its original bits */
template <typename T>
[[nodiscard]] InputCheck input(std::string name, const DeviceBuffer<T>& device, const std::vector<raw_bits_t<T>>& host) {
    return {std::move(name), [&device, &host]() -> std::size_t {
                const std::vector<raw_bits_t<T>> now = to_host_raw(device);
                if (now.size() != host.size()) return 0;
                for (std::size_t i = 0; i < now.size(); ++i)
                    if (std::memcmp(&now[i], &host[i], sizeof(now[i])) != 0) return i;
                return static_cast<std::size_t>(-1);
            }};
}

/**
 * @brief Fails @p r when the code wrote into any of @p inputs (every input is checked, whatever @p r
 * says): "the input W was modified (first at element 17)", with the hint that a launcher writes only its
 * outputs. The comparison's own message follows when it failed too.
 * @param r      the result of the check so far
 * @param inputs the check's inputs (see input())
 */
[[nodiscard]] CorrectnessResult require_unchanged(CorrectnessResult r, std::initializer_list<InputCheck> inputs);

// ---- launches ----------------------------------------------------------------------------------------

/**
 * @brief Grades the kernels a captured graph holds against the number a path must launch:
 * "captured graph: 2 kernels: a, b; expected 1". @p r keeps its other findings; the count adds to them.
 * @param graph    the captured work
 * @param expected kernel launches the path must make
 * @param hint     what to do when the count is wrong
 */
[[nodiscard]] CorrectnessResult kernel_count_result(const CapturedGraph& graph, std::size_t expected,
                                                    const std::string& hint);

/**
 * @brief The kernels @p enqueue launches that the graded code does not define itself — a vendor
 * library's, the lab's baseline — by their names: the launcher runs once more, for real, observed (a capture
 * could be told from a real call). Empty when every kernel is the student's own, and when the runner was
 * started by hand (no symbol list from the grader). Call it after the launcher ran once with the same shape.
 * @param ctx     the run (its own_symbols come from the grader's scan of the compiled code)
 * @param variant names the launcher, e.g. "v3"
 * @param enqueue enqueues the launcher on the given stream
 */
[[nodiscard]] std::vector<std::string> foreign_kernels(const Context& ctx, const std::string& variant,
                                                       const Enqueue& enqueue);

/**
 * @brief Fails @p r when the launcher of @p variant runs kernels the student's file does not define
 * (see foreign_kernels()): "launch_gemm_v3 launched a kernel your tiling.cu does not define: ...". A
 * graded variant's results must come from the student's own kernels.
 * @param r the check's result so far @param ctx the run @param variant names the launcher
 * @param enqueue enqueues the launcher on the given stream
 */
[[nodiscard]] CorrectnessResult require_own_kernels(CorrectnessResult r, const Context& ctx, const std::string& variant,
                                                    const Enqueue& enqueue);

// ---- timings -----------------------------------------------------------------------------------------

/** @brief Default timing options for graded performance checks (L2 flushed, median stable to 1%). */
[[nodiscard]] TimingOptions grading_timing(const std::string& label);

/** @brief Work on one of several input/output sets: enqueue it on the given stream. */
using SetEnqueue = std::function<void(int set, cudaStream_t)>;

/**
 * @brief A graded workload as the timing helpers run it: over at least two independent sets of inputs
 * and outputs, with fresh contents for every timed call. The check says how to run, refill and verify a set;
 * the helpers own the loop.
 *
 * Before every timed call of the graded code (outside its timed span) its set gets new input data in the same
 * buffers, from a seed the process cannot know (secret_draw()), and its output is filled with random bytes.
 * Right after each call the helpers decide, from that randomness, whether to keep a copy of its output
 * (reservoir sampling: every timed call is equally likely to be verified, and none knows whether it will
 * be); after the loop each kept output is given to verify() with its set's inputs restored to what that call
 * saw (refill() with the same seed again: it must be deterministic). A submission that skips work, or part
 * of it, on any timed call — because the buffers look familiar, the output already matches, or the call
 * count says it is not checked — leaves a wrong output, and the performance check fails.
 */
struct Rotation {
    int sets = 2;  ///< independent input/output sets the timed runs rotate over (at least 2)
    SetEnqueue run;  ///< enqueues the graded code on a set
    /// Enqueues new input data for a set, in its existing buffers, drawn from @p seed (the same seed gives the
    /// same data: the helpers restore a verified call's inputs with it).
    std::function<void(int set, std::uint64_t seed, cudaStream_t)> refill;
    /// The set's output: device pointer and bytes.
    std::function<std::pair<void*, std::size_t>(int set)> output;
    /// Checks a copy of the set's output (device memory, as many bytes as output() says) against the set's
    /// current inputs: "" when right, else why.
    std::function<std::string(int set, const void* output_copy)> verify;
    /// What the machine code of the graded code's own kernels that the timed calls ran must hold together, read as a
    /// part's code check reads one observed call (kernel_code_verdict()): a part graded for its instructions is timed
    /// on them, not on other kernels it switches to after the calls its code check saw. When they fall short, the
    /// check fails as a wrong result. Unset: not read.
    std::optional<CodeNeeds> code;
};

/** @brief A device buffer as a Rotation's output: its pointer and bytes. */
template <class Buf>
[[nodiscard]] std::pair<void*, std::size_t> output_of(Buf& buffer) {
    return {static_cast<void*>(buffer.data()), buffer.bytes()};
}

/**
 * @brief The Rotation of a check's timed sets, written once: @p run enqueues the graded code on a set, and the sets
 * say the rest through three members — `void refill(int set, std::uint64_t seed, cudaStream_t)`,
 * `std::pair<void*, std::size_t> output(int set)` (output_of() a buffer) and
 * `std::string verify(int set, const void* output_copy)` — and, when they rotate over more than two sets, a
 * `static constexpr int kSets`. @p sets must outlive the Rotation.
 */
template <class Sets>
[[nodiscard]] Rotation rotation_of(Sets& sets, SetEnqueue run) {
    Rotation r;
    if constexpr (requires { Sets::kSets; }) r.sets = Sets::kSets;
    r.run = std::move(run);
    r.refill = [&sets](int set, std::uint64_t seed, cudaStream_t s) { sets.refill(set, seed, s); };
    r.output = [&sets](int set) { return sets.output(set); };
    r.verify = [&sets](int set, const void* got) { return sets.verify(set, got); };
    return r;
}

// ---- baselines -----------------------------------------------------------------------------------------

/**
 * @brief Times @p run alone, as the timed loops time a baseline (grading_timing(), L2 flushed), rotating
 * over @p sets sets: what a Baseline::time_alone returns. @param what the baseline, for messages ("the naive
 * GEMM") @param run enqueues it on a set @param sets sets to rotate over @param label NVTX label
 * @param hold_us TimingOptions::hold_us (for a baseline submitted slower than it runs; the check that compares
 * with it must time it the same way)
 */
[[nodiscard]] BaselineTiming baseline_alone(const std::string& what, const SetEnqueue& run, int sets,
                                            const std::string& label, double hold_us = 0);

/**
 * @brief A baseline that runs on a check's timed sets (the lab's frozen implementation, a vendor library), declared
 * once: `baseline` goes into PerfSpec::baseline (the runner times it alone, on sets of its own), and on() gives the
 * same work on the check's sets, which speedup_over() times interleaved with the graded code and compares with
 * that timing. Made by baseline_on().
 * @tparam Sets the check's timed sets
 */
template <class Sets>
struct SetBaseline {
    Baseline baseline;                                          ///< for PerfSpec::baseline
    std::function<void(Sets&, int set, cudaStream_t)> enqueue;  ///< the baseline's work on one set
    /** @brief Its work on @p sets (which must outlive the result). */
    [[nodiscard]] SetEnqueue on(Sets& sets) const {
        return [run = enqueue, &sets](int set, cudaStream_t s) { run(sets, set, s); };
    }
};

/**
 * @brief Declares a baseline that runs on timed sets: @p make builds sets for its timing alone (from the run's
 * Context: seed_for()); @p enqueue runs it on one set, alone and inside the check alike.
 * @param id unique within the lab @param what for messages @param make builds sets @param enqueue runs it on a set
 * @param sets how many sets it rotates over alone @param hold_us TimingOptions::hold_us (as the check times it)
 */
template <class Sets>
[[nodiscard]] SetBaseline<Sets> baseline_on(std::string id, std::string what, std::function<Sets(Context&)> make,
                                            std::function<void(Sets&, int, cudaStream_t)> enqueue, int sets = 2,
                                            double hold_us = 0) {
    SetBaseline<Sets> b;
    b.enqueue = enqueue;
    b.baseline.id = id;
    b.baseline.what = what;
    b.baseline.time_alone = [=](Context& ctx) {
        Sets s = make(ctx);
        return baseline_alone(what, [&](int set, cudaStream_t st) { enqueue(s, set, st); }, sets,
                              "baseline alone: " + id, hold_us);
    };
    return b;
}

/** @brief The baseline of fraction_of_copy_bandwidth(): a D2D copy moving bytes_moved (bytes_moved / 2 copied). */
struct CopyBaseline {
    Baseline baseline;       ///< for PerfSpec::baseline (id "copy")
    double bytes_moved = 0;  ///< bytes the graded work must read plus write, at the least; the copy moves as many
};

/** @brief The copy baseline for work that moves @p bytes_moved bytes: a D2D copy of bytes_moved / 2 bytes. */
[[nodiscard]] CopyBaseline copy_baseline(double bytes_moved);

/**
 * @brief Times two synchronous host paths on the host clock, alternately (a, b, a, b, ...), after one warm-up
 * run of each: what the timing helpers do for enqueued device work, for work that is a whole host
 * program (several streams, host waits). ratio = median(a) / median(b). A fixed number of runs: each
 * timing's `converged` says whether its median is known as precisely as grading_timing() asks (its 95%
 * CI within max_rel_ci), which is what a fairness note reads (grader/fairness.hpp).
 * @param a the baseline @param b the graded path @param reps runs of each
 */
[[nodiscard]] AbResult time_host_ab(const std::function<void()>& a, const std::function<void()>& b, int reps);

/**
 * @brief time_host_ab() observed: @p b runs as the graded code, @p a as the grader's, and what ran is judged
 * (judge_observation(): graded work during a run of @p a is work left running, a thread started meanwhile is
 * noticed). With @p b_completes, every piece of graded work a run of @p b enqueued must have ended before it
 * returned ("returned before its work was done": r.wrong_result).
 * @param ctx the run @param a the grader's path @param b the graded path @param reps runs of each
 * @param r receives what was judged @param b_completes @p b promises its results are ready when it returns
 */
[[nodiscard]] AbResult time_host_ab(const Context& ctx, const std::function<void()>& a, const std::function<void()>& b,
                                    int reps, PerfResult& r, bool b_completes);

/**
 * @brief For a check that times its baseline itself (lab 01 times a pinned copy between its host-clocked
 * runs): compares the baseline's median inside the check, @p inside, with its timing alone before the
 * first check, and marks @p r INVALID when it ran more than Context::baseline_tolerance slower. Sets
 * r.baseline_compared. @param ctx the run @param baseline the check's baseline (require_current_baseline())
 * @param inside the baseline timed inside the check @param r the result
 */
void compare_baseline(const Context& ctx, const Baseline& baseline, const TimingResult& inside, PerfResult& r);

/** @brief Timed calls whose outputs the helpers keep and verify (reservoir sampling over every timed call). */
inline constexpr int kVerifiedCalls = 3;

/**
 * @brief Which timed calls are kept for verification: reservoir sampling (Algorithm R) of kVerifiedCalls calls,
 * each decided after its call from a secret (secret_draw()), so that every call of a loop is equally likely to be
 * verified and none can know beforehand. Used by the timing helpers and by labs that time loops of their own.
 */
class VerifiedCalls {
public:
    /** @param secret from secret_draw() */
    explicit VerifiedCalls(std::uint64_t secret);
    /** @brief After call @p call (0, 1, 2, ... in order): the slot (0 … kVerifiedCalls − 1) whose kept output it
     *  replaces, or kVerifiedCalls when it is not kept. */
    [[nodiscard]] int slot_after(int call);

private:
    std::uint64_t draws_;
};

/**
 * @brief Why the GPU cannot be timed on before the first check of a lab's process (the runner's
 * GpuHooks::start_checks): another process holds a context on it, or a D2D copy of the size the grader
 * measured at the start of the run (in a process without graded code) now runs more than the tolerance
 * slower — the process's static initialisers left work running, or someone else shares the GPU.
 * @param ctx the run (its ceilings, baseline_tolerance)
 */
[[nodiscard]] std::vector<std::string> gpu_start_checks(const Context& ctx);

/** @brief The other processes that hold a context on the current GPU, described for a message ("another
 *  process uses this GPU: pid 4242 (labs_gpu_hammer, 2.1 GiB)"); empty when none or when NVML cannot say. */
[[nodiscard]] std::vector<std::string> gpu_tenants();

/** @brief The current GPU's clocks-event (throttle) reasons now, NVML's bitmask (grader/fairness.hpp says
 *  which count as throttling); none when NVML cannot say (the runner's GpuHooks::clock_events). */
[[nodiscard]] std::optional<std::uint64_t> gpu_clock_events();

// ---- timed ratios --------------------------------------------------------------------------------------

/**
 * @brief Fraction of the device-to-device copy bandwidth that @p work reaches: @p work and a cudaMemcpy moving
 * copy.bytes_moved (half of it copied: as many bytes read plus written) are timed interleaved; the ratio is
 * t_copy / t_work. Its floor is bytes_moved (Floor::bytes). Timed calls see fresh contents and some are verified
 * (see Rotation); the copy inside the check is compared with its timing alone.
 * @param ctx   the run
 * @param copy  the check's baseline (its PerfSpec::baseline), from copy_baseline()
 * @param work  the graded workload
 * @param label NVTX label
 */
[[nodiscard]] PerfResult fraction_of_copy_bandwidth(const Context& ctx, const CopyBaseline& copy, const Rotation& work,
                                                    const std::string& label);

/**
 * @brief Speed-up of @p work over @p baseline, timed interleaved: t_baseline / t_work. Both run on the
 * same rotating sets; timed calls of @p work see fresh contents and some are verified (see Rotation). The baseline
 * inside the check is compared with its timing alone.
 * @param ctx         the run
 * @param baseline    the check's baseline (its PerfSpec::baseline)
 * @param run         enqueues the baseline on a set of @p work's
 * @param work        the graded workload
 * @param floor_bytes bytes the work must move at the least (its Floor::bytes; 0: the check declares its floor
 *                    itself, in the result's Floor)
 * @param label       NVTX label
 */
[[nodiscard]] PerfResult speedup_over(const Context& ctx, const Baseline& baseline, const SetEnqueue& run,
                                      const Rotation& work, double floor_bytes, const std::string& label);

/** @brief speedup_over() with a baseline declared on the check's timed sets (baseline_on()). */
template <class Sets>
[[nodiscard]] PerfResult speedup_over(const Context& ctx, const SetBaseline<Sets>& baseline, Sets& sets,
                                      const Rotation& work, double floor_bytes, const std::string& label) {
    return speedup_over(ctx, baseline.baseline, baseline.on(sets), work, floor_bytes, label);
}

// ---- hardware counters -----------------------------------------------------------------------------------

/** @brief One kernel Nsight Compute profiled: its name and the metrics asked for. */
struct NcuKernel {
    std::string name;                       ///< the kernel's (demangled, base) name
    std::map<std::string, double> metrics;  ///< metric name → value
};

/** @brief A kernel launch as a tool run logged it (the runner's own record of the launch calls: CUPTI belongs to
 *  the tool there). */
struct LoggedLaunch {
    std::string name;                       ///< mangled
    std::uint32_t grid[3] = {0, 0, 0};      ///< grid of the launch
    std::uint32_t block[3] = {0, 0, 0};     ///< block of the launch
    std::size_t dynamic_smem = 0;           ///< dynamic shared memory per block, bytes
};

/** @brief What ncu_profile() read. */
struct NcuProfile {
    std::string skipped;             ///< why no counters could be read here ("" when they were)
    std::vector<NcuKernel> kernels;  ///< every kernel the target launched, in launch order
    std::string target_output;       ///< what the target printed (stdout and stderr)
    std::vector<LoggedLaunch> launches;  ///< the kernels the target launched under ncu, as it logged them (authenticated)
    bool launches_forged = false;        ///< its output carried a launch log without the run's MAC
};

/**
 * @brief Runs the lab's profile target @p target (Lab::profile_target()) in a fresh process of this runner
 * under Nsight Compute and returns the counters of every kernel it launched. Clocks are left alone
 * (`--clock-control none`); caches are flushed between kernels. `skipped` says why not when ncu is not
 * installed (PATH, $LABS_NCU or /usr/local/cuda/bin), cannot read this GPU's counters (not permitted,
 * unsupported), or profiled nothing within @p timeout_s seconds.
 * @param target a declared profile target @param metrics ncu metric names @param timeout_s time limit
 */
[[nodiscard]] NcuProfile ncu_profile(const std::string& target, const std::vector<std::string>& metrics,
                                     int timeout_s = 60);

/**
 * @brief One face for every tool: the kernels a profiler run of a target saw (names, grids, blocks, shared memory,
 * from the launch metrics ncu_profile() always asks for) against the kernels the observer saw when the same target
 * ran as graded code in this process. "" when they match one for one, in order; else what differs ("under the
 * profiler: 3 kernels; in the graded run: 4", "kernel 2 (transpose_padded): 4096 blocks under the profiler, 8192 in
 * the graded run"). A check that grades counters must require it: code that behaves differently under a tool
 * than when graded is caught here.
 * @param profiled the profiler's kernels, in launch order @param graded what the observer saw of the graded run
 */
[[nodiscard]] std::string tool_face_mismatch(const std::vector<NcuKernel>& profiled, const Observation& graded);
/** @brief The same for a sanitizer run: its logged launches (SanitizerRun::launches) against the graded run's
 *  kernels. @param logged the tool run's launches @param graded what the observer saw of the graded run */
[[nodiscard]] std::string tool_face_mismatch(const std::vector<LoggedLaunch>& logged, const Observation& graded);

/** @brief Starts or stops the runner's own log of launch calls (a tool run's, where CUPTI is the tool's). */
void log_launches(bool on);
/** @brief The launches logged so far, in order. */
[[nodiscard]] std::vector<LoggedLaunch> logged_launches();

/** @brief NVRTC compilations the process asked for so far, counted by the runner (its own nvrtcCompileProgram,
 *  which every graded module's call resolves to first): "compiled at run time" is graded from these. */
struct NvrtcCompiles {
    std::uint64_t calls = 0;      ///< nvrtcCompileProgram calls
    std::uint64_t succeeded = 0;  ///< of which returned NVRTC_SUCCESS
    double ms = 0;                ///< host time spent inside them
};
/** @brief See NvrtcCompiles. */
[[nodiscard]] NvrtcCompiles nvrtc_compiles();

/** @brief What run_targets_together() (or sanitize(), beside its tool run) found of one process. */
struct TargetRun {
    std::string target;  ///< the profile target it ran
    int status = -1;     ///< its exit status; -1: it did not start; -2: killed at the time limit
    std::string output;  ///< what it printed (stdout and stderr)
    std::vector<LoggedLaunch> launches;  ///< the kernels it launched, in order (authenticated)
    bool launches_recorded = false;      ///< the runner's record of its launches came (the target returned normally)
    bool launches_forged = false;        ///< its output carried a launch log without the run's MAC
};

/** @brief What sanitize() found. */
struct SanitizerRun {
    std::string skipped;        ///< why the tool could not run here ("" when it ran)
    std::vector<LoggedLaunch> launches;  ///< the kernels the target launched under the tool, in order (authenticated)
    bool launches_forged = false;        ///< its output carried a launch log without the run's MAC
    bool clean = false;         ///< it ran to the end and reported no error
    int errors = 0;             ///< errors (hazards) its summary counts
    std::string first_report;   ///< the first error it reported, a few lines
    std::string target_output;  ///< what the target printed (stdout and stderr)
    std::vector<TargetRun> beside;  ///< the plain runs asked for beside it, in the order asked
};

/**
 * @brief Runs the lab's profile target @p target (Lab::profile_target()) in a fresh process of this runner
 * under compute-sanitizer with @p tool ("racecheck", "synccheck", "memcheck", "initcheck") and reads its
 * summary. `skipped` says why not when compute-sanitizer is not installed (PATH, $LABS_COMPUTE_SANITIZER or
 * /usr/local/cuda/bin), did not finish within @p timeout_s seconds, or printed no summary.
 * @param target a declared profile target @param tool the sanitizer's tool @param timeout_s time limit
 * @param beside profile targets run at the same time as the tool's, each in a plain process of this runner (no
 * tool), found in SanitizerRun::beside (status -1 when the tool is not there to run beside)
 */
[[nodiscard]] SanitizerRun sanitize(const std::string& target, const std::string& tool, int timeout_s = 120,
                                    const std::vector<std::string>& beside = {});

/**
 * @brief Marks @p r TAMPERED when a tool run did not launch what the graded run of the same work launched — "<where>
 * the code did not run what it runs when graded: <what differs>" — or its launch log cannot be believed (carried
 * without the run's MAC). @return whether it marked @p r
 * @param r the check's result @param where how the run ran ("under compute-sanitizer --tool memcheck")
 * @param run the tool's run @param graded what the observer saw of the graded run
 */
bool tampered_under(CorrectnessResult& r, const std::string& where, const SanitizerRun& run, const Observation& graded);
/** @brief The same for a plain run beside a tool's (SanitizerRun::beside, run_targets_together()): its launch log must
 *  also have come (the target returned normally). */
bool tampered_under(CorrectnessResult& r, const std::string& where, const TargetRun& run, const Observation& graded);

/**
 * @brief The verdict of compute-sanitizer's runs of one piece of work (racecheck and synccheck, say, from
 * sanitize_together()) against the graded run of the same work: SKIPPED ("not checked: ...") where a tool could not run,
 * TAMPERED where a run did not launch what the graded run launched (tampered_under()), FAIL with the first error a tool
 * reported ("compute-sanitizer --tool T reports N errors on WHAT:" and its report) and @p hint, else PASS ("racecheck and
 * synccheck: no hazard on WHAT"). Each tool's error and launch counts go in r.details[tool].
 * @param runs the tool runs, one per tool, in the order of the tools' names
 * @param tools the tools' names, as sanitize() takes them ("racecheck", "synccheck")
 * @param graded what the observer saw of the graded run of the same work
 * @param what the work, for the messages
 * @param hint the hint of a failure
 */
[[nodiscard]] CorrectnessResult sanitizer_verdict(const std::vector<const SanitizerRun*>& runs, const std::vector<std::string>& tools,
                                                  const Observation& graded, const std::string& what, const std::string& hint);

/** @brief One run for sanitize_together(): a declared profile target under one of compute-sanitizer's tools. */
struct SanitizeAsk {
    std::string target;  ///< a declared profile target
    std::string tool;    ///< "racecheck", "synccheck", "memcheck", "initcheck"
};

/**
 * @brief Runs every one of @p asks as sanitize() runs one, all at the same time (each in a process of its own,
 * started together by the launcher), and returns their results in the order asked — for a lab whose checks
 * each need a few sanitizer runs: started together they take about the time of the longest instead of the sum.
 * Every result is skipped, with the same reason, where compute-sanitizer cannot run here.
 */
[[nodiscard]] std::vector<SanitizerRun> sanitize_together(const std::vector<SanitizeAsk>& asks, int timeout_s = 120);

/**
 * @brief Device memory of a given size that ends where an unmapped page of the address space begins (the CUDA
 * driver's virtual memory: a reserved range mapped all but its last granule): a kernel that reads or writes past
 * its end faults with an illegal address instead of touching a neighbour's bytes, in a plain run as under
 * compute-sanitizer. The start is aligned down to 256 bytes, so up to 255 bytes past the end may still be mapped.
 * For profile targets, which run in a process of their own: the fault ends the process's CUDA context.
 */
class GuardedBuffer {
public:
    /** @brief Maps @p bytes (more than 0); why_not() says why not (no device, no virtual memory management). */
    explicit GuardedBuffer(std::size_t bytes);
    ~GuardedBuffer();
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;
    /** @brief The buffer's first byte (null when it could not be made). */
    [[nodiscard]] void* data() const noexcept { return data_; }
    /** @brief "" when made, else why not. */
    [[nodiscard]] const std::string& why_not() const noexcept { return why_not_; }

private:
    void* data_ = nullptr;
    unsigned long long base_ = 0, handle_ = 0;
    std::size_t reserved_ = 0, mapped_ = 0;
    bool is_mapped_ = false;  // the physical allocation is mapped into the range (unmapped again on destruction)
    std::string why_not_;
};

/**
 * @brief Runs the lab's profile targets @p targets (Lab::profile_target()) at the same time, each in a fresh
 * process of this runner, and waits for all of them — for checks of what several processes do together (two
 * processes sharing a cache directory). They inherit the environment: pass what they need through it. A target
 * that throws exits with status 1. @param targets declared profile targets (one may appear several times)
 * @param timeout_s each process is killed after this many seconds
 */
[[nodiscard]] std::vector<TargetRun> run_targets_together(const std::vector<std::string>& targets, int timeout_s = 60);

// ---- a kernel that never ends -------------------------------------------------------------------------------

/**
 * @brief Waits for everything enqueued on @p stream, polling (never blocking in the driver), for at most
 * @p seconds; throws DeviceHung("<what> did not finish within N s ...") when the work is still running then.
 * @param stream the stream the graded code enqueued on @param seconds deadline @param what the work, for the message
 */
void wait_or_hang(cudaStream_t stream, double seconds, const std::string& what);

}  // namespace gpulab::grader
