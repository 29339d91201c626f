/**
 * @file gpu_checks.hpp
 * @brief The lab kit: what every lab's checks.cu needs, written once.
 *
 * - cases: cached_case() makes a shape's inputs (and references) once per run, from the run's seed;
 *   draw() (grader/lab.hpp) picks sizes from the seed, so each run adds shapes nobody could tune for;
 * - results: run_on_poisoned() runs a launcher on a poisoned output and brings it back; to_result()
 *   turns a comparison into a correctness result; require_unchanged() fails it, with one wording, when
 *   the code wrote into an input;
 * - launches: kernel_count_result() grades what a captured graph (labs/graph.hpp) launched;
 *   require_own_kernels() fails a variant whose launcher runs kernels the student's file does not
 *   define (a vendor library's, the lab's baseline);
 * - timings: fraction_of_copy_bandwidth() and speedup_over(), always interleaved in one process, each
 *   with its reference (copy_reference(), reference_alone()) timed alone before the first check and
 *   compared with the same reference inside the check: a reference that ran slower there, or work left
 *   running once the timed code's stream was done, makes the check INVALID instead of graded.
 *
 * @code
 * struct Case { std::vector<float> hx; DeviceBuffer<float> x; };
 * CorrectnessResult check(Context& ctx, std::size_t n) {
 *     const Case& c = cached_case<Case>("n=" + std::to_string(n), [&] { ... });
 *     const auto y = run_on_poisoned<float>(n, [&](float* out) { launch_mine(c.x.data(), out, n, nullptr); });
 *     CorrectnessResult r = to_result(compare_f32(y, reference(c), tol), "y = f(x)");
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
#include <string>
#include <vector>

#include "grader/lab.hpp"
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
 * inputs on host and device and whatever reference it computes from them.
 * @tparam Case the lab's case type
 * @param key  names the case (e.g. its shape); equal keys share one case
 * @param make makes the case (draws its data from the run's seed)
 */
