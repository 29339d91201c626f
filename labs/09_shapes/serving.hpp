/**
 * @file serving.hpp
 * @brief Lab 09's serving loop, priced: the buckets, the cost grid, the graded trace drawn from the measured costs,
 * and the sums that perf.policy (checks.cu) and the bench's serve/ runs (bench.cu) share, so that the two draw,
 * choose and price alike. Host code only.
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "shapes.hpp"

namespace lab09 {

/** @brief The buckets the checks and the bench pass to launch_gemm_bucketed (ascending). */
inline const std::vector<int> kBuckets{16, 64, 256, 512, 1024, 2048, 4096};
/** @brief The row counts at which the costs are measured; every bucket the graded trace reaches is among them. */
inline const std::vector<int> kCostGrid{1, 8, 16, 32, 64, 128, 256, 512, 1024};

/** @brief The smallest bucket that holds @p m, or @p m when none does. */
inline int bucket_of(int m) {
    for (const int b : kBuckets)
        if (b >= m) return b;
    return m;
}

/** @brief The measured costs: per kCostGrid row count, generic, bucketed and specialised (P of specialised: the
 *  preparation of an M not compiled yet). */
using CostGrid = std::vector<std::array<StrategyCost, 3>>;

/**
 * @brief The costs of one call of @p m from @p grid (one entry per kCostGrid row count): a bucketed call costs its
 * bucket's time; a generic or specialised one the time interpolated between the grid's neighbours of @p m; P as
 * the grid holds it. (Taking the next grid point up instead would price a bucket of 1024, which costs what the
 * bucket costs, for a generic call of 600 rows.)
 */
