/**
 * @file similarity.hpp
 * @brief Copying noticed: `grader similarity` (and `grader batch` after grading) compares, per lab, every pair
 * of submitted editable files, and each one against the reference solution and the course's own code, and flags
 * the pairs that share most of their code.
 *
 * The comparison is Dolos's (https://dolos.ugent.be: tree-sitter tokens, so comments, layout, identifiers and
 * literals do not count; k-gram fingerprints selected by winnowing), run by grader/similarity/similarity.mjs
 * under Node.js; the grader only gathers the files, reads the result and writes it into the gradebook. The
 * lab's untouched template is subtracted: code that is in the template matches nothing, so two untouched files
 * do not match. A pair is flagged SIMILAR when the larger of its two shares — the part of one file's code
 * (template left out) that is found in the other — reaches the flag share, or when one unbroken run of shared
 * code reaches the flag run (a block pasted into a file padded with other code). A flag changes no points: it says
 * what to read, side by side, in the pair's HTML page. It cannot prove copying (a short task leaves little room
 * to differ; two students may follow the same handout closely), and it does not see code that was rewritten
 * by hand or by a tool (docs/instructor.md, "Copying").
 *
 * The tool is optional: without Node.js or grader/similarity/node_modules (grader/similarity/install.sh), the
 * batch grades as before and says once that similarity was not run.
 */
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/batch.hpp"
#include "grader/orchestrator.hpp"

namespace gpulab::grader {

/**
 * @brief The flag share used when none is given: a pair is flagged when the student's share reaches it, or the
 * partner's does and the partner is not a file of the course. Set from the course (grader/similarity/README.md has
 * the measurements): the reference one defect away, or renamed and reordered, shares 0.70–1.00 with the reference;
 * solutions written independently of it (solutions/tests/independent/) 0.23–0.42; untouched templates 0.
 */
inline constexpr double kDefaultFlagShare = 0.6;

/**
 * @brief The flag run used when none is given: a pair is flagged, whatever its shares, when its longest run of
 * consecutive shared fingerprints (Dolos's longest fragment; a fingerprint is about nine syntax-tree tokens)
 * reaches it. Set from the course: files written apart from each other share runs of at most 35 (the reference
 * against its lab's baseline, the independent solutions against the reference), a function pasted from the
 * course 149; the smallest whole reference (lab 02) is a run of 78.
 */
inline constexpr int kDefaultFlagRun = 50;

/** @brief What to compare. */
struct SimilarityOptions {
    std::vector<BatchEntry> entries;        ///< the class's submissions (find_submissions())
    Registry registry;                      ///< the course: its source tree, the labs' files
    std::vector<LabEntry> labs;             ///< the labs to compare
    std::string out_dir;                    ///< OUT: the files and the report go to OUT/similarity/
    std::optional<double> flag_share;       ///< none: kDefaultFlagShare
    std::optional<int> flag_run;            ///< none: kDefaultFlagRun
    double timeout_s = 1800;                ///< the tool is stopped after this long (similarity then not run)
};

/** @brief One flagged pair, from one student's side (a pair of students gives one for each). */
struct SimilarPair {
    std::string lab;            ///< lab id ("07")
    std::string student;        ///< the student flagged
    std::string partner;        ///< the other student's id, "reference", or "course: PATH"
    double share = 0;           ///< the part of the student's code (template left out) found in the partner's
    double partner_share = 0;   ///< the part of the partner's code found in the student's
    int longest = 0;            ///< the longest unbroken run of shared code, in fingerprints
    std::vector<std::string> flagged_by;  ///< "share", "longest" (the run), or both
    std::string report;         ///< the side-by-side page, relative to OUT
};

/** @brief What a comparison found. */
struct SimilarityRun {
    bool ran = false;                   ///< false: not run (why_not says why)
    std::string why_not;                ///< why it was not run, or failed
    nlohmann::json tool;                ///< {"name", "version"} of the tool that compared
    double flag_share = kDefaultFlagShare;  ///< the flag share the pairs were flagged at
    int flag_run = kDefaultFlagRun;         ///< the flag run the pairs were flagged at
    std::string report;                 ///< the tool's full result (similarity.json), relative to OUT
    std::vector<SimilarPair> flagged;   ///< every flagged pair, per student side
};

/**
 * @brief Why the comparison cannot run here ("" when it can): no `node` on PATH, or the tool not installed
 * under @p source_dir/grader/similarity.
 */
[[nodiscard]] std::string similarity_unavailable(const std::string& source_dir);

/**
 * @brief Compares the class (see the file comment): copies each submission's editable code files into
 * OUT/similarity/files/ID/, writes the tool's manifest (per lab: the template to subtract; the students' files;
 * the reference solution where the course has it; the lab's other code files and the code of common/ as
 * "course: PATH"), runs the tool and reads its result.
 * A submission that cannot be read is left out (a line on stderr); its row has the ERROR flag already.
 */
[[nodiscard]] SimilarityRun run_similarity(const SimilarityOptions& options);

/**
 * @brief Writes a comparison into a gradebook (docs/gradebook-schema.json): the top-level `similarity` (ran,
 * why_not, tool, flag_share, flag_run, report), and per student row `similar` (lab, partner, share,
 * partner_share, longest, flagged_by, report) and the SIMILAR flag with one flag_details entry per pair. Any earlier SIMILAR entries are replaced;
 * points are not touched.
 */
void apply_similarity(nlohmann::json& gradebook, const SimilarityRun& run);

/**
 * @brief Says on stderr what a comparison found, prefixed with @p who ("grader batch: "): why it did not run (once), or
 * how many pairs were flagged and, for each, the student, the lab, the partner, the shares and the page.
 */
void report_similarity(const SimilarityRun& run, const std::string& who);

}  // namespace gpulab::grader
