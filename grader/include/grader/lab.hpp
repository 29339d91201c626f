/**
 * @file lab.hpp
 * @brief The check API a lab uses to declare what is graded: answers to paper exercises,
 * correctness checks and performance checks.
 *
 * A lab's frozen files register their checks with a gpulab::grader::Lab:
 * - `answer_key.cpp` defines `register_answers(Lab&)` (host only, no CUDA: it runs without a GPU
 *   and even when the student's code does not compile);
 * - `checks.cu` defines `register_checks(Lab&)` (correctness and performance on the GPU).
 *
 * The grader runs each in its own process (docs/grading.md, "For lab authors"): results stream back as
 * they are produced, so a crash or a hang costs only the checks that had not finished. The helpers a
 * lab's checks share (cached cases, poisoned outputs, inputs-unchanged verdicts, drawn shapes, timed
 * ratios, captured launches) are in grader/gpu_checks.hpp.
 *
 * @code
 * void register_answers(gpulab::grader::Lab& lab) {
 *     lab.number("vector_add.grid_blocks_n1000_block256", "Blocks of 256 threads for n = 1000?",
 *                5, 0.0, [] { return double(gpulab::models::grid_blocks(1000, 256)); });
 * }
 * @endcode
 */
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab::grader {

/** @brief What a check grades. */
enum class CheckKind {
    answer,       ///< a paper exercise in answers.toml
    correctness,  ///< results of the student's code against what is expected
    performance,  ///< a speed ratio measured in the same run
};

/** @brief Outcome of one check. */
enum class Status {
    pass,          ///< full points
    partial,       ///< some points (performance between the pass and full-marks bars)
    fail,          ///< no points
    skipped,       ///< could not run here (no GPU, prerequisite failed); points pending
    not_answered,  ///< answer missing or empty (0 points)
    error,         ///< the check itself could not complete (bad answer type, CUDA error, ...)
    suspicious,    ///< faster than physically possible: flagged, not rewarded
    not_run,       ///< never reached (the lab's process crashed, hung or lost its CUDA context)
    tampered,      ///< the runner's report channel carried lines it did not write: the part scores 0
    invalid,       ///< the measurement could not be trusted (its baseline moved, the GPU was shared, work
                   ///< was left running): 0 points, not a verdict on the code; `grader --retry-invalid N`
};

/** @brief Lower-case name of a status, as in reports ("pass", "not_answered", ...). */
[[nodiscard]] std::string_view to_string(Status s) noexcept;
/** @brief Parses a status name; throws std::invalid_argument for an unknown one. */
[[nodiscard]] Status status_from_string(std::string_view s);
/** @brief Lower-case name of a check kind. */
[[nodiscard]] std::string_view to_string(CheckKind k) noexcept;
/** @brief Parses a check kind name; throws std::invalid_argument for an unknown one. */
[[nodiscard]] CheckKind kind_from_string(std::string_view s);

/**
 * @brief A seed derived from a run's seed and a salt: independent streams of random data per case,
 * all reproduced by the run's seed. @param seed the run's seed @param salt names the stream
 */
[[nodiscard]] std::uint64_t derive_seed(std::uint64_t seed, std::string_view salt) noexcept;

/**
 * @brief Thrown by a check (wait_or_hang()) when the graded code's work has not finished by the check's deadline: a
 * kernel waiting for something that never happens (blocks spinning on a flag that blocks not yet resident would set,
 * a wait for a grid that never launched). The runner reports the check as failed with this message, every later
 * check as not run, and ends the lab's process at once without waiting for the device (a kernel cannot be stopped;
 * ending the process ends it).
 */
class DeviceHung : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/**
 * @brief A whole number drawn uniformly from [@p lo, @p hi] (a multiple of @p multiple_of), from @p seed:
 * the same seed draws the same number, so `--seed` reproduces a drawn shape.
 * @param seed a seed from Lab::seed_for() or Context::seed_for() @param lo smallest value (≥ 0)
 * @param hi largest value @param multiple_of granularity (lo and hi are rounded inwards to it)
 * @throws std::invalid_argument when no multiple lies in the range
 */
[[nodiscard]] std::int64_t draw(std::uint64_t seed, std::int64_t lo, std::int64_t hi, std::int64_t multiple_of = 1);

/** @brief A fresh seed for a run, from the clock and a random device; below 10^9 so that a student can
 *  type it back (`grader --seed N` reproduces the run). */
[[nodiscard]] std::uint64_t fresh_seed();

/**
 * @brief A baseline (the copy, the lab's frozen implementation, a vendor library) timed alone by the runner
 * before any check runs, so before the graded code's first call in the process (Baseline::time_alone).
 */
struct BaselineTiming {
    std::string what;        ///< what it is, for messages ("the D2D copy", "the naive GEMM")
    double median_ms = 0;    ///< median time of its timed runs
    nlohmann::json details;  ///< its timing summary
    std::string error;       ///< why it could not be timed ("" when it was)
};

struct Context;

/**
 * @brief What a performance check's ratio is measured against: its baseline (the D2D copy, the lab's frozen
 * implementation, a vendor library). One object says it all: the runner calls time_alone before the first check of
 * the process, and the check's timing helper times the same work again, interleaved with the graded code, and
 * compares the two (a baseline that ran slower inside the check makes the measurement INVALID). Made by the kit
 * (grader/gpu_checks.hpp: copy_baseline(), baseline_on()), passed in PerfSpec::baseline.
 */
struct Baseline {
    std::string id;    ///< unique within the lab ("copy", "naive"); checks that share a baseline share its id
    std::string what;  ///< what it is, for messages ("the D2D copy", "the naive GEMM")
    std::function<BaselineTiming(Context&)> time_alone;  ///< times it alone (grader/gpu_checks.hpp: baseline_alone())
};

/** @brief A parameter of an exercise case: the value answers.toml states, and the range a per-student case
 *  draws it from (`grader --student ID`). */
struct CaseParam {
    std::string name;            ///< as answers.toml names it, e.g. "m"
    std::int64_t value = 0;      ///< the stated case, used without a student id
    std::int64_t lo = 0;         ///< smallest value a student may get
    std::int64_t hi = 0;         ///< largest value a student may get
    std::int64_t multiple = 1;   ///< granularity of the drawn value
};

/** @brief A case's parameter values, by name. */
using CaseValues = std::map<std::string, std::int64_t>;

/** @brief What a check can see of the run it is part of. */
struct Context {
    std::uint64_t seed = 0;          ///< the run's seed (printed; `--seed` reproduces it)
    bool gpu_available = false;      ///< a CUDA device answered
    std::string no_gpu_reason;       ///< why not, when it did not
    nlohmann::json ceilings;         ///< ceilings measured by the grader in this run (empty without a GPU)
    /// The student whose exercise cases are graded (`grader --student ID`); empty: the stated cases.
    std::string student;
    /// The course's seed: with the student id, it draws each student's cases (the same for the whole class).
    std::uint64_t course_seed = 0;
    /// Mangled names the graded code's own objects define (its kernels among them), from the grader's
    /// scan; empty when the runner was started by hand (then provenance is not checked).
    std::set<std::string> own_symbols;

    /// Baselines timed alone before the first check ran (Baseline::time_alone), by id.
    std::map<std::string, BaselineTiming> baselines;
    /// The baseline of the performance check that runs now (its PerfSpec::baseline): its id; set by the runner.
    std::string baseline_id;
    /// ... and what it is (Baseline::what), for require_current_baseline()'s message; set by the runner.
    std::string baseline_what;
    /// How much slower a baseline may run inside a check than alone before the check is INVALID.
    double baseline_tolerance = 0.10;
    /// Why every performance check of this process is INVALID (found before the first check ran: another
    /// process on the GPU, a copy slower than the grader measured at the start of the run), else empty.
    std::vector<std::string> run_invalid;
    /// Kernels of the lab's given code that the graded code is meant to launch itself (lab 01's work kernel):
    /// regexes over their demangled names (Lab::given_kernels()); any other kernel it launches that its own
    /// objects do not define is foreign.
    std::vector<std::string> given_kernels;
    /// The ids of the checks this process grades (the whole lab, or what --only selected), set by the runner: a check
    /// may start work that a later check reads (will_run()).
    std::set<std::string> planned;

    /** @brief Whether this process grades the check @p id (started work for it is waited for, never left running
     *  into an unrelated check). @param id a check id */
    [[nodiscard]] bool will_run(const std::string& id) const { return planned.count(id) > 0; }

    /** @brief The baseline of the performance check that runs now, as timed alone; throws std::logic_error when
     *  none was (a lab definition error). */
    [[nodiscard]] const BaselineTiming& current_baseline() const;
    /** @brief A measured ceiling by name (e.g. "d2d_copy_gbps"), if the grader measured it. */
    [[nodiscard]] std::optional<double> ceiling(std::string_view name) const;
    /** @brief A seed derived from the run's seed and @p salt: independent data per case, reproducible. */
    [[nodiscard]] std::uint64_t seed_for(std::string_view salt) const;
    /** @brief The values of exercise case @p name: the stated ones without a student id, else each drawn
     *  from its range by a hash of the course seed, the student id, the case and the parameter. */
    [[nodiscard]] CaseValues case_values(const std::string& name, const std::vector<CaseParam>& params) const;
};

/** @brief Result of a correctness check. */
struct CorrectnessResult {
    bool passed = false;     ///< every element within tolerance (or bit-identical where required)
    std::string message;     ///< what was compared and what was found (first bad index, count)
    std::string hint;        ///< likely cause, for a student (may be empty)
    nlohmann::json details;  ///< anything else worth keeping in the JSON report
    /// Non-empty: the check could not run here (a profiler missing or not permitted): SKIPPED with this
    /// reason, its points pending; `passed` is ignored.
    std::string skipped;
    /// Non-empty: the graded code behaved differently under a tool than when graded (tool_face_mismatch()):
    /// TAMPERED with this reason, 0 points; `passed` is ignored.
    std::string tampered;
};

/** @brief @p r as passed, with @p message (what was checked and found): how a check that found nothing wrong ends. */
[[nodiscard]] CorrectnessResult pass(CorrectnessResult r, std::string message);
/** @brief @p r as passed, keeping the message it has (a check that said what it found as it went). */
[[nodiscard]] CorrectnessResult pass(CorrectnessResult r);

/** @brief @p r with @p hint where it has none yet (a more specific hint, set by a helper it went through, stays). */
[[nodiscard]] CorrectnessResult with_hint(CorrectnessResult r, std::string hint);

/** @brief @p r as failed, with what was found (@p message) and, for a student, the likely cause (@p hint). */
[[nodiscard]] CorrectnessResult fail(CorrectnessResult r, std::string message, std::string hint = {});

/** @brief @p r as failed, its message led by @p why ("why. what was measured"), with a @p hint: for a check that
 *  says what it measured first and then finds what is wrong with it. */
[[nodiscard]] CorrectnessResult fail_because(CorrectnessResult r, const std::string& why, std::string hint);

/** @brief Bars of a performance check: ratios, higher is better. */
struct PerfSpec {
    std::string requires_check;  ///< id of the correctness check that must pass first (same shape)
    /// ids of further correctness checks that must pass first (what the part's code holds, say): a performance check
    /// is not timed unless every one passed, and is SKIPPED where one was skipped
    std::vector<std::string> also_requires = {};
    double pass_bar = 0;         ///< below this: 0 points
    double full_bar = 0;         ///< at or above this: full points; in between: 50% → 100% linearly
    std::string unit;            ///< how to read the ratio, e.g. "x baseline" or "of copy bandwidth"
    Baseline baseline;           ///< what the ratio is measured against (required)
};

/**
 * @brief What a performance check's work cannot do faster than: its plausibility floor. The runner turns it into
 * a time from this run's ceilings (docs/grading.md, "Plausibility floors") — bytes at the copy bandwidth, FLOPs at
 * the tensor-core or FMA peak, bytes over the host link at the pinned rate, each with a stated headroom — and a
 * time below it, or a ratio above max_ratio, is SUSPICIOUS (0 points, the floor named). Every performance check
 * declares one: a check with neither a floor nor a max_ratio is a lab definition error.
 */
struct Floor {
    double bytes = 0;            ///< bytes the work must move through device memory at the least
    double flops = 0;            ///< floating-point operations it must do
    bool tensor = false;         ///< those FLOPs may run on tensor cores (BF16); else FP32 FMA
    double host_bytes = 0;       ///< bytes it must move between host and device (at the pinned rate)
    double min_ms = 0;           ///< a lower bound on its time measured in the same run (a model's, a stage's)
    std::string min_what;        ///< what min_ms is, for the message
    double max_ratio = 0;        ///< the graded ratio cannot exceed this (0: no such bound)
    std::string max_what;        ///< why, for the message ("the pipeline cannot beat its own lower bound")
    /** @brief The graded ratio cannot exceed @p ratio, because @p why (sets max_ratio and max_what together). */
    Floor& ratio_at_most(double ratio, std::string why) {
        max_ratio = ratio;
        max_what = std::move(why);
        return *this;
    }
    /** @brief The graded time cannot be below @p ms, which is @p what (sets min_ms and min_what together). */
    Floor& time_at_least(double ms, std::string what) {
        min_ms = ms;
        min_what = std::move(what);
        return *this;
    }
    /** @brief Whether anything is declared. */
    [[nodiscard]] bool declared() const noexcept {
        return bytes > 0 || flops > 0 || host_bytes > 0 || min_ms > 0 || max_ratio > 0;
    }
};

/** @brief Result of a performance measurement. */
struct PerfResult {
    double ratio = 0;                 ///< the graded ratio, measured in this run
    std::optional<double> time_ms;    ///< the graded code's median time
    std::optional<double> floor_ms;   ///< physical lower bound on that time (bytes / peak, FLOPs / peak)
    Floor floor;                      ///< what the work must cost at the least (the runner judges it)
    /// Non-empty: the check could not run here (the observer is not recording): SKIPPED with this reason.
    std::string skipped;
    /// Non-empty: the graded code ran kernels that are not its own while being timed: FAIL with this message.
    std::string not_own;
    std::string message;              ///< how the ratio was measured
    nlohmann::json details;           ///< timings and sizes for the JSON report
    std::string wrong_result;         ///< why a verified timed run's output was wrong ("" when right)
    /// Why the measurement cannot be trusted (the baseline ran slower than alone, work was left running):
    /// the check is INVALID. Filled by the timing helpers of grader/gpu_checks.hpp.
    std::vector<std::string> invalid;
    bool baseline_compared = false;  ///< the helpers compared the baseline with its timing alone
};

/** @brief One counter a lab's profiler evidence reads (an Nsight Compute metric), as the report page shows it. */
struct EvidenceMetric {
    std::string metric;  ///< the ncu metric name ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
    std::string label;   ///< what it says, in the lab's words ("bank conflicts of the shared loads")
    std::string per;     ///< another metric of the same evidence to divide by ("": the value as read)
};

/**
 * @brief What `grader --profile` shows of a lab: a profile target (Lab::profile_target()) run under Nsight Compute,
 * with the counters that speak to the lab's idea. Evidence for a person to read: it grades nothing.
 */
struct ProfileEvidence {
    std::string target;                   ///< the profile target to run
    std::string idea;                     ///< what the counters show, one sentence ("bank conflicts per request")
    std::vector<EvidenceMetric> metrics;  ///< the counters, in the order the page shows them
};

/** @brief One declared check, as the runner knows it. */
struct CheckDecl {
    std::string id;          ///< unique within the lab, e.g. "correct.n1000" or the answer key
    std::string title;       ///< one line for the report table
    CheckKind kind = CheckKind::answer;  ///< what it grades
    double max_points = 0;   ///< points for a full pass
    bool needs_gpu = false;  ///< skipped without a CUDA device
};

/** @brief An answer checker: given the student's raw TOML value (null if absent), grades it. */
struct AnswerDecl {
    std::string question;                                  ///< the question, for the report
    double rel_tol = 0;                                    ///< relative tolerance for numbers
    std::vector<std::string> options;                      ///< non-empty for a choice question
    std::function<double(const Context&)> number_key;      ///< key of a numeric question
    std::function<std::string(const Context&)> choice_key; ///< key of a choice question
    bool needs_ceilings = false;                           ///< the key depends on measured ceilings
    std::string case_name;                                 ///< its exercise case ("" for a fixed question)
    std::vector<CaseParam> case_params;                    ///< that case's parameters
};

/** @brief An exercise case: a set of parameters several questions share (Lab::exercise_case()). */
struct ExerciseCase {
    std::string description;        ///< what the parameters are, e.g. "an m × n output tile, k = 32"
    std::vector<CaseParam> params;  ///< its parameters
};

/** @brief One `grader calc` run, as a student would type it: the model, its parameters, the device. */
struct CalcRun {
    std::string model;                          ///< e.g. "occupancy"
    std::map<std::string, std::string> params;  ///< name as after "--" → value as typed, e.g. {"threads", "384"}
    std::string device;                         ///< as --device takes it ("H100"); empty: any
};

/** @brief A calculator run that works graded questions of a lab (Lab::graded_calc()). */
struct GradedCalc {
    std::string asks;  ///< the questions it answers, e.g. "exercise_5_1.*"
    CalcRun run;       ///< the run, at this context's case values
};

/** @brief The checks of one lab, in the order they run. */
class Lab {
public:
    /** @param seed the run's seed: checks may draw shapes from it when they are registered (seed_for) */
    explicit Lab(std::uint64_t seed = 0) : seed_(seed) {}
    /** @brief derive_seed() of the run's seed, for what a lab draws while registering its checks (e.g.
     *  a shape drawn per run, named in the check's title). @param salt names the stream */
    [[nodiscard]] std::uint64_t seed_for(std::string_view salt) const noexcept { return derive_seed(seed_, salt); }

    /** @brief A numeric paper exercise. @param key dotted key in answers.toml @param question the
     *  question @param points full points @param rel_tol accepted relative error (0: exact)
     *  @param key_fn computes the answer from the models (never a stored literal) */
    void number(std::string key, std::string question, double points, double rel_tol,
                std::function<double()> key_fn);
    /**
     * @brief Declares an exercise case: parameters that questions share and that answers.toml states
     * (`# case NAME: m = 96, n = 80`). Without a student id they take their stated values; with
     * `grader --student ID` each student gets values drawn from the ranges, so that two students answer
     * different cases. Declare it before the questions that use it.
     * @param name names the case in answers.toml @param description what the parameters are
     * @param params its parameters (value within [lo, hi])
     */
    void exercise_case(std::string name, std::string description, std::vector<CaseParam> params);
    /** @brief A numeric exercise on the case @p case_name: @p key_fn computes the key from the case's
     *  values (the stated ones or the student's). Other parameters as for number(). */
    void number_for_case(std::string case_name, std::string key, std::string question, double points, double rel_tol,
                         std::function<double(const CaseValues&)> key_fn);
    /** @brief The declared exercise cases, by name. */
    [[nodiscard]] const std::map<std::string, ExerciseCase>& cases() const noexcept { return cases_; }
    /** @brief A multiple-choice exercise. @param key dotted key @param question the question
     *  @param options the accepted spellings @param points full points @param key_fn the right option */
    void choice(std::string key, std::string question, std::vector<std::string> options, double points,
                std::function<std::string()> key_fn);
    /** @brief A numeric exercise whose key depends on this GPU's measured ceilings (skipped without them),
     *  answered from the student's own measurement. Parameters as for number(), with @p key_fn receiving
     *  the run's Context (Context::ceiling()). */
    void number_measured(std::string key, std::string question, double points, double rel_tol,
                         std::function<double(const Context&)> key_fn);
    /** @brief A choice whose right option depends on this GPU's measured ceilings (skipped without
     *  them). Parameters as for choice(), with @p key_fn receiving the run's Context. */
    void choice_measured(std::string key, std::string question, std::vector<std::string> options,
                         double points, std::function<std::string(const Context&)> key_fn);
    /**
     * @brief Declares a calculator run that works graded questions. Name the parameters (and the device) the
     * questions depend on, and only those: wherever a `grader calc` run has each of them at this value (a default
     * written out or left to the model alike), it shows the method and not the numbers; anywhere else it shows
     * everything. @param asks the questions it answers ("exercise_5_1.*"), for the message @param run the model,
     * the parameters that make the case, and the device where it matters ("" when it does not)
     */
    void graded_calc(std::string asks, CalcRun run);
    /** @brief graded_calc() for questions on an exercise case. @param case_name the case (declared before)
     *  @param asks as for graded_calc() @param run_fn makes the run from the case's values (the stated ones, or
     *  the student's) */
    void graded_calc_for_case(std::string case_name, std::string asks, std::function<CalcRun(const CaseValues&)> run_fn);
    /** @brief The declared calculator runs at @p ctx's case values (the stated cases without a student). */
    [[nodiscard]] std::vector<GradedCalc> graded_calcs(const Context& ctx) const;
    /** @brief A correctness check on the GPU. @param id unique id @param title report line
     *  @param points full points @param fn runs the student's code and compares */
    void correctness(std::string id, std::string title, double points,
                     std::function<CorrectnessResult(Context&)> fn);
    /**
     * @brief A correctness check that runs on the host only (no CUDA call): graded on a machine without a GPU
     * too, e.g. the student's layout functions evaluated against a model. Parameters as for correctness().
     */
    void host_check(std::string id, std::string title, double points, std::function<CorrectnessResult(Context&)> fn);
    /** @brief A performance check on the GPU. @param id unique id @param title report line
     *  The runner times spec.baseline alone before the first check of the process (once per baseline id, for
     *  every check that runs), and the check's timing helper compares it with its timing inside the check.
     *  @param points full points @param spec bars, prerequisite and baseline @param fn measures the ratio
     *  @throws std::logic_error when the bars are out of order, the baseline has no id or no timing, or another
     *  baseline was declared under the same id */
    void performance(std::string id, std::string title, double points, PerfSpec spec,
                     std::function<PerfResult(Context&)> fn);

    /** @brief Kernels of the lab's given code that the graded code launches on purpose (regexes over demangled
     *  names, e.g. "work_kernel"): the observer counts them as the graded code's own. @param patterns regexes */
    void given_kernels(std::vector<std::string> patterns) { given_kernels_ = std::move(patterns); }
    /** @brief The patterns of given_kernels(). */
    [[nodiscard]] const std::vector<std::string>& given_kernel_patterns() const noexcept { return given_kernels_; }

    /**
     * @brief A workload the lab's runner can run alone, in a fresh process started with `--profile-target
     * NAME` — for a profiler to watch (grader/gpu_checks.hpp: ncu_profile()). It runs with no check, no
     * baseline and no report channel; what it prints on stdout comes back to the check that started it.
     * @param name names it @param run launches the work and waits for it
     */
    void profile_target(std::string name, std::function<void()> run);
    /**
     * @brief Declares what `grader --profile` reads of this lab (grader/html_report.hpp: the page's "Evidence from
     * Nsight Compute"). Its target must be a declared profile target. @param e the evidence
     */
    void profile_evidence(ProfileEvidence e);
    /** @brief The declared evidence, in order. */
    [[nodiscard]] const std::vector<ProfileEvidence>& evidence() const noexcept { return evidence_; }

    /** @brief The declared profile targets, by name. */
    [[nodiscard]] const std::map<std::string, std::function<void()>>& profile_targets() const noexcept {
        return profile_targets_;
    }

    /** @brief Declarations in order. */
    [[nodiscard]] const std::vector<CheckDecl>& checks() const noexcept { return decls_; }

    /// @cond INTERNAL
    struct Entry {
        AnswerDecl answer;
        std::function<CorrectnessResult(Context&)> correctness;
        PerfSpec perf;
        std::function<PerfResult(Context&)> performance;
    };
    [[nodiscard]] const std::vector<Entry>& entries() const noexcept { return entries_; }
    [[nodiscard]] const std::map<std::string, Baseline>& baselines() const noexcept {
        return baselines_;
    }
    /// @endcond

private:
    void add(CheckDecl d, Entry e);
    std::uint64_t seed_ = 0;
    std::vector<CheckDecl> decls_;
    std::vector<Entry> entries_;
    std::map<std::string, Baseline> baselines_;
    std::map<std::string, ExerciseCase> cases_;
    std::map<std::string, std::function<void()>> profile_targets_;
    std::vector<ProfileEvidence> evidence_;
    std::vector<std::string> given_kernels_;
    std::vector<std::function<GradedCalc(const Context&)>> graded_calcs_;
};

/**
 * @brief Throws std::logic_error (a lab definition error) unless @p b is the baseline of the performance check
 * that runs now (its PerfSpec::baseline): what every timing helper checks first, so that the baseline a check
 * times inside is the one the runner timed alone.
 */
void require_current_baseline(const Context& ctx, const Baseline& b);

/** @brief Score of a performance ratio: 0 below pass_bar, 50% at it, linearly to 100% at full_bar. */
[[nodiscard]] double perf_credit(double ratio, double pass_bar, double full_bar) noexcept;

}  // namespace gpulab::grader

/** @brief Defined by a lab's answer_key.cpp: registers its paper exercises. */
void register_answers(gpulab::grader::Lab& lab);
/** @brief Defined by a lab's checks.cu: registers its correctness and performance checks. */
void register_checks(gpulab::grader::Lab& lab);
