/**
 * @file report.hpp
 * @brief A grading run's report: console table, JSON (schema in docs/report-schema.json) and JUnit XML.
 */
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/orchestrator.hpp"

namespace gpulab::grader {

/** @brief Version of the JSON report format; bumped on any incompatible change. */
inline constexpr int kReportSchemaVersion = 2;

/** @brief The grader's version (the project's, from CMake), as `grader --version` and the gradebook give it. */
[[nodiscard]] std::string grader_version();

/** @brief Points as the reports write them: at most three decimals, trailing zeros dropped (5, 1.25, 2.375). */
[[nodiscard]] std::string format_points(double points);

/**
 * @brief Text made safe inside XML or HTML, in an element or a quoted attribute: & < > " ' as entities, other
 * control characters but newline and tab as spaces.
 */
[[nodiscard]] std::string markup_escape(const std::string& text);

/** @brief One CSV field, quoted as RFC 4180 says when it holds a comma, a quote or a line break. */
[[nodiscard]] std::string csv_field(const std::string& field);

/** @brief Now, in UTC, as ISO 8601 ("2026-11-30T14:05:09Z"). */
[[nodiscard]] std::string utc_now_iso8601();

/** @brief Everything a grading run produced. */
struct RunReport {
    std::string implementation;     ///< whose code: "student", "solution" or "submission"
    std::uint64_t seed = 0;         ///< seed of the run
    std::string started_at;         ///< ISO 8601, UTC
    bool gpu_available = false;     ///< a CUDA device answered
    std::string no_gpu_reason;      ///< why not
    nlohmann::json fingerprint;     ///< device, driver, clocks, temperature (null without a GPU)
    nlohmann::json ceilings;        ///< ceilings measured in this run (null without a GPU)
    std::vector<LabResult> labs;    ///< graded labs in order
    nlohmann::json submission;      ///< with `--submission`: what was staged and ignored (null otherwise)
    nlohmann::json student;         ///< with `--student`: {id, course_seed} (null otherwise)

    /** @brief Points scored over all labs. */
    [[nodiscard]] double points() const;
    /** @brief Points possible over all labs. */
    [[nodiscard]] double max_points() const;
    /** @brief Points of checks skipped for lack of a GPU. */
    [[nodiscard]] double pending_points() const;
    /** @brief True when every check ran and passed and no lab failed as a whole (nothing pending a GPU). */
    [[nodiscard]] bool all_passed() const;
    /** @brief True when every check that ran passed and no lab failed as a whole (skipped checks allowed):
     *  the exit code. */
    [[nodiscard]] bool all_that_ran_passed() const;
};

/** @brief The JSON report (see docs/report-schema.json). */
[[nodiscard]] nlohmann::json to_json(const RunReport& report);
/**
 * @brief Gradebook CSV: a header, then one row per check (implementation, seed, student, lab, check, kind,
 * status, points, max_points, measured, target, case) and one "total" row per lab. Fields are quoted as RFC 4180 says.
 */
[[nodiscard]] std::string to_csv(const RunReport& report);
/** @brief JUnit XML: one testsuite per lab, one testcase per check. */
[[nodiscard]] std::string to_junit(const RunReport& report);
/**
 * @brief Prints the human report: per lab a table (check, status, measured, target, points) with
 * failure reasons and hints below it, then totals.
 * @param out    where to print
 * @param report what to print
 * @param colour use ANSI colours (on a terminal)
 * @param verbose also print passing checks' messages
 */
void print_report(std::ostream& out, const RunReport& report, bool colour, bool verbose);

}  // namespace gpulab::grader
