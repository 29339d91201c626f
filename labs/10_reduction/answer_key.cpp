// FROZEN: do not edit. Lab 10's answer key: every value comes from the models (labs_models), none is stored. The
// chapter's own figures keep their keys (the split of [1024, 4096] into 8 segments; 1 + 2^-24 + 2^-24 in two orders);
// most points are on the cases answers.toml states and `grader --student ID` draws per student, and on one number
// measured on this GPU.
#include <cmath>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/reduction.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

models::SplitReduction split(std::int64_t rows, std::int64_t cols, std::int64_t segments) {
    return models::split_reduction({rows, cols, segments});
}

// The calculator's run for a split of [rows, cols] into `segments` (BF16).
CalcRun split_run(std::int64_t rows, std::int64_t cols, std::int64_t segments) {
    return {.model = "split-reduction",
            .params = {{"rows", std::to_string(rows)}, {"cols", std::to_string(cols)}, {"segments", std::to_string(segments)},
                       {"elem-bytes", "2"}}};
}

// FP32 sum of 1 and `tiny` copies of 2^-24, the 1 first or last, added left to right.
double one_and_tiny(int tiny, bool one_first) {
    std::vector<float> v(static_cast<std::size_t>(tiny), std::ldexp(1.0f, -24));
    if (one_first) v.insert(v.begin(), 1.0f);
    else v.push_back(1.0f);
    return models::fp32_sum_in_order(v);
}

}  // namespace

