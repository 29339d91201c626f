/**
 * @file batch.hpp
 * @brief Grading a class: `grader batch` grades many submissions, each one as `grader --submission` grades
 * it, in parallel workers (one per GPU), with one seed for the class, and writes one gradebook.
 *
 * Each submission is graded by a child `grader --submission` process under a time limit, so that a
 * submission that fails, crashes or hangs never stops the batch. Worker K stages into build slot K (its
 * own staging folder and build targets, `LABS_BATCH_SLOTS` in CMake) and is pinned to its GPU with
 * CUDA_VISIBLE_DEVICES. Every result is written atomically (a temporary file, then a rename), and a record
 * beside each report holds the content hash of the files graded, so `--resume` grades again only what
 * changed or was never finished. The gradebook (CSV and JSON, docs/gradebook-schema.json) is written once
 * every submission has its result.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/orchestrator.hpp"

namespace gpulab::grader {

/** @brief Version of the gradebook JSON (docs/gradebook-schema.json); bumped on any incompatible change. */
inline constexpr int kGradebookSchemaVersion = 1;

/** @brief One submission of a class: whose, and where. */
struct BatchEntry {
    std::string student;  ///< the student id: the folder's name, or the archive's name without its extension
    std::string path;     ///< the directory, git repository or archive (absolute)
};

/**
 * @brief The student id a submission's path gives: its last name without an archive extension
 * ("class/alice.tar.gz" → "alice", "class/bob/" → "bob").
 */
[[nodiscard]] std::string student_id_of(const std::string& path);

/**
 * @brief Whether @p path is one submission (an archive, a git repository, or a folder with a `labs/`
 * folder) rather than a folder of submissions.
 */
[[nodiscard]] bool is_submission(const std::string& path);

/**
 * @brief The submissions @p args name, sorted by student id: each argument is a submission
 * (is_submission()) or a folder whose entries are submissions (its folders and archives; hidden entries
 * are passed over in silence, other files listed in @p passed_over).
 * @throws std::invalid_argument for a path that does not exist, two submissions with one student id, or
 *         no submission at all
 */
[[nodiscard]] std::vector<BatchEntry> find_submissions(const std::vector<std::string>& args,
                                                       std::vector<std::string>& passed_over);

/** @brief A gradebook flag: something about a submission an instructor should look at. */
struct Flag {
    std::string name;  ///< TAMPERED, POLICY, COMPILE_ERROR, HUNG, SUSPICIOUS, ANSWERS_SYNTAX, UNSTABLE or ERROR
    std::string lab;   ///< the lab it concerns ("" : the whole submission)
    std::string why;   ///< one line, from the report
};

/**
 * @brief The flags a grader report raises, read from the report's own facts (docs/instructor.md lists
 * them): TAMPERED (a check whose report channel was tampered with, or an edited frozen file of the course
 * among the submission's ignored files), POLICY (the code policy stopped a lab's code), COMPILE_ERROR (a
 * lab's code did not compile or link), HUNG (a lab process was killed at its time limit), SUSPICIOUS (a
 * check faster than physically possible), ANSWERS_SYNTAX (an answers.toml that does not parse), UNSTABLE (a
 * performance check with a fairness note: a timing that did not converge, a throttled GPU clock; one per
 * lab, every such check of it in the reason, "perf.x: note | perf.y: note"). Flags change no points. A
 * build slot's folder in a reason reads `batch-slots/K/`, whichever worker graded it.
 * @param report a report as `grader --json` writes it (docs/report-schema.json)
 */
[[nodiscard]] std::vector<Flag> report_flags(const nlohmann::json& report);

/** @brief How grading one submission of a batch ended, and where its files are. */
struct BatchResult {
    BatchEntry entry;            ///< whose
    std::string outcome;         ///< "graded" (a report), "hung" (killed at --timeout) or "error" (no report)
    std::string error;           ///< why there is no report ("" when graded)
    std::string content_hash;    ///< content_hash() of the files graded ("" when unknown)
    nlohmann::json report;       ///< the grader's report (null unless graded)
    double seconds = 0;          ///< wall time of its grading
    int worker = 0;              ///< the worker that graded it
    std::string gpu;             ///< the CUDA_VISIBLE_DEVICES it was graded under ("" : not pinned)
    std::string report_file;     ///< the JSON report, relative to the output folder ("" : none)
    std::string junit_file;      ///< the JUnit report, likewise
    std::string log_file;        ///< the grader's output, likewise
};

