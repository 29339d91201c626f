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
#include <set>
#include <stdexcept>
#include <string>
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
 * the grid holds it. (Taking the next grid point up instead would price a bucket of 4096, which costs what generic
 * does, and serve a 1150-row call from a bucket of 2048, slower than generic.)
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
 * first sight predicts no repeat. (Counting this call in the share would, at call 0, predict the first M for all
 * the calls left: the policy would compile a program that runs once.)
 */
inline double expected_calls(int seen, std::size_t i, std::size_t calls) {
    return 1.0 + double(calls - i - 1) * double(seen - 1) / double(double(i) + kPriorCalls);
}

/** @brief The sum over the distinct M of @p trace of @p cost(M's costs from @p grid, M's count in the trace). */
template <class Cost>
double sum_over_m(const std::vector<int>& trace, const std::vector<std::array<StrategyCost, 3>>& grid, Cost cost) {
    std::map<int, int> counts;
    for (const int m : trace) ++counts[m];
    double total = 0;
    for (const auto& [m, count] : counts) total += cost(costs_for(grid, m), count);
    return total;
}

/** @brief The least time @p grid's costs allow for @p trace with every M's count known ahead: the sum over M of
 *  the least P + count·T. */
inline double hindsight_ms(const std::vector<int>& trace, const std::vector<std::array<StrategyCost, 3>>& grid) {
    return sum_over_m(trace, grid, [](const std::array<StrategyCost, 3>& c, int count) {
        double best = 1e300;
        for (const StrategyCost& k : c) best = std::min(best, k.prep_ms + count * k.call_ms);
        return best;
    });
}

/** @brief What @p grid's costs say one fixed strategy (@p k: 0 generic, 1 bucketed, 2 specialised) takes for
 *  @p trace: the sum over M of P (once per M) + count·T. */
inline double fixed_strategy_ms(const std::vector<int>& trace, const std::vector<std::array<StrategyCost, 3>>& grid, int k) {
    return sum_over_m(trace, grid, [k](const std::array<StrategyCost, 3>& c, int count) {
        return c[std::size_t(k)].prep_ms + count * c[std::size_t(k)].call_ms;
    });
}

/**
 * @brief The serving loop's choice of strategy for each call of a trace, made alike by the checks and the bench: a
 * fixed strategy, or (fixed < 0) your choose_strategy() with the call's costs (P counted as 0 once its M has been
 * specialised) and the calls of its M expected still to come (expected_calls()).
 */
class StrategyChooser {
public:
    /** @param fixed 0 generic, 1 bucketed, 2 specialised, or −1: the policy */
    explicit StrategyChooser(int fixed) : fixed_(fixed) {}

    /**
     * @brief The strategy of call @p i of @p trace (calls asked for in order, each once), priced from @p grid.
     * @throws std::runtime_error when choose_strategy() returns something other than 0, 1 or 2
     */
    int next(const std::vector<int>& trace, std::size_t i, const std::vector<std::array<StrategyCost, 3>>& grid) {
        const int m = trace[i];
        int k = fixed_;
        if (fixed_ < 0) {
            const double expected = expected_calls(++seen_[m], i, trace.size());
            std::array<StrategyCost, 3> c = costs_for(grid, m);
            if (compiled_.count(m)) c[2].prep_ms = 0;
            k = choose_strategy(c, expected);
            if (k < 0 || k > 2) throw std::runtime_error("choose_strategy returned " + std::to_string(k) + ", not 0, 1 or 2");
        }
        if (k == 2) compiled_.insert(m);
        return k;
    }

private:
    int fixed_;
    std::map<int, int> seen_;  // calls of each M so far, this one included
    std::set<int> compiled_;   // the M specialised so far
};

}  // namespace lab09
