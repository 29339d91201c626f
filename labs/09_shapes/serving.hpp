/**
 * @file serving.hpp
 * @brief Lab 09's serving loop, priced: the buckets, the cost grid and the sums that perf.policy_* (checks.cu)
 * and the bench's serve/ runs (bench.cu) share, so that the two price and estimate alike. Host code only.
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <vector>

#include "shapes.hpp"

namespace lab09 {

/** @brief The buckets the checks and the bench pass to launch_gemm_bucketed (ascending). */
inline const std::vector<int> kBuckets{16, 64, 256, 512, 1024, 2048, 4096};
/** @brief The row counts at which the costs are measured; every bucket is among them. */
inline const std::vector<int> kCostGrid{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
/** @brief The calls of a trace that are served (its first ones). */
constexpr int kServeCalls = 200;
/** @brief The estimate of calls to come assumes this many calls of other M before the first. */
constexpr int kPriorCalls = 16;

/** @brief The smallest bucket that holds @p m, or @p m when none does. */
inline int bucket_of(int m) {
    for (const int b : kBuckets)
        if (b >= m) return b;
    return m;
}

/**
 * @brief The costs of one call of @p m from @p grid (one entry per kCostGrid row count): a bucketed call costs its
 * bucket's time; a generic or specialised one the time interpolated between the grid's neighbours of @p m; P as
 * the grid holds it.
 */
inline std::array<StrategyCost, 3> costs_for(const std::vector<std::array<StrategyCost, 3>>& grid, int m) {
    const auto at = [](int rows) {
        return std::size_t(std::lower_bound(kCostGrid.begin(), kCostGrid.end(), rows) - kCostGrid.begin());
    };
    const std::size_t hi = std::min(at(m), kCostGrid.size() - 1), lo = hi == 0 ? 0 : hi - 1;
    const double f = kCostGrid[hi] == kCostGrid[lo]
                         ? 1.0
                         : std::clamp(double(m - kCostGrid[lo]) / double(kCostGrid[hi] - kCostGrid[lo]), 0.0, 1.0);
    std::array<StrategyCost, 3> c = grid[hi];
    for (const std::size_t k : {std::size_t(0), std::size_t(2)})
        c[k].call_ms = grid[lo][k].call_ms + f * (grid[hi][k].call_ms - grid[lo][k].call_ms);
    c[1].call_ms = grid[std::min(at(bucket_of(m)), kCostGrid.size() - 1)][1].call_ms;
    return c;
}

/**
 * @brief The calls of one M still to come, this one included, that the loop passes to choose_strategy() before
 * call @p i (from 0) of @p calls: M's share of the earlier calls (@p seen counts this one too, so seen − 1 of
 * them), with kPriorCalls calls of other M assumed before the first, times the calls left, plus this one. A
 * first sight predicts no repeat. (A first version counted this call in the share: at call 0 it predicted the
 * first M for all the calls left, and the policy compiled a program that ran once.)
 */
inline double expected_calls(int seen, std::size_t i, std::size_t calls) {
    return 1.0 + double(calls - i - 1) * double(seen - 1) / double(double(i) + kPriorCalls);
}

/** @brief The least time @p grid's costs allow for @p trace with every M's count known ahead: the sum over M of
 *  the least P + count·T. */
inline double hindsight_ms(const std::vector<int>& trace, const std::vector<std::array<StrategyCost, 3>>& grid) {
    std::map<int, int> counts;
    for (const int m : trace) ++counts[m];
    double total = 0;
    for (const auto& [m, count] : counts) {
        double best = 1e300;
        for (const StrategyCost& k : costs_for(grid, m)) best = std::min(best, k.prep_ms + count * k.call_ms);
        total += best;
    }
    return total;
}

/** @brief What @p grid's costs say one fixed strategy (@p k: 0 generic, 1 bucketed, 2 specialised) takes for
 *  @p trace: the sum over M of P (once per M) + count·T. */
inline double fixed_strategy_ms(const std::vector<int>& trace, const std::vector<std::array<StrategyCost, 3>>& grid, int k) {
    std::map<int, int> counts;
    for (const int m : trace) ++counts[m];
    double total = 0;
    for (const auto& [m, count] : counts) {
        const StrategyCost c = costs_for(grid, m)[std::size_t(k)];
        total += c.prep_ms + count * c.call_ms;
    }
    return total;
}

}  // namespace lab09