void register_answers(Lab& lab) {
    // The chapter's split: RMSNorm over [1024, 4096] BF16, one group per row against 8 segments per row.
    lab.number("split.one_group_mib", "One group per row: MiB read and written", 0.5, 0.005,
               [] { return models::to_mib(split(1024, 4096, 1).total_bytes); });
    lab.number("split.one_group_launches", "One group per row: kernel launches", 0.25, 0.0,
               [] { return double(split(1024, 4096, 1).launches); });
    lab.number("split.first_stage_tasks", "8 segments per row: first-stage tasks", 0.25, 0.0,
               [] { return double(split(1024, 4096, 8).first_stage_tasks); });
    lab.number("split.partial_sums_kib", "8 segments per row: KiB of FP32 partial sums", 0.25, 0.005,
               [] { return models::to_kib(split(1024, 4096, 8).partial_sums_bytes); });
    lab.number("split.scales_kib", "8 segments per row: KiB of FP32 scales", 0.25, 0.005,
               [] { return models::to_kib(split(1024, 4096, 8).scales_bytes); });
    lab.number("split.total_mib", "8 segments per row: MiB read and written", 0.5, 0.005,
               [] { return models::to_mib(split(1024, 4096, 8).total_bytes); });
    lab.number("split.launches", "8 segments per row: kernel launches", 0.25, 0.0,
               [] { return double(split(1024, 4096, 8).launches); });
    lab.number("split.row_fp32_kib", "A whole row held in FP32: KiB", 0.25, 0.005,
               [] { return models::to_kib(split(1024, 4096, 1).temp_per_task_bytes); });
    lab.number("split.segment_fp32_kib", "One segment of 8 held in FP32: KiB", 0.25, 0.005,
               [] { return models::to_kib(split(1024, 4096, 8).temp_per_task_bytes); });
    lab.number("order.merge_orders", "Orders in which 8 partial sums can be added one after another", 0.25, 0.0,
               [] { return double(models::merge_orders(8)); });
    // The two results differ by 2^-23 ≈ 1.2e-7 relative: the tolerance must tell them apart.
    lab.number("order.sum_large_first", "FP32: (1 + 2^-24) + 2^-24", 0.25, 1e-9, [] { return one_and_tiny(2, true); });
    lab.number("order.sum_small_first", "FP32: 1 + (2^-24 + 2^-24)", 0.25, 1e-9, [] { return one_and_tiny(2, false); });
    // `grader calc split-reduction` works these: at their inputs it shows the method, not the numbers.
    lab.graded_calc("split.*, order.merge_orders", split_run(1024, 4096, 8));
    lab.graded_calc("split.one_group_*", split_run(1024, 4096, 1));
    lab.choice("which.batch_dependent", "Which variant's output for a row can change with the number of rows in the batch?",
               {"rows", "split", "invariant", "atomic"}, 0.5, [] { return std::string("split"); });
    lab.choice("which.run_dependent", "Which variant's output can change from one run to the next on the same inputs?",
               {"rows", "split", "invariant", "atomic"}, 0.5, [] { return std::string("atomic"); });

    // Case "split": another matrix and segment count.
    lab.exercise_case("split", "RMSNorm over [rows, cols] BF16 (gamma BF16, FP32 partial sums and scales), each row cut into "
                               "`segments` segments",
                      {{"rows", 48, 1, 8192}, {"cols", 5120, 1024, 16384, 512}, {"segments", 10, 2, 16}});
    const auto case_split = [](const CaseValues& v) { return split(v.at("rows"), v.at("cols"), v.at("segments")); };
    lab.number_for_case("split", "split.case.first_stage_tasks", "First-stage tasks", 1, 0.0,
                        [=](const CaseValues& v) { return double(case_split(v).first_stage_tasks); });
    lab.number_for_case("split", "split.case.total_mib", "MiB read and written by the three stages", 2, 0.005,
                        [=](const CaseValues& v) { return models::to_mib(case_split(v).total_bytes); });
    lab.number_for_case("split", "split.case.extra_mib", "MiB more than one group per row moves", 2, 0.005, [=](const CaseValues& v) {
        return models::to_mib(case_split(v).total_bytes - split(v.at("rows"), v.at("cols"), 1).total_bytes);
    });
    lab.number_for_case("split", "split.case.segment_fp32_kib", "One segment held in FP32: KiB", 1, 0.005,
                        [=](const CaseValues& v) { return models::to_kib(case_split(v).temp_per_task_bytes); });

    // Case "order": 1 and `tiny` copies of 2^-24.
    lab.exercise_case("order", "1 and `tiny` copies of 2^-24, added left to right in FP32 (round to nearest, ties to even)",
                      {{"tiny", 5, 3, 999}});
    lab.number_for_case("order", "order.case.one_first_below_exact", "The 1 first, then the copies: ULPs of 1 (2^-23) below the exact sum",
                        1, 0.0, [](const CaseValues& v) {
                            const int tiny = int(v.at("tiny"));
                            return (1.0 + tiny * std::ldexp(1.0, -24) - one_and_tiny(tiny, true)) / std::ldexp(1.0, -23);
                        });
    lab.number_for_case("order", "order.case.one_last", "The copies first, then the 1: the FP32 sum", 2, 1e-9,
                        [](const CaseValues& v) { return one_and_tiny(int(v.at("tiny")), false); });
    lab.number_for_case("order", "order.case.ulps_apart", "How many ULPs of 1 (2^-23) apart the two sums are", 1, 0.0,
                        [](const CaseValues& v) {
                            const int tiny = int(v.at("tiny"));
                            return (one_and_tiny(tiny, false) - one_and_tiny(tiny, true)) / std::ldexp(1.0, -23);
                        });

    // Case "bound": the longest chain of roundings, one segment against several, and the best segment count.
    lab.exercise_case("bound", "the sum of squares of a row of n BF16 values in FP32, each segment added left to right and then "
                               "the segments' sums left to right",
                      {{"n", 6144, 1024, 65536, 64}, {"segments", 12, 2, 64}});
    lab.number_for_case("bound", "bound.case.one_segment_roundings", "Roundings on the longest chain, one segment", 1, 0.0,
                        [](const CaseValues& v) { return double(models::longest_rounding_path(v.at("n"), 1)); });
    lab.number_for_case("bound", "bound.case.segments_roundings", "Roundings on the longest chain, `segments` segments", 2, 0.0,
                        [](const CaseValues& v) { return double(models::longest_rounding_path(v.at("n"), v.at("segments"))); });
    lab.number_for_case("bound", "bound.case.best_segments", "The fewest segments that make the longest chain shortest", 2, 0.0,
                        [](const CaseValues& v) { return double(models::best_segment_count(v.at("n"))); });
    // The chains depend on the row's length and the segments alone: any rows.
    lab.graded_calc_for_case("bound", "bound.case.*", [](const CaseValues& v) {
        return CalcRun{.model = "split-reduction", .params = {{"cols", std::to_string(v.at("n"))}, {"segments", std::to_string(v.at("segments"))}}};
    });
    lab.number_for_case("bound", "bound.case.relative_bound", "The worst relative error with `segments` segments (γ of the chain)",
                        1, 0.01, [](const CaseValues& v) {
                            return models::fp32_error_bound(models::longest_rounding_path(v.at("n"), v.at("segments")));
                        });

    lab.graded_calc_for_case("split", "split.case.*", [](const CaseValues& v) {
        return split_run(v.at("rows"), v.at("cols"), v.at("segments"));
    });
    lab.number_for_case("split", "split.case.merge_orders", "Orders of adding a row's partial sums one after another", 1, 0.0,
                        [](const CaseValues& v) { return double(models::merge_orders(int(v.at("segments")))); });
    lab.number_for_case("split", "split.case.tree_depth", "Levels of a pairwise (tree) merge of a row's partial sums", 1, 0.0,
                        [](const CaseValues& v) { return double(models::pairwise_merge_depth(v.at("segments"))); });

    // Measured: the byte model's time for (a) at the chapter's shape, at this GPU's copy bandwidth.
    lab.number_measured("measured.rows_m1024_us",
                        "On this GPU: the byte model's time in µs for one group per row at [1024, 4096] (x read, y written, "
                        "gamma read once, the scales written) at the measured D2D copy bandwidth (read + write)",
                        1.5, 0.05, [](const Context& ctx) {
                            const double bytes = 2.0 * 1024 * 4096 * 2 + 4096 * 2 + 1024 * 4;
                            const double gbps = ctx.ceiling("d2d_copy_gbps").value_or(0);
                            return gbps > 0 ? bytes / (gbps * 1e3) : 0.0;
                        });
}
