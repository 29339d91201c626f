/**
 * @file html_report.hpp
 * @brief The pages a person reads after a run: one self-contained HTML page per report (`grader --html FILE`,
 * `grader report REPORT.json --html FILE`, one per student in `grader batch`) and a class page from a gradebook
 * (`grader report --class GRADEBOOK.json --html FILE`, `grader batch`'s class.html).
 *
 * Every picture is drawn from the run's own numbers as inline SVG; nothing is fetched (no script, no font, no
 * image from the network), so a page opens from disk in any browser and can be mailed or archived as one file.
 *
 * A student's page: the run (GPU, seed, points), the ceilings this run measured, and per lab its checks (status,
 * measured, target, message, hint). Each performance check that ran gets its picture:
 *  - a **roofline** when the check's work model (details.work_model: the rates, in its time, of the bytes and FLOPs
 *    the work must move and do, which the runner records from the check's floor) has FLOPs: the copy-bandwidth roof and the BF16 tensor
 *    or FP32 FMA roof measured in this run, the graded code placed by its arithmetic intensity and its measured
 *    time, the baseline (timed alone) beside it;
 *  - a **bandwidth gauge** when the work model has bytes only: the bytes over the measured time against the copy
 *    ceiling (or, for host traffic, the pinned link);
 *  - the **timings** the check took (median and quartiles of each), always.
 * Where a picture cannot be drawn, the page says why (no GPU, the check skipped, no work model).
 * Labs 01, 03, 04, 05, 06, 07, 08 and 09 also get a picture of their own from their checks' data (the pipeline's
 * schedule, TFLOP/s per GEMM version, the bank conflicts per layout, peak memory per fusion, the stages against the
 * bound, the attention's extra memory, host and device per step, P + r·T and its crossover); docs/grading.md, "Reports". With `grader --profile`, each lab's evidence from Nsight Compute
 * (labs[].profile: the counters its declared ProfileEvidence reads, per kernel) follows its checks.
 *
 * The class page: per lab and check, the distribution of points; per performance check, each student's ratio
 * with the interval its timings allow and a rank that respects it (students whose intervals overlap share a
 * rank); the calibration per GPU; the flags with their reasons.
 */
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace gpulab::grader {

/**
 * @brief One student's page from a report (docs/report-schema.json), as `to_json()` writes it or as read back
 * from a saved report.
 * @param report the report
 * @param source where it came from, said at the top ("this run", or the saved report's path)
 * @param reference the reference solution's ratios on the same GPU (reference_ratios()), or an empty object
 */
[[nodiscard]] std::string report_html(const nlohmann::json& report, const std::string& source,
                                      const nlohmann::json& reference = nlohmann::json::object());

/**
 * @brief The reference solution's ratios on the GPU that graded @p report, from a gradebook's calibration (`grader
 * batch --calibrate`): {"LAB/CHECK": ratio} from the calibration entry with the report's GPU fingerprint; empty when
 * there is none. On the student's page each roofline and gauge then places the reference beside the student's code:
 * every graded ratio is its yardstick's time over the code's, so the reference's time is the code's × ratio / its ratio.
 */
[[nodiscard]] nlohmann::json reference_ratios(const nlohmann::json& gradebook, const nlohmann::json& report);

/**
 * @brief The class page from a gradebook (docs/gradebook-schema.json). Each graded student's report is read from
 * @p gradebook_dir / row.report for the per-check points and ratios; a report that cannot be read is named on
 * the page, and its student is counted by the lab points alone.
 * @param gradebook the gradebook
 * @param gradebook_dir the folder the gradebook's relative paths start from
 */
[[nodiscard]] std::string class_html(const nlohmann::json& gradebook, const std::string& gradebook_dir);

/**
 * @brief The relative interval [lo, hi] a performance check's ratio is known to: the ratio widened by the sum
 * of the relative confidence half-widths (rel_ci) of the timings its details hold (the graded code's and its
 * yardstick's); by 2% (the timing protocol's target for two timings) when the details hold none.
 * @return {lo, hi}; {0, 0} when the check has no ratio
 */
[[nodiscard]] std::pair<double, double> ratio_interval(const nlohmann::json& check);

}  // namespace gpulab::grader
