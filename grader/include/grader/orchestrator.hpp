/**
 * @file orchestrator.hpp
 * @brief The grader's side: which labs exist (the registry), running each lab's runners as child
 * processes under a timeout, and turning whatever happened into check results with clear reasons.
 */
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/process.hpp"
#include "grader/protocol.hpp"

namespace gpulab::grader {

/** @brief What the build made of one implementation of a lab (the student's code, the solution, a staged
 *  submission): the code runner, the command that builds it, its objects and its answers. */
struct GradedTargets {
    std::vector<std::string> runner;   ///< argv prefix of the code runner (empty: not built, e.g. no solutions)
    std::vector<std::string> build;    ///< command that (re)builds the code runner
    std::vector<std::string> objects;  ///< its compiled objects (scanned by the code policy)
    std::string answers;               ///< its answers.toml ("" when there is none)
};

/** @brief One lab as the build registered it (see labs_add_lab in grader/cmake/LabsLab.cmake). */
struct LabEntry {
    std::string id;      ///< two digits, e.g. "05"
    std::string name;    ///< short name, e.g. "fusion"
    std::string title;   ///< one line
    std::string dir;     ///< lab folder relative to the source tree, e.g. "labs/05_fusion"
    std::vector<std::string> runner_answers;   ///< argv prefix of the answers runner
    std::vector<std::string> build_answers;    ///< command that (re)builds the answers runner ("" argv: none)
    double code_points = 0;                    ///< points of the code checks (used when none could run)
    std::vector<std::string> student_files;    ///< files the student edits
    GradedTargets student;                     ///< the student's code and answers, where the student edits them
    GradedTargets solution;                    ///< the solution (nothing in a student bundle)
    GradedTargets submission;                  ///< a staged submission (`grader --submission`, a batch's slot)
    std::string submission_dir;                ///< where `--submission` stages the editable files and answers
    std::vector<std::string> policy_deny;      ///< the lab's additions to the default code policy
    std::vector<std::string> policy_allow;     ///< the lab's exceptions to it
    /// `grader calc` models that can answer this lab's questions (labs_add_lab CALCULATORS); empty: all of them
    std::vector<std::string> calculators;
    std::vector<std::string> deps_command;     ///< prints an object's included headers when it is appended
    std::string build_dir;                     ///< the build tree (deps_command wants objects relative to it)
};

/** @brief All labs, and how to measure the ceilings. */
struct Registry {
    std::vector<LabEntry> labs;                 ///< in lab order
    std::vector<std::string> ceilings_command;  ///< prints the fingerprint and ceilings as JSON
    std::string source_dir;                     ///< project source tree
};

/** @brief Reads the registry JSON; throws std::runtime_error naming the file on any problem. */
[[nodiscard]] Registry load_registry(const std::string& path);

/**
 * @brief Picks labs by number ("5", "05"), name ("fusion") or folder ("05_fusion"); all labs when
 * @p selectors is empty. Throws std::invalid_argument listing the known labs for an unknown one.
 */
[[nodiscard]] std::vector<LabEntry> select_labs(const Registry& registry, const std::vector<std::string>& selectors);

/** @brief Results of one part (answers or code) of one lab. */
struct PartResult {
    std::vector<CheckResult> checks;    ///< one per planned check (synthesised when none could run)
    std::vector<std::string> warnings;  ///< e.g. unknown answer keys
    std::string failure;                ///< why the part failed as a whole ("" when it ran to the end)
    bool tampered = false;              ///< its report channel carried what the runner did not write
    std::string output_tail;            ///< the child's last output lines when it failed
    std::optional<bool> device_available;  ///< the code runner's "device" message: it found a CUDA device
    std::string no_device_reason;          ///< why not, when it did not
    std::string observer;                  ///< "cupti" when the grader's observer recorded, else why not
    std::string sandbox;                   ///< the sandbox that held: "seccomp+landlock", "seccomp only", ...
    std::vector<std::string> sandbox_notes;  ///< why a part of it did not hold
    double sandbox_ms = 0;                   ///< what installing it took
    nlohmann::json profile = nlohmann::json::array();  ///< with --profile: the lab's profiler evidence, as read
};

/**
 * @brief Turns a child's outcome into results: every planned check gets a result; checks the child
 * never reported become not_run with the reason (crash with signal, hang, exit code, lost CUDA
 * context, malformed or missing output).
 * @param outcome   what the child did
 * @param part      "answers" or "code", for messages
 * @param fallback_points points to give a single synthesised "did not run" check when no plan came
 * @param timeout_s the limit it ran under, for the message
 * @param plan_only the runner was asked for its plan alone (`--plan`): no result follows it
 */
[[nodiscard]] PartResult interpret(const ChildOutcome& outcome, const std::string& part, double fallback_points,
                                   double timeout_s, bool plan_only = false);

/** @brief Whose code to grade (a *variant*, by contrast, is a version of a kernel within a lab). */
enum class Implementation {
    student,     ///< the student's editable files, where they are
    solution,    ///< the solutions
    submission,  ///< a submission's editable files, staged by stage_submission()
};

/** @brief What the build made of @p lab for @p impl. */
[[nodiscard]] const GradedTargets& graded_targets(const LabEntry& lab, Implementation impl);

/** @brief How to grade. */
struct GradeOptions {
    Implementation implementation = Implementation::student;  ///< whose code to grade
    bool answers = true;                 ///< grade answers.toml
    bool code = true;                    ///< grade the code on the GPU
    bool build = true;                   ///< rebuild the runners first (reports compile errors)
    double timeout_s = 300;              ///< per child process
    bool verbose = false;                ///< echo children's output
    std::uint64_t seed = 0;              ///< seed passed to the code runners
    std::string ceilings_file;           ///< JSON with measured ceilings ("" when none)
    int retry_invalid = 0;               ///< regrade INVALID checks up to this many times (new process each)
    std::string only_checks;             ///< grade only these checks: ids or globs, comma-separated ("" : all)
    bool profile = false;                ///< after the checks, read each lab's profiler evidence (Nsight Compute)
    bool plan_only = false;              ///< ask the runners for their plans and grade nothing (the ids of the checks)
    std::string student;                 ///< student id: per-student exercise cases ("" : the stated cases)
    std::uint64_t course_seed = 0;       ///< the course's seed, which draws each student's cases
    /// Folders the graded code may not read besides the course's and the build tree (the runner hides those
    /// itself): a class's submissions and gradebook, a submission's own copy.
    std::vector<std::string> hidden_paths;
};

/** @brief A sum of points as reports show it: rounded to a millionth, so that adding fractional points does not
 *  leave 100.00000000000001 for a lab worth 100. */
[[nodiscard]] inline double tidy_points(double sum) { return std::round(sum * 1e6) / 1e6; }

/** @brief Everything graded for one lab. */
struct LabResult {
    std::string id;                      ///< lab id
    std::string name;                    ///< lab name
    std::string title;                   ///< lab title
    std::vector<CheckResult> checks;     ///< answers first, then code checks
    std::vector<std::string> notes;      ///< what went right that a student wants to know ("vector_add.cu compiled")
    std::vector<std::string> warnings;   ///< warnings from the runners
    std::vector<std::string> failures;   ///< part-level failures (compile error, crash, hang, ...)
    /// Whether the code runner found a CUDA device (its "device" message); empty when no code runner spoke.
    std::optional<bool> device_available;
    std::string no_device_reason;        ///< why not, when it did not
    std::string observer;                ///< the code runner's observer: "cupti", or why it did not record
    std::string sandbox;                 ///< the sandbox the graded code ran in ("seccomp+landlock", ..., "none")
    std::vector<std::string> sandbox_notes;  ///< why a part of it did not hold
    double sandbox_ms = 0;                   ///< what installing it took
    nlohmann::json profile = nlohmann::json::array();  ///< with --profile: its profiler evidence (report: labs[].profile)
    std::string output_tail;             ///< output of a failed child, for diagnosis
    double seconds = 0;                  ///< time spent on this lab

    /** @brief Points scored. */
    [[nodiscard]] double points() const;
    /** @brief Points possible. */
    [[nodiscard]] double max_points() const;
    /** @brief Points of skipped checks (pending a GPU). */
    [[nodiscard]] double pending_points() const;
};

/** @brief The first lines of compiler output that report errors (at most @p max_lines). */
[[nodiscard]] std::vector<std::string> first_error_lines(const std::string& output, std::size_t max_lines = 6);

/** @brief Grades one lab: builds and runs its runners as the options say. */
[[nodiscard]] LabResult grade_lab(const LabEntry& lab, const GradeOptions& opts);

}  // namespace gpulab::grader
