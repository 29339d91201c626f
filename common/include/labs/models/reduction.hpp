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

}  // namespace gpulab::models
