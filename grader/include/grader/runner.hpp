/**
 * @file runner.hpp
 * @brief The runner side: executes a Lab's checks and reports them over the line protocol.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "grader/lab.hpp"
#include "grader/protocol.hpp"

namespace gpulab::grader {

/** @brief Which half of a lab a runner process grades. */
enum class RunnerMode {
    answers,  ///< paper exercises (host only)
    code,     ///< correctness and performance on the GPU
};

/** @brief What GpuHooks::prepare did before any check: the sandbox, the observer, the graded code loaded. */
struct Prepared {
    void (*register_checks)(Lab&) = nullptr;  ///< the lab's checks, from the graded module
    std::string observer;                     ///< "" when the observer records, else why not
    std::string sandbox;                      ///< the sandbox that holds ("seccomp+landlock", ..., "none")
    std::vector<std::string> sandbox_notes;   ///< why a part of it does not
    double sandbox_ms = 0;                    ///< what installing it took
    std::string error;                        ///< why the graded code could not be loaded ("" when it was)
};

/** @brief Everything a runner needs to know about its run. */
struct RunnerOptions {
    RunnerMode mode = RunnerMode::answers;   ///< which half
    std::string answers_file;                ///< answers.toml to grade (answers mode)
    std::uint64_t seed = 0;                  ///< the run's seed
    std::string student;                     ///< student id for per-student exercise cases ("" : stated cases)
    std::uint64_t course_seed = 0;           ///< the course's seed (with student)
    nlohmann::json ceilings;                 ///< ceilings measured by the grader (may be empty)
    bool plan_only = false;                  ///< send hello + plan and stop
    /// Run just these checks (ids separated by commas) and the correctness checks they require; empty: all.
    std::string only;
    std::string own_symbols_file;            ///< symbols the student's objects define, one per line (by hand)
    std::set<std::string> own_symbols;       ///< the same, from the grader's parameters or that file
    std::vector<std::string> hidden;         ///< folders the graded code may not read, besides the course's
    std::string scratch;                     ///< the folder it may write ("": the runner makes one)
    Prepared prepared;                       ///< what GpuHooks::prepare did
    bool profile = false;                    ///< after the checks, read the lab's profiler evidence (--profile)
};

/** @brief How the code runner sees the GPU (injected so that the answers runner needs no CUDA). */
struct GpuHooks {
    /** @brief Returns the empty string when a device is usable, else why not. */
    std::function<std::string()> probe;
    /** @brief For an exception thrown by a check: a reason when it left the CUDA context unusable. */
    std::function<std::optional<std::string>(const std::exception&)> fatal_reason;
    /** @brief After a fatal error, true when the process must end as soon as its report is sent (a kernel still
     *  running: freeing device memory or leaving the runtime would wait for it). */
    std::function<bool()> end_at_once;
    /** @brief Before the first check: why this GPU cannot be timed on now (another process uses it, the copy
     *  runs slower than the grader measured at the start of the run); empty when it can. */
    std::function<std::vector<std::string>(const Context&)> start_checks;
    /** @brief After each performance check: the other processes using the GPU (empty when none). */
    std::function<std::vector<std::string>()> tenants;
    /** @brief The GPU's clocks-event (throttle) reasons now, as NVML's bitmask (grader/fairness.hpp); none
     *  when NVML cannot say. Read when a performance check starts and when its timing ends. */
    std::function<std::optional<std::uint64_t>()> clock_events;
    /** @brief Before the lab's checks are registered: installs the sandbox, starts the grader's observer
     *  (grader/observer.hpp) with the graded code's own symbols, and only then loads the graded code. */
    std::function<Prepared(const RunnerOptions&)> prepare;
    /** @brief Around a profile target's run (a tool run): starts the runner's own launch log, and returns what it
     *  logged (JSON), which the runner prints authenticated for the launcher (grader/launcher.hpp). */
    std::function<void()> profile_begins;
    /** @brief See profile_begins. */
    std::function<nlohmann::json()> profile_launches;
    /** @brief Before each code check: lets the observer drop what earlier checks recorded. */
    std::function<void()> check_begins;
    /** @brief With --profile: runs @p evidence's target under Nsight Compute within @p timeout_s seconds and returns
     *  what it read, as the report's labs[].profile entries hold it (docs/report-schema.json). */
    std::function<nlohmann::json(const ProfileEvidence& evidence, int timeout_s)> profile;
    /** @brief Routes progress of the timing loops ("lab03 v3 vs cuBLAS (48/300 samples)") to @p sink. */
    std::function<void(std::function<void(const std::string&)> sink)> progress;
};

/** @brief Answers from a TOML file, flattened to dotted keys, with what went wrong reading them. */
struct AnswerSheet {
    nlohmann::json values = nlohmann::json::object();  ///< dotted key → value (string/number/bool/...)
    std::string parse_error;                           ///< "file:line:column: message" on a syntax error
    std::string file;                                  ///< the file read
    bool missing = false;                              ///< the file does not exist
};

/** @brief Reads an answers.toml; never throws (errors are recorded in the sheet). */
[[nodiscard]] AnswerSheet read_answer_sheet(const std::string& path);

/**
 * @brief The common slip a wrong numeric answer looks like, as a hint that does not print the key: binary
 * vs decimal units (KiB/KB, MiB/MB, GiB/GB), a factor of 2 (read only vs read + write, BF16 vs FP32
 * bytes), 8 (bits vs bytes), 100 (a percentage vs a fraction), or off by one (floor vs ceil). Empty when
 * the answer looks like none of them.
 * @param given the student's answer @param key the right answer @param rel_tol the question's tolerance
 */
[[nodiscard]] std::string slip_hint(double given, double key, double rel_tol);

/** @brief Grades one answer check against the sheet. */
[[nodiscard]] CheckResult grade_answer(const CheckDecl& decl, const AnswerDecl& answer, const AnswerSheet& sheet,
                                       const Context& ctx);

/**
 * @brief Runs the lab's checks of the given mode and sends everything through @p out.
 * @return the process exit code: 0 when the run completed (whatever the scores), 3 when it had to stop
 * (fatal CUDA error). (Bad options are runner_main()'s business: it exits 2 before a Lab exists.)
 */
int run_lab(const Lab& lab, const RunnerOptions& opts, const GpuHooks& gpu, Emitter& out);

/**
 * @brief main() of a runner executable: parses `--mode`, `--report-fd`/`--report`, `--answers`,
 * `--seed`, `--ceilings`, `--plan`, `--only`, builds the Lab with @p register_fn and runs it.
 */
int runner_main(int argc, char** argv, RunnerMode mode, void (*register_fn)(Lab&), const GpuHooks& gpu);

}  // namespace gpulab::grader