inline std::array<StrategyCost, 3> costs_for(const CostGrid& grid, int m) {
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

/** @brief M's crossover: the calls after which specialising M (P + r·T) costs less than the cheaper of generic and
 *  bucketed (P = 0: r·T); infinity where a specialised call is not the cheapest. */
inline double crossover_calls(const CostGrid& grid, int m) {
    const std::array<StrategyCost, 3> c = costs_for(grid, m);
    const double saving = std::min(c[0].call_ms, c[1].call_ms) - c[2].call_ms;
    return saving > 0 ? c[2].prep_ms / saving : std::numeric_limits<double>::infinity();
}

/**
 * @brief The graded trace's mix. Decode shapes (M 1–6) come a multiple of their crossover's calls, so that the best
 * plan in hindsight specialises the hot one and the two above their crossover and leaves the two below it
 * unspecialised, whatever P and T measured; a policy whose crossover is off by 2× decides the four near it wrongly.
 * Warm shapes (just below the top of the buckets of 64 and 256, where a bucket's kernel beats the generic one) come
 * 10–30 times each; one-off shapes (just past the top of the buckets of 16 and 64, where the next bucket pads the
 * most) once each.
 */
struct TraceMix {
    static constexpr double kHot = 4.0;     ///< the hot decode shape (M 1–2): this many crossovers
    static constexpr double kAbove = 1.6;   ///< decode shapes above their crossover
    static constexpr double kBelow = 0.6;   ///< decode shapes below it
    static constexpr int kNear = 2;         ///< decode shapes on each side of the crossover
    static constexpr int kHotRows = 2;      ///< the hot shape's largest M
    static constexpr int kDecodeRows = 6;   ///< the other decode shapes' largest M
    static constexpr int kMaxCalls = 8000;  ///< calls of one shape at most (a crossover far out is not reached)
    /// Calls of a decode shape whose crossover is infinite (specialising never pays there): hot, above, below.
    static constexpr int kNoCrossover[3] = {400, 200, 40};
    /// Warm shapes: (lowest M, highest M) of each, drawn once; each comes 10–30 times.
    static constexpr std::pair<int, int> kWarm[4] = {{40, 64}, {40, 64}, {40, 64}, {232, 256}};
    /// One-off shapes: (lowest M, highest M, how many).
    static constexpr std::array<int, 3> kOneOff[2] = {{{17, 32, 6}}, {{65, 100, 6}}};
};

/**
 * @brief The graded trace for @p grid, drawn from @p seed: TraceMix's shapes (distinct M, drawn within their ranges),
 * their calls in an order drawn too. Draws with std::mt19937_64 alone, so that a seed gives one trace.
 */
inline std::vector<int> graded_trace(const CostGrid& grid, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto draw = [&rng](int lo, int hi) { return lo + int(rng() % std::uint64_t(hi - lo + 1)); };
    std::set<int> taken;
    const auto distinct = [&](int lo, int hi) {
        for (int tries = 0; tries < 10000; ++tries)
            if (const int m = draw(lo, hi); taken.insert(m).second) return m;
        throw std::logic_error("graded_trace: no M left between " + std::to_string(lo) + " and " + std::to_string(hi));
    };
    std::vector<int> calls;
    const auto add = [&calls](int m, int count) { calls.insert(calls.end(), std::size_t(count), m); };
    const auto decode = [&](int highest, double crossovers, int fallback) {
        const int m = distinct(1, highest);
        const double c = crossover_calls(grid, m);
        add(m, std::isfinite(c) ? std::clamp(int(std::lround(crossovers * c)), 2, TraceMix::kMaxCalls) : fallback);
    };
    decode(TraceMix::kHotRows, TraceMix::kHot, TraceMix::kNoCrossover[0]);
    for (int i = 0; i < TraceMix::kNear; ++i) decode(TraceMix::kDecodeRows, TraceMix::kAbove, TraceMix::kNoCrossover[1]);
    for (int i = 0; i < TraceMix::kNear; ++i) decode(TraceMix::kDecodeRows, TraceMix::kBelow, TraceMix::kNoCrossover[2]);
    for (const auto& [lo, hi] : TraceMix::kWarm) add(distinct(lo, hi), draw(10, 30));
    for (const auto& [lo, hi, n] : TraceMix::kOneOff)
        for (int i = 0; i < n; ++i) add(distinct(lo, hi), 1);
    for (std::size_t i = calls.size(); i > 1; --i) std::swap(calls[i - 1], calls[std::size_t(rng() % i)]);
    return calls;
}

/** @brief How many calls of each M @p trace has. */
inline std::map<int, int> counts_of(const std::vector<int>& trace) {
    std::map<int, int> counts;
    for (const int m : trace) ++counts[m];
    return counts;
}

/** @brief The least time @p grid's costs allow for @p trace with every M's count known ahead: the sum over M of
 *  the least P + count·T. */
inline double hindsight_ms(const std::vector<int>& trace, const CostGrid& grid) {
    double total = 0;
    for (const auto& [m, count] : counts_of(trace)) {
        double best = std::numeric_limits<double>::infinity();
        for (const StrategyCost& k : costs_for(grid, m)) best = std::min(best, k.prep_ms + count * k.call_ms);
        total += best;
    }
    return total;
}

/** @brief What @p grid's costs say @p trace costs served with @p choices (one strategy per call: 0 generic, 1
 *  bucketed, 2 specialised): every call's T, and P once for each M, at its first specialised call. */
inline double priced_ms(const std::vector<int>& trace, const std::vector<int>& choices, const CostGrid& grid) {
    if (choices.size() != trace.size()) throw std::invalid_argument("priced_ms: one choice per call");
    std::set<int> compiled;
    double total = 0;
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const StrategyCost c = costs_for(grid, trace[i])[std::size_t(choices[i])];
        total += c.call_ms + (choices[i] == 2 && compiled.insert(trace[i]).second ? c.prep_ms : 0.0);
    }
    return total;
}

/**
 * @brief The serving loop's choice of strategy for each call of a trace, made alike by the checks and the bench: a
 * fixed strategy, or (fixed < 0) your choose_strategy() with the call's costs (P counted as 0 once its M has been
 * specialised) and the calls of its M still queued, this one included — the loop knows its queue, as a server
 * that batches the requests it holds does.
 */
class StrategyChooser {
public:
    /** @param trace the calls, in order @param fixed 0 generic, 1 bucketed, 2 specialised, or −1: the policy */
    StrategyChooser(const std::vector<int>& trace, int fixed) : left_(counts_of(trace)), fixed_(fixed) {}

    /**
     * @brief The strategy of the next call, of @p m rows, priced from @p grid (calls asked for in the trace's order).
     * @throws std::runtime_error when choose_strategy() returns something other than 0, 1 or 2
     */
    int next(int m, const CostGrid& grid) {
        const int queued = left_[m]--;
        int k = fixed_;
        if (fixed_ < 0) {
            std::array<StrategyCost, 3> c = costs_for(grid, m);
            if (compiled_.count(m)) c[2].prep_ms = 0;
            k = choose_strategy(c, double(queued));
            if (k < 0 || k > 2) throw std::runtime_error("choose_strategy returned " + std::to_string(k) + ", not 0, 1 or 2");
        }
        if (k == 2) compiled_.insert(m);
        return k;
    }

private:
    std::map<int, int> left_;  // calls of each M still to come, the next one included
    int fixed_;
    std::set<int> compiled_;   // the M specialised so far
};

}  // namespace lab09
