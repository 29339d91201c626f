/**
 * @file units.hpp
 * @brief Units and the two pieces of arithmetic every model shares: time to move bytes at a rate,
 * and the smallest count at which a per-unit saving pays back a fixed cost.
 *
 * Conventions of all models (units are part of every name):
 * - sizes in bytes; `_kib`, `_mib`, `_gib` are binary (2^10, 2^20, 2^30), `_kb`, `_mb` decimal;
 * - rates are decimal: 1 GB/s = 10^9 B/s, 1 TFLOP/s = 10^12 FLOP/s (as vendors and the chapter print them);
 * - times in microseconds (`_us`) unless the name says `_ns`, `_ms` or `_s`.
 */
#pragma once

#include <cstdint>

#include "labs/math.hpp"

namespace gpulab::models {

/** @brief Bytes in one gibibyte (2^30). */
inline constexpr double kGiB = 1024.0 * kMiB;
/** @brief Bytes per second in 1 GB/s. */
inline constexpr double kGBps = 1e9;
/** @brief FLOP per second in 1 TFLOP/s. */
inline constexpr double kTFLOPs = 1e12;

/** @brief Bytes → KiB. @param bytes a size in bytes */
[[nodiscard]] constexpr double to_kib(double bytes) noexcept { return bytes / kKiB; }
/** @brief Bytes → MiB. @param bytes a size in bytes */
[[nodiscard]] constexpr double to_mib(double bytes) noexcept { return bytes / kMiB; }
/** @brief Bytes → GiB. @param bytes a size in bytes */
[[nodiscard]] constexpr double to_gib(double bytes) noexcept { return bytes / kGiB; }

/**
 * @brief Time to move @p bytes at @p bandwidth_gbps: bytes / bandwidth, in µs.
 * @param bytes          bytes moved (count reads and writes separately when both use the link)
 * @param bandwidth_gbps rate in GB/s (> 0)
 */
[[nodiscard]] double transfer_time_us(double bytes, double bandwidth_gbps);

/**
 * @brief Time to execute @p flop at @p rate_tflops, in µs.
 * @param flop        floating-point operations
 * @param rate_tflops rate in TFLOP/s (> 0)
 */
[[nodiscard]] double compute_time_us(double flop, double rate_tflops);

/**
 * @brief The smallest whole count n ≥ 1 for which n · @p saving_per_unit strictly exceeds
 * @p fixed_cost: ⌊fixed / saving⌋ + 1 (1 when the fixed cost is not positive).
 *
 * Every break-even question of the chapter has this shape: a fused kernel's extra overhead against
 * the traffic it saves per row, a longer preparation against the time it saves per group, a search
 * against the time it saves per call. Both arguments use the same unit.
 * @param fixed_cost      the one-off cost to pay back
 * @param saving_per_unit what each unit (row, group, call) saves (> 0)
 * @throws std::invalid_argument when the saving is not positive (it never pays back)
 */
[[nodiscard]] std::int64_t first_count_exceeding(double fixed_cost, double saving_per_unit);

}  // namespace gpulab::models