/** @brief What a gradebook says about the whole batch. */
struct GradebookInfo {
    std::uint64_t seed = 0;                  ///< the seed every submission was graded with
    std::uint64_t course_seed = 0;           ///< the course's seed (per-student exercise cases when not 0)
    std::string only = "all";                ///< what was graded (`--only`)
    std::vector<LabEntry> labs;              ///< the graded labs, in order
    /// The solutions graded on each GPU (`--calibrate`), as the gradebook lists them; empty: none.
    nlohmann::json calibration = nlohmann::json::array();
};

/**
 * @brief The gradebook as JSON (docs/gradebook-schema.json): the batch's seed, grader version and labs,
 * one row per student with per-lab points, totals, flags, the GPU it was graded on and its files, and the
 * calibration (GradebookInfo::calibration).
 * @param info    the batch
 * @param results one per submission, in the order the rows are to have
 */
[[nodiscard]] nlohmann::json gradebook_json(const GradebookInfo& info, const std::vector<BatchResult>& results);

/**
 * @brief The gradebook as CSV, from its JSON form: columns student, labNN_points per graded lab,
 * total_points, max_points, pending_points, flags (space-separated), seed, grader_version, gpu_fingerprint;
 * one row per student. Fields are quoted as RFC 4180 says.
 */
[[nodiscard]] std::string gradebook_csv(const nlohmann::json& gradebook);

/**
 * @brief The performance checks of a grader report (of the solutions, for a calibration), one
 * object each: lab, id, title, status, ratio (null when not timed), measured, points, max_points, pass_bar
 * and full_bar (null when not timed), fairness (its notes, grader/fairness.hpp).
 * @param report a report as `grader --json` writes it
 */
[[nodiscard]] nlohmann::json calibration_checks(const nlohmann::json& report);

/**
 * @brief calibration.csv from a gradebook's calibration: columns shard (I/N), host, cuda_visible_devices,
 * gpu_fingerprint, lab, check, status, ratio, points, max_points, pass_bar, full_bar, fairness (the notes,
 * "; "-separated); one row per performance check of each calibration, and one for a calibration without a
 * report (status hung or error, the error in the fairness column's place).
 */
[[nodiscard]] std::string calibration_csv(const nlohmann::json& gradebook);

/**
 * @brief For each performance check timed in more than one calibration: the lowest and highest ratio the
 * solutions reached, one line each ("lab 00 perf.bandwidth: the solutions' ratios 0.91 to 0.94 over 3
 * calibrations (3.3% apart)"). Checks not timed (SKIPPED, INVALID, a wrong result) are left out.
 * @param calibration a gradebook's calibration
 */
[[nodiscard]] std::vector<std::string> calibration_spread(const nlohmann::json& calibration);

/** @brief How to grade a class (`grader batch`'s options). */
struct BatchOptions {
    std::vector<BatchEntry> entries;      ///< the submissions (find_submissions())
    std::string registry_path;            ///< the course's lab registry (build/labs.json)
    std::vector<std::string> labs;        ///< lab selectors (empty: every lab)
    std::string out_dir;                  ///< where the reports, records and gradebook go
    std::string grader_exe;               ///< the grader run for each submission (this executable)
    int workers = 0;                      ///< parallel workers (0: one per GPU, or 2 without one)
    std::string gpus = "all";             ///< "all" (the visible GPUs) or CUDA_VISIBLE_DEVICES values, comma-separated
    std::optional<std::uint64_t> seed;    ///< the class's seed (none: --resume's earlier seed, else a fresh one)
    double timeout_s = 3600;              ///< per submission: its grader is stopped after this long (HUNG)
    double lab_timeout_s = 300;           ///< per lab process (the child grader's --timeout)
    bool resume = false;                  ///< pass over submissions whose result exists for the same files
    std::string only = "all";             ///< the child grader's --only
    int retry_invalid = 0;                ///< the child grader's --retry-invalid
    bool no_ceilings = false;             ///< the child grader's --no-ceilings
    std::uint64_t course_seed = 0;        ///< per-student exercise cases with the student ids when not 0
    int first_slot = 0;                   ///< worker K stages in build slot first_slot + K (batches sharing a build tree use disjoint slots)
    int shard_index = 0;                  ///< which shard of the class this batch grades (0-based; see select_shard())
    int shard_count = 1;                  ///< how many shards the class is split into (1: the whole class)
    std::vector<std::string> class_students;  ///< every student id of the class, all shards together (for batch.json)
    /// Before grading, each worker grades the solutions on its GPU (once per GPU; without a GPU,
    /// worker 0 once) and the gradebook records their performance checks (`calibration`).
    bool calibrate = false;
    /// After grading, compare the class's code for copying (grader/similarity.hpp); a shard does not (its
    /// gradebook says so): `grader similarity` compares the whole class once the shards are merged.
    bool similarity = true;
    std::optional<double> flag_share;     ///< the comparison's flag share (none: kDefaultFlagShare)
    std::optional<int> flag_run;          ///< the comparison's flag run (none: kDefaultFlagRun)
};

