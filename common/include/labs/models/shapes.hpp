/**
 * @file shapes.hpp
 * @brief Dynamic shapes and one-off costs: padding to buckets, total time P + r·T of generic,
 * bucketed and specialised programs and where one overtakes another, the call mix at which a new
 * kernel pays (Example 5-9), and how many calls pay back an autotuning search (sections 5.1.4,
 * 5.4.6, 5.5.3, Example 5-12).
 *
 * @code
 * using namespace gpulab::models;
 * const ShapeStrategies s = shape_strategies({});         // Example 5-12 as the chapter states it
 * // s.padding.padded_rows == 8192, s.generic_to_bucketed == 65, s.bucketed_to_specialized == 90
 * total_time_ms(s.strategies[1], 70);                      // ≈ 1266 ms (1.27 s)
 * @endcode
 */
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpulab::models {

/** @brief Rows actually computed when every call is padded up to a bucket. */
struct BucketPadding {
    std::int64_t actual_rows = 0;   ///< sum of the calls' rows
    std::int64_t padded_rows = 0;   ///< sum of their buckets
    double overhead_fraction = 0;   ///< padded / actual − 1
    std::vector<std::int64_t> bucket_of_call;  ///< the bucket each call is padded to
};

/**
 * @brief Pads each call to the smallest bucket holding it.
 * @param rows rows of each call @param buckets bucket sizes (any order)
 * @throws std::invalid_argument when a call exceeds the largest bucket
 */
[[nodiscard]] BucketPadding bucket_padding(std::span<const std::int64_t> rows, std::span<const std::int64_t> buckets);

/** @brief A way to run a repeated group of calls: one-off preparation P, then T per group. */
struct Strategy {
    std::string name;       ///< e.g. "bucketed"
    double prep_ms = 0;     ///< P: compile, tune, plan
    double group_ms = 0;    ///< T: one run of the group
};

/** @brief P + r·T. @param s the strategy @param groups r */
[[nodiscard]] double total_time_ms(const Strategy& s, double groups);

/**
 * @brief The fewest groups after which @p later (more preparation, faster groups) is strictly faster
 * in total than @p earlier; nullopt when it never is.
 * @param earlier the strategy with less preparation @param later the one with more
 */
[[nodiscard]] std::optional<std::int64_t> crossover_groups(const Strategy& earlier, const Strategy& later);

/** @brief A run of group counts over which one strategy is fastest. */
struct BestRange {
    std::string strategy;     ///< its name
    std::int64_t first = 0;   ///< first group count
    std::int64_t last = 0;    ///< last group count (inclusive)
};

/**
 * @brief Which strategy has the least total time for each group count 1..@p max_groups, as ranges
 * (ties go to the earlier strategy in the list).
 * @param strategies the candidates @param max_groups the largest count considered
 */
[[nodiscard]] std::vector<BestRange> best_strategy_ranges(std::span<const Strategy> strategies, std::int64_t max_groups);

/** @brief Example 5-12's inputs (defaults: as the chapter states them). */
struct ShapeStrategiesInput {
    std::vector<std::int64_t> rows{256, 256, 256, 256, 256, 256, 256, 256, 1536, 2048};  ///< rows of the group's calls
    std::vector<std::int64_t> buckets{512, 2048};  ///< bucket sizes
    std::int64_t hidden = 4096;            ///< H
    std::int64_t ffn = 12288;              ///< F
    double generic_tflops = 100;           ///< generic program's rate
    double bucketed_tflops = 200;          ///< bucketed programs' rate
    double specialized_tflops = 250;       ///< specialised programs' rate
    double generic_prep_ms = 100;          ///< generic preparation
    double bucketed_prep_ms = 400;         ///< bucketed preparation
    double specialized_prep_ms = 900;      ///< specialised preparation
};

/** @brief Generic vs bucketed vs specialised for one repeated group of FFN calls. */
struct ShapeStrategies {
    BucketPadding padding;             ///< the bucketed program's padded rows
    double flop_per_row = 0;           ///< 6·H·F (three projections)
    std::array<Strategy, 3> strategies;  ///< generic, bucketed, specialized
    std::optional<std::int64_t> generic_to_bucketed;      ///< groups after which bucketed beats generic
    std::optional<std::int64_t> bucketed_to_specialized;  ///< groups after which specialized beats bucketed
    std::optional<std::int64_t> generic_to_specialized;   ///< groups after which specialized beats generic
};

/** @brief Example 5-12 for @p in. @param in the inputs */
[[nodiscard]] ShapeStrategies shape_strategies(const ShapeStrategiesInput& in);

/** @brief FLOP of one FFN row through the three projections: 6·H·F. @param hidden H @param ffn F */
[[nodiscard]] double ffn_flop_per_row(std::int64_t hidden, std::int64_t ffn);

/**
 * @brief Mean time per call when a fraction @p p_a of calls has shape A: p·t_a + (1 − p)·t_b.
 * @param p_a fraction of calls with shape A (0..1) @param t_a time for A @param t_b time for B
 */
[[nodiscard]] double mix_mean_time(double p_a, double t_a, double t_b);

/**
 * @brief The fraction of shape-A calls above which the new implementation is faster on average
 * (Example 5-9: old 10/10 µs, new 5/20 µs → 2/3); nullopt when the new one is never or always faster.
 * @param old_a old time for A @param old_b old time for B @param new_a new time for A @param new_b new time for B
 */
[[nodiscard]] std::optional<double> mix_break_even_fraction(double old_a, double old_b, double new_a, double new_b);

/** @brief Calls needed before an autotuning search pays back, and how long they take. */
struct Payback {
    double calls = 0;          ///< search time / saving per call
    double seconds = 0;        ///< calls / call rate
};

/**
 * @brief Calls after which @p search_s seconds of tuning are paid back by @p saving_us per call.
 * @param search_s search time, s @param saving_us saving per call, µs @param calls_per_s call rate
 */
[[nodiscard]] Payback autotune_payback(double search_s, double saving_us, double calls_per_s);

}  // namespace gpulab::models
