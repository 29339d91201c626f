// Lab 09's graded trace and its prices (serving.hpp), on cost grids shaped like a solution's on an H100 (generic
// flat up to 16 rows, a bucket kernel that beats it near a bucket's top, a specialised kernel far faster at small M),
// with P from half to twice what it was: the mix the handout states, and the property perf.policy's bars rest on —
// the best plan in hindsight specialises the hot shape and the two above their crossover and nothing else, the
// three fixed strategies land below the pass bar, and a crossover off by 2× between the bars, whatever P is.
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "catch_compat.hpp"
#include "serving.hpp"

using namespace lab09;
using gpulab::testing::Approx;

namespace {

// A solution's costs as perf.policy measured them on an H100 (ms per call at kCostGrid's rows, as served: generic,
// bucketed at the bucket's size, specialised; P of specialised at each row count, the skinny decode kernel's
// compilation far slower than the tiled one's), with P scaled by p_scale.
CostGrid grid_with_p(double p_scale) {
    const std::map<int, std::array<double, 4>> at = {
        {1, {0.121, 0.119, 0.037, 94}},     {8, {0.120, 0.120, 0.051, 118}},   {16, {0.121, 0.121, 0.062, 145}},
        {32, {0.181, 0.184, 0.170, 49}},    {64, {0.343, 0.194, 0.322, 50}},   {128, {0.642, 0.632, 0.593, 48}},
        {256, {1.214, 0.665, 1.123, 46}},   {512, {2.365, 1.244, 2.164, 53}},  {1024, {4.657, 2.290, 4.223, 47}}};
    CostGrid grid;
    for (const int m : kCostGrid) {
        const auto& t = at.at(m);
        grid.push_back({StrategyCost{0, t[0]}, StrategyCost{0, t[1]}, StrategyCost{t[3] * p_scale, t[2]}});
    }
    return grid;
}

// The plan a policy that knows every M's queued calls makes, choosing the least P·p_scale + r·T (ties to the lower
// index), priced from the true costs: p_scale 1 is the solution's rule, 2 and 0.5 a crossover off by 2×, and a
// fixed strategy (fixed ≥ 0) answers the same for every call.
double plan_ms(const std::vector<int>& trace, const CostGrid& grid, double p_scale, int fixed = -1) {
    std::map<int, int> left = counts_of(trace);
    std::set<int> compiled;
    std::vector<int> choices;
    for (const int m : trace) {
        std::array<StrategyCost, 3> c = costs_for(grid, m);
        if (compiled.count(m)) c[2].prep_ms = 0;
        const double r = left[m]--;
        int k = fixed;
        if (k < 0) {
            k = 0;
            for (int s = 1; s < 3; ++s)
                if (c[s].prep_ms * p_scale + r * c[s].call_ms < c[k].prep_ms * p_scale + r * c[k].call_ms) k = s;
        }
        if (k == 2) compiled.insert(m);
        choices.push_back(k);
    }
    return priced_ms(trace, choices, grid);
}

}  // namespace

TEST_CASE("The graded trace is the mix the handout states, one trace per seed", "[lab09][serving]") {
    const CostGrid grid = grid_with_p(1.0);
    const std::vector<int> trace = graded_trace(grid, 7);
    CHECK(graded_trace(grid, 7) == trace);
    CHECK(graded_trace(grid, 8) != trace);
    int decode = 0, warm = 0, once = 0;
    for (const auto& [m, count] : counts_of(trace)) {
        if (m <= TraceMix::kDecodeRows) {
            ++decode;
            const double x = count / crossover_calls(grid, m);
            const bool a_multiple = std::abs(x - TraceMix::kHot) < 0.01 || std::abs(x - TraceMix::kAbove) < 0.01 ||
                                    std::abs(x - TraceMix::kBelow) < 0.01;
            CHECK(a_multiple);
        } else if (count == 1) {
            ++once;
        } else {
            ++warm;
            CHECK((count >= 10 && count <= 30));
        }
    }
    CHECK(decode == 1 + 2 * TraceMix::kNear);
    CHECK(warm == 4);
    CHECK(once == 12);
}

TEST_CASE("In hindsight the hot shape and the two above their crossover are specialised, and only they",
          "[lab09][serving]") {
    for (const double p : {0.5, 1.0, 2.0}) {
        const CostGrid grid = grid_with_p(p);
        const std::vector<int> trace = graded_trace(grid, std::uint64_t(p * 10));
        int specialised = 0;
        for (const auto& [m, count] : counts_of(trace)) {
            const std::array<StrategyCost, 3> c = costs_for(grid, m);
            const double unspecialised = count * std::min(c[0].call_ms, c[1].call_ms);
            if (c[2].prep_ms + count * c[2].call_ms < unspecialised) ++specialised;
        }
        CHECK(specialised == 1 + TraceMix::kNear);
        // The solution's rule with the queue's counts makes the best plan, priced as hindsight prices it.
        CHECK(plan_ms(trace, grid, 1.0) == Approx(hindsight_ms(trace, grid)));
    }
}

TEST_CASE("Fixed strategies score below perf.policy's pass bar, a crossover off by 2x between its bars",
          "[lab09][serving]") {
    constexpr double kPass = 0.8, kFull = 0.97;  // checks.cu's bars
    for (const double p : {0.5, 1.0, 1.5, 2.0})
        for (const std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
            const CostGrid grid = grid_with_p(p);
            const std::vector<int> trace = graded_trace(grid, seed * 1000 + std::uint64_t(p * 10));
            const double best = hindsight_ms(trace, grid);
            for (const int k : {0, 1, 2}) CHECK(best / plan_ms(trace, grid, 1.0, k) < kPass);
            for (const double off : {2.0, 0.5}) {
                const double ratio = best / plan_ms(trace, grid, off);
                CHECK(ratio > kPass);
                CHECK(ratio < kFull);
            }
        }
}
