// Buckets, one-off preparation against per-group time, call mixes, autotuning payback.
#include "labs/models/shapes.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "labs/models/units.hpp"

namespace gpulab::models {

BucketPadding bucket_padding(std::span<const std::int64_t> rows, std::span<const std::int64_t> buckets) {
    if (buckets.empty()) throw std::invalid_argument("at least one bucket");
    std::vector<std::int64_t> sorted(buckets.begin(), buckets.end());
    std::sort(sorted.begin(), sorted.end());
    BucketPadding p;
    for (const std::int64_t r : rows) {
        if (r < 0) throw std::invalid_argument("row counts must not be negative");
        const auto it = std::lower_bound(sorted.begin(), sorted.end(), r);
        if (it == sorted.end()) {
            throw std::invalid_argument("a call of " + std::to_string(r) + " rows exceeds the largest bucket (" +
                                        std::to_string(sorted.back()) + ")");
        }
        p.actual_rows += r;
        p.padded_rows += *it;
        p.bucket_of_call.push_back(*it);
    }
    p.overhead_fraction =
        p.actual_rows > 0 ? static_cast<double>(p.padded_rows) / static_cast<double>(p.actual_rows) - 1 : 0;
    return p;
}

double total_time_ms(const Strategy& s, double groups) { return s.prep_ms + groups * s.group_ms; }

std::optional<std::int64_t> crossover_groups(const Strategy& earlier, const Strategy& later) {
    const double saving_per_group = earlier.group_ms - later.group_ms;
    if (saving_per_group <= 0) return std::nullopt;  // never catches up
    return first_count_exceeding(later.prep_ms - earlier.prep_ms, saving_per_group);
}

std::vector<BestRange> best_strategy_ranges(std::span<const Strategy> strategies, std::int64_t max_groups) {
    if (strategies.empty()) throw std::invalid_argument("at least one strategy");
    std::vector<BestRange> ranges;
    for (std::int64_t r = 1; r <= max_groups; ++r) {
        const auto best = std::min_element(strategies.begin(), strategies.end(), [r](const Strategy& a, const Strategy& b) {
            return total_time_ms(a, static_cast<double>(r)) < total_time_ms(b, static_cast<double>(r));
        });
        if (!ranges.empty() && ranges.back().strategy == best->name) {
            ranges.back().last = r;
        } else {
            ranges.push_back({best->name, r, r});
        }
    }
    return ranges;
}

double ffn_flop_per_row(std::int64_t hidden, std::int64_t ffn) {
    return 6.0 * static_cast<double>(hidden) * static_cast<double>(ffn);  // 3 projections × 2·H·F
}

ShapeStrategies shape_strategies(const ShapeStrategiesInput& in) {
    ShapeStrategies s;
    s.padding = bucket_padding(in.rows, in.buckets);
    s.flop_per_row = ffn_flop_per_row(in.hidden, in.ffn);
    const auto group_ms = [&](std::int64_t rows, double tflops) {
        return compute_time_us(static_cast<double>(rows) * s.flop_per_row, tflops) / 1e3;
    };
    s.strategies = {Strategy{"generic", in.generic_prep_ms, group_ms(s.padding.actual_rows, in.generic_tflops)},
                    Strategy{"bucketed", in.bucketed_prep_ms, group_ms(s.padding.padded_rows, in.bucketed_tflops)},
                    Strategy{"specialized", in.specialized_prep_ms,
                             group_ms(s.padding.actual_rows, in.specialized_tflops)}};
    s.generic_to_bucketed = crossover_groups(s.strategies[0], s.strategies[1]);
    s.bucketed_to_specialized = crossover_groups(s.strategies[1], s.strategies[2]);
    s.generic_to_specialized = crossover_groups(s.strategies[0], s.strategies[2]);
    return s;
}

double mix_mean_time(double p_a, double t_a, double t_b) {
    if (p_a < 0 || p_a > 1) throw std::invalid_argument("the fraction of calls must be within 0..1");
    return p_a * t_a + (1 - p_a) * t_b;
}

std::optional<double> mix_break_even_fraction(double old_a, double old_b, double new_a, double new_b) {
    // new − old mean = p·(new_a − old_a) + (1 − p)·(new_b − old_b) = 0.
    const double gain_a = old_a - new_a, loss_b = new_b - old_b;
    if (gain_a + loss_b == 0) return std::nullopt;
    const double p = loss_b / (gain_a + loss_b);
    if (p <= 0 || p >= 1) return std::nullopt;
    return p;
}

Payback autotune_payback(double search_s, double saving_us, double calls_per_s) {
    if (!(saving_us > 0) || !(calls_per_s > 0)) throw std::invalid_argument("saving and call rate must be positive");
    Payback p;
    p.calls = search_s / (saving_us * 1e-6);
    p.seconds = p.calls / calls_per_s;
    return p;
}

}  // namespace gpulab::models