template <typename Case>
Case& cached_case(const std::string& key, const std::function<std::unique_ptr<Case>()>& make) {
    static std::map<std::string, std::unique_ptr<Case>> cases;
    std::unique_ptr<Case>& slot = cases[key];
    if (!slot) slot = make();
    return *slot;
}


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
    launch(out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
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
 * library's, the lab's baseline — by their names. The launcher is captured into a graph (nothing runs)
 * once per @p variant and the answer kept for the run; call it after the launcher ran once outside the
 * capture, with the same shape. Empty when every kernel is the student's own, and when the runner was
 * started by hand (no symbol list from the grader).
 * @param ctx     the run (its own_symbols come from the grader's scan of the compiled code)
 * @param variant names the launcher, e.g. "v3"
 * @param enqueue enqueues the launcher on the given stream
 * @throws CaptureError when the launcher does not only enqueue work on its stream
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
 * and outputs with different data (so nothing can be reused from the previous run), with one timed run
 * verified. The check says how to run, refill and verify a set; the helpers own the loop.
 *
 * The verified run is drawn from the seed among the first timed runs: before it (outside its timed span)
 * its set gets new input data in the same buffers and its output is filled with random bytes; right after
 * it its output is copied aside and given to verify(). A submission that skips work, or part of it, when
 * the same buffers come back then leaves a wrong output, and the performance check fails.
 */
struct Rotation {
    int sets = 2;  ///< independent input/output sets the timed runs rotate over (at least 2)
    SetEnqueue run;  ///< enqueues the graded code on a set
    /// Enqueues new input data for a set, in its existing buffers, drawn from the seed.
    std::function<void(int set, std::uint64_t seed, cudaStream_t)> refill;
    /// The set's output: device pointer and bytes.
    std::function<std::pair<void*, std::size_t>(int set)> output;
    /// Checks a copy of the set's output (device memory, as many bytes as output() says) against the set's
    /// current inputs: "" when right, else why.
    std::function<std::string(int set, const void* output_copy)> verify;
};

// ---- references ----------------------------------------------------------------------------------------

/**
 * @brief Times @p run alone, as the timed loops time a reference (grading_timing(), L2 flushed), rotating
 * over @p sets sets: what a Lab::reference() returns. @param what the reference, for messages ("the naive
 * GEMM") @param run enqueues it on a set @param sets sets to rotate over @param label NVTX label
 */
[[nodiscard]] ReferenceTiming reference_alone(const std::string& what, const SetEnqueue& run, int sets,
                                              const std::string& label);

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
 * @brief For a check that times its reference itself (lab 01 times a pinned copy between its host-clocked
 * runs): compares the reference's median inside the check, @p inside, with its timing alone before the
 * first check, and marks @p r INVALID
 * when it ran more than Context::reference_tolerance slower. Sets r.reference_compared.
 * @param ctx the run (the check's reference) @param inside the reference timed inside the check @param r the result
 */
void compare_reference(const Context& ctx, const TimingResult& inside, PerfResult& r);

/**
 * @brief The reference of fraction_of_copy_bandwidth() with the same @p bytes_moved: a D2D copy of
 * bytes_moved / 2 bytes, timed alone. Register it with Lab::reference().
 */
[[nodiscard]] std::function<ReferenceTiming(Context&)> copy_reference(double bytes_moved);

/** @brief How long the device may stay busy after the timed code's stream is done before that counts as
 *  work left running (honest code: under 0.03 ms on an H200; docs/performance-log.md). The reference's
 *  tolerance is Context::reference_tolerance. */
inline constexpr double kLeftoverWorkMs = 0.1;

/**
 * @brief Why the GPU cannot be timed on before the first check of a lab's process (the runner's
 * GpuHooks::start_checks): another process holds a context on it, or a D2D copy of the size the grader
 * measured at the start of the run (in a process without graded code) now runs more than the tolerance
 * slower — the process's static initialisers left work running, or someone else shares the GPU.
 * @param ctx the run (its ceilings, reference_tolerance)
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
 * @brief Fraction of the device-to-device copy bandwidth that @p work reaches: @p work and a
 * cudaMemcpy moving the same number of bytes (bytes_moved / 2 copied = bytes_moved read + written) are
 * timed interleaved; the ratio is t_copy / t_work. The floor is bytes_moved at the theoretical DRAM
 * bandwidth (a faster time is physically impossible). One timed run is verified (see Rotation). The
 * check's reference must be copy_reference(bytes_moved): the copy inside the check is compared with it.
 * @param ctx         the run (the check's reference, timed alone)
 * @param work        the graded workload
 * @param bytes_moved bytes the work must read plus write, at the least
 * @param label       NVTX label
 * @param seed        picks the verified run and its new data (Context::seed_for)
 */
[[nodiscard]] PerfResult fraction_of_copy_bandwidth(const Context& ctx, const Rotation& work, double bytes_moved,
                                                    const std::string& label, std::uint64_t seed);

/**
 * @brief Speed-up of @p work over @p baseline, timed interleaved: t_baseline / t_work. Both run on the
 * same rotating sets; one timed run of @p work is verified (see Rotation). The check's reference must time
 * the same baseline alone (reference_alone()): the baseline inside the check is compared with it.
 * @param ctx         the run (the check's reference, timed alone)
 * @param baseline    enqueues the lab's baseline on a set
 * @param work        the graded workload
 * @param floor_bytes bytes the work must move at the least (0: no floor)
 * @param label       NVTX label
 * @param seed        picks the verified run and its new data
 */
[[nodiscard]] PerfResult speedup_over(const Context& ctx, const SetEnqueue& baseline, const Rotation& work,
                                      double floor_bytes, const std::string& label, std::uint64_t seed);

// ---- hardware counters -----------------------------------------------------------------------------------

/** @brief One kernel Nsight Compute profiled: its name and the metrics asked for. */
struct NcuKernel {
    std::string name;                       ///< the kernel's (demangled, base) name
    std::map<std::string, double> metrics;  ///< metric name → value
};

/** @brief What ncu_profile() read. */
struct NcuProfile {
    std::string skipped;             ///< why no counters could be read here ("" when they were)
    std::vector<NcuKernel> kernels;  ///< every kernel the target launched, in launch order
    std::string target_output;       ///< what the target printed (stdout and stderr)
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

/** @brief What sanitize() found. */
struct SanitizerRun {
    std::string skipped;        ///< why the tool could not run here ("" when it ran)
    bool clean = false;         ///< it ran to the end and reported no error
    int errors = 0;             ///< errors (hazards) its summary counts
    std::string first_report;   ///< the first error it reported, a few lines
    std::string target_output;  ///< what the target printed (stdout and stderr)
};

/**
 * @brief Runs the lab's profile target @p target (Lab::profile_target()) in a fresh process of this runner
 * under compute-sanitizer with @p tool ("racecheck", "synccheck", "memcheck", "initcheck") and reads its
 * summary. `skipped` says why not when compute-sanitizer is not installed (PATH, $LABS_COMPUTE_SANITIZER or
 * /usr/local/cuda/bin), did not finish within @p timeout_s seconds, or printed no summary.
 * @param target a declared profile target @param tool the sanitizer's tool @param timeout_s time limit
 */
[[nodiscard]] SanitizerRun sanitize(const std::string& target, const std::string& tool, int timeout_s = 120);

/** @brief What run_targets_together() found of one process. */
struct TargetRun {
    std::string target;  ///< the profile target it ran
    int status = -1;     ///< its exit status; -1: it did not start; -2: killed at the time limit
    std::string output;  ///< what it printed (stdout and stderr)
};

/**
 * @brief Runs the lab's profile targets @p targets (Lab::profile_target()) at the same time, each in a fresh
 * process of this runner, and waits for all of them — for checks of what several processes do together (two
 * processes sharing a cache directory). They inherit the environment: pass what they need through it. A target
 * that throws exits with status 1. @param targets declared profile targets (one may appear several times)
 * @param timeout_s each process is killed after this many seconds
 */
[[nodiscard]] std::vector<TargetRun> run_targets_together(const std::vector<std::string>& targets, int timeout_s = 60);

}  // namespace gpulab::grader
