/**
 * @file reduction.hpp
 * @brief Splitting a row reduction (RMSNorm) into segments: more parallel tasks and smaller
 * temporaries for the price of re-reading the input and a merge step; and why the merge order
 * changes an FP32 result (section 5.2.4).
 *
 * @code
 * using namespace gpulab::models;
 * to_mib(split_reduction({1024, 4096, 1}).total_bytes);   // 24
 * to_mib(split_reduction({1024, 4096, 8}).total_bytes);   // ≈ 32.1, in 3 launches
 * @endcode
 */
#pragma once

#include <cstdint>
#include <span>

namespace gpulab::models {

/** @brief RMSNorm over [rows, cols] with each row's sum of squares split into segments. */
struct SplitReductionInput {
    std::int64_t rows = 1024;   ///< rows (tokens)
    std::int64_t cols = 4096;   ///< elements per row
    std::int64_t segments = 1;  ///< segments per row (1: one task per row)
    int elem_bytes = 2;         ///< bytes per input, gamma and output element (BF16)
    int partial_bytes = 4;      ///< bytes per partial sum and per row scale (FP32)
};

/** @brief Tasks, launches, temporaries and traffic of a split reduction. */
struct SplitReduction {
    std::int64_t first_stage_tasks = 0;  ///< rows · segments
    int launches = 0;                    ///< 1 unsplit; 3 split (partial sums, merge, normalise)
    double temp_per_task_bytes = 0;      ///< one task's slice of a row held in FP32
    double partial_sums_bytes = 0;       ///< rows · segments partial sums (0 unsplit)
    double scales_bytes = 0;             ///< one scale per row (0 unsplit)
    double input_bytes = 0;              ///< the input, read once
    double gamma_bytes = 0;              ///< gamma, read once per row
    double output_bytes = 0;             ///< the output, written once
    double reread_bytes = 0;             ///< split: the input read again to normalise
    double total_bytes = 0;              ///< everything: input, gamma, output, re-read, partials and scales written and read
};

/** @brief Traffic and tasks of @p in. @param in the inputs @throws std::invalid_argument for sizes < 1 */
[[nodiscard]] SplitReduction split_reduction(const SplitReductionInput& in);

/** @brief FP32 sum of @p values added left to right, rounding after every addition. @param values the addends */
[[nodiscard]] float fp32_sum_in_order(std::span<const float> values);

/**
 * @brief How many different FP32 sums the n! orders of adding @p values give (n ≤ 10).
 * @param values the addends (e.g. a row's partial sums)
 */
[[nodiscard]] int distinct_fp32_sums_over_orders(std::span<const float> values);

/**
 * @brief The most FP32 roundings any one addend passes through when @p n values are added in @p segments segments of
 * ⌈n / segments⌉ (each left to right), whose partial sums are then added left to right: (⌈n / S⌉ − 1) + (S − 1); with
 * one segment, n − 1. Each rounding errs by at most u = 2^-24 relative, so the sum of n non-negative values errs by at
 * most γ(k) = k·u / (1 − k·u) relative for this k (fp32_error_bound()).
 * @param n values @param segments segments (1 … n) @throws std::invalid_argument outside those ranges
 */
[[nodiscard]] std::int64_t longest_rounding_path(std::int64_t n, std::int64_t segments);

/** @brief The smallest segment count that minimises longest_rounding_path() for @p n values. @param n values (≥ 1) */
[[nodiscard]] std::int64_t best_segment_count(std::int64_t n);

/** @brief γ(k) = k·u / (1 − k·u), u = 2^-24: the worst relative error of a sum of non-negative FP32 values in which no
 *  addend passes through more than @p roundings roundings. @param roundings k ≥ 0 */
[[nodiscard]] double fp32_error_bound(std::int64_t roundings);

/** @brief Orders in which @p partials partial sums can be added one after another: partials!. @param partials ≤ 20 */
[[nodiscard]] std::int64_t merge_orders(int partials);

/** @brief Levels of a pairwise (tree) merge of @p partials partial sums: ⌈log2 partials⌉. @param partials ≥ 1 */
[[nodiscard]] int pairwise_merge_depth(std::int64_t partials);

}  // namespace gpulab::models