/** @brief One shard of a class: `--shard I/N`, 0-based (0 ≤ I < N). */
struct Shard {
    int index = 0;  ///< I
    int count = 1;  ///< N
};

/**
 * @brief Parses `--shard`'s value "I/N" (0-based: 0/3, 1/3 and 2/3 are a class's three shards).
 * @throws std::invalid_argument, saying why, for anything but two whole numbers with 0 ≤ I < N
 */
[[nodiscard]] Shard parse_shard(const std::string& text);

/**
 * @brief The submissions of shard @p shard: with @p entries sorted by student id (find_submissions()), the
 * k-th of them (0-based) belongs to shard k mod N (round robin). Every shard must be given the same
 * submissions for the shards to cover the class once.
 */
[[nodiscard]] std::vector<BatchEntry> select_shard(const std::vector<BatchEntry>& entries, Shard shard);

/**
 * @brief The folder shard @p shard of a batch writes to: `OUT/shard-I-of-N` for a class in more than one
 * shard (so shards on different machines writing to one shared OUT never touch each other's files), OUT
 * itself for a whole class.
 */
[[nodiscard]] std::string shard_out_dir(const std::string& out, Shard shard);

/**
 * @brief `grader gradebook merge`: joins the gradebooks of a class's shards (each folder as `grader batch
 * --shard` wrote it) into one gradebook.csv and gradebook.json in @p out, rows sorted by student id as
 * one batch of the whole class sorts them. The rows are made again from the per-student reports, so the
 * merged gradebook is the one a single batch would write, but for created_at, each row's seconds,
 * worker, cuda_visible_devices and file paths (report, junit, log: relative to @p out), and the calibration:
 * every shard's calibrations, one per node and GPU, by shard (their files' paths relative to @p out too);
 * calibration.csv beside the gradebook when there is one.
 * Refuses (writing nothing) shards graded with another seed, course seed, `--only`, grader version or
 * labs, or split in another number of shards or from another class; a shard missing or unfinished; and a
 * student missing from every shard or in more than one.
 * The whole class's code is then compared for copying, as one batch does it (grader/similarity.hpp; the course read
 * from @p registry_path), and the gradebook gets the SIMILAR flags.
 * @return 0 when the gradebook was written, 1 when refused (each reason on stderr), 2 for a usage error
 */
[[nodiscard]] int merge_gradebooks(const std::string& out, const std::vector<std::string>& shard_dirs,
                                   const std::string& registry_path);

/**
 * @brief Grades every submission and writes the gradebook (see the file comment). With
 * BatchOptions::calibrate, each worker first grades the solutions on its GPU (a child `grader
 * --solution`, recorded in OUT/calibration/HOST-gpu-G/; `--resume` reuses one recorded on this host and GPU
 * under the same settings); the gradebook's calibration lists every calibration recorded in OUT under the
 * batch's settings, and calibration.csv the same. A batch without --resume first drops OUT/calibration.
 * @return 0 when the gradebook was written (whatever the grades and flags), 2 for a usage error, 3 for a
 *         grader error, 130 when stopped by a signal before every submission had its result
 */
[[nodiscard]] int run_batch(const BatchOptions& options);

}  // namespace gpulab::grader
