/**
 * @file plausibility.hpp
 * @brief Plausibility floors: what no performance check's work can beat on this GPU, from the ceilings the
 * grader measured in the run (in a process with no graded code).
 *
 * A performance check declares what its work must cost at the least (Floor, grader/lab.hpp): bytes through device
 * memory, FLOPs (on tensor cores or FP32 FMA), bytes over the host link, a lower bound measured in the same run,
 * and/or the largest ratio it can reach. Each becomes a time from the run's ceilings, with a headroom that no
 * honest kernel reaches (a kernel can beat cudaMemcpy a little, and cuBLAS does not reach the tensor cores'
 * peak):
 *
 * | floor | time | headroom |
 * |---|---|---|
 * | bytes | bytes / D2D copy bandwidth | the copy × 1.15 (above the H200's datasheet 4.8 TB/s) |
 * | tensor FLOPs | FLOPs / cuBLAS BF16 rate | cuBLAS × 1.35 (cuBLAS reaches 0.78–0.82 of the datasheet peak) |
 * | FP32 FLOPs | FLOPs / FP32 FMA rate | the FMA rate × 1.15 |
 * | host bytes | bytes / the faster pinned transfer | × 1.15 |
 * | measured bound | as measured | × 0.9 (its own noise) |
 *
 * The largest of them is the floor; a median time below it, or a ratio above max_ratio, is SUSPICIOUS.
 */
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "grader/lab.hpp"

namespace gpulab::grader {

inline constexpr double kCopyHeadroom = 1.15;     ///< a kernel may beat the measured copy by this much
inline constexpr double kTensorHeadroom = 1.35;   ///< the tensor cores' peak over cuBLAS's measured rate
inline constexpr double kFmaHeadroom = 1.15;      ///< the FMA peak over its measured rate
inline constexpr double kHostHeadroom = 1.15;     ///< the host link over its measured pinned rate
inline constexpr double kMeasuredBoundSlack = 0.9;  ///< a bound measured in the run holds within its noise

/** @brief What judge_floor() found: why the result is implausible ("" when it is not), and the floor's parts. */
struct PlausibilityVerdict {
    std::string why;       ///< e.g. "0.21 ms is below the floor of 0.56 ms (7.2e14 tensor FLOPs at 1300 TFLOP/s)"
    nlohmann::json details;  ///< floor_ms and each part of it
};

/**
 * @brief Judges a performance result against its declared floor and this run's ceilings. A part whose ceiling
 * was not measured is left out (and named in the details). Pure: no GPU needed.
 * @param p the check's result (time_ms, ratio, floor) @param ceilings the run's ceilings (Context::ceilings)
 */
[[nodiscard]] PlausibilityVerdict judge_floor(const PerfResult& p, const nlohmann::json& ceilings);

}  // namespace gpulab::grader
