/**
 * @file gpu_checks.hpp
 * @brief Building blocks for a lab's GPU checks: turning a comparison into a correctness result, and
 * measuring the performance ratios the grader scores (fraction of copy bandwidth, speed-up over a
 * baseline), always measured interleaved in the same process.
 */
#pragma once

#include <cstddef>
#include <string>

#include "grader/lab.hpp"
#include "labs/compare.hpp"
#include "labs/timing.hpp"

namespace gpulab::grader {

/**
 * @brief A correctness result from a comparison report.
 * @param report what compare() found
 * @param what   what was compared, e.g. "c = a + b, n = 1000"
 */
[[nodiscard]] CorrectnessResult to_result(const CompareReport& report, const std::string& what);

/** @brief Default timing options for graded performance checks (L2 flushed, median stable to 1%). */
[[nodiscard]] TimingOptions grading_timing(const std::string& label);

/**
 * @brief Fraction of the device-to-device copy bandwidth that @p work reaches: @p work and a
 * cudaMemcpy moving the same number of bytes (bytes_moved / 2 copied = bytes_moved read + written) are
 * timed interleaved; the ratio is t_copy / t_work. The floor is bytes_moved at the theoretical DRAM
 * bandwidth (a faster time is physically impossible).
 * @param work        enqueues the graded code once
 * @param bytes_moved bytes the work must read plus write, at the least
 * @param label       NVTX label
 */
[[nodiscard]] PerfResult fraction_of_copy_bandwidth(const Enqueue& work, double bytes_moved, const std::string& label);

/**
 * @brief Speed-up of @p work over @p baseline, timed interleaved: t_baseline / t_work.
 * @param baseline    enqueues the lab's baseline once
 * @param work        enqueues the graded code once
 * @param floor_bytes bytes the work must move at the least (0: no floor)
 * @param label       NVTX label
 */
[[nodiscard]] PerfResult speedup_over(const Enqueue& baseline, const Enqueue& work, double floor_bytes,
                                      const std::string& label);

}  // namespace gpulab::grader
