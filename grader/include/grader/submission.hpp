/**
 * @file submission.hpp
 * @brief Grading someone's submission: only its editable files are used, on the course the grader was
 * built from.
 *
 * `grader --submission PATH` takes a directory, a git repository (graded at its HEAD commit: what was
 * committed is what was submitted) or an archive (.tar, .tar.gz, .tgz, .tar.xz, .zip). It copies each
 * lab's editable files and answers.toml (the ones `grader --list` names) into the build tree's staging
 * folder, and the lab is then built and graded there with the course's own checks, headers, baseline and
 * bars. Every other file of the submission that differs from the course is listed as ignored, and never
 * used: an edited checks.cu or a lowered bar changes nothing. An editable file that is a symbolic link is never
 * followed (it could name a file of the grading machine, such as the reference solution): it is missing, and the
 * template is graded.
 */
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/orchestrator.hpp"

namespace gpulab::grader {

/** @brief What staging a submission did. */
struct StagedSubmission {
    std::string path;                   ///< as given
    std::string source;                 ///< "directory", "archive", or "git HEAD <commit>"
    std::vector<nlohmann::json> used;   ///< {file, bytes, sha256} of each editable file staged
    std::vector<std::string> missing;   ///< editable files the submission lacks (the template is graded)
    std::vector<std::string> ignored;   ///< files that differ from the course and were not used
    std::size_t extra = 0;              ///< files the course does not have (not used either)
    std::string error;                  ///< why it could not be staged ("" when it was)
};

/** @brief JSON form (the report's "submission" member). */
void to_json(nlohmann::json& j, const StagedSubmission& s);

/**
 * @brief Stages @p path's editable files for @p labs into their staging folders (see the file comment).
 * @param path     the submission
 * @param registry the course (its source tree, and every lab's editable files)
 * @param labs     the labs to grade (their files are staged; other labs' editable files are not ignored,
 *                 just not graded)
 */
[[nodiscard]] StagedSubmission stage_submission(const std::string& path, const Registry& registry,
                                                const std::vector<LabEntry>& labs);

/**
 * @brief What @p path would stage for @p labs, without staging it: the submission is read (an archive
 * unpacked, a git repository's HEAD taken) and each graded file hashed. Fills `path`, `source`, `used`,
 * `missing` and `error` as stage_submission() does; `ignored` and `extra` stay empty.
 * @param path the submission
 * @param labs the labs whose editable files and answers.toml are looked at
 */
[[nodiscard]] StagedSubmission inspect_submission(const std::string& path, const std::vector<LabEntry>& labs);

/**
 * @brief Copies the editable code files of @p labs (each lab's student files; not answers.toml) that the
 * submission @p path has into @p dest, each at its path in the course (`dest/labs/07_attention/attention.cu`):
 * what `grader similarity` compares: the files stage_submission() stages. A file the submission lacks, or carries as
 * a symbolic link (never followed), is not copied: it is graded as the template.
 * @return "" when the submission could be read and its files copied, else why not
 */
[[nodiscard]] std::string copy_graded_code(const std::string& path, const std::vector<LabEntry>& labs,
                                           const std::string& dest);

/**
 * @brief One SHA-256 over what a submission is graded on: each graded file's name and SHA-256, and the
 * names of the missing ones (graded as templates), in a canonical order. Equal hashes: the same files.
 * @param used    `used` as StagedSubmission (and the report's "submission" member) holds it
 * @param missing `missing` likewise
 * @return 64 hex digits ("" when it could not be computed)
 */
[[nodiscard]] std::string content_hash(const nlohmann::json& used, const nlohmann::json& missing);

}  // namespace gpulab::grader
