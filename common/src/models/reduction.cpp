// Split reductions: traffic and tasks; FP32 summation order.
#include "labs/models/reduction.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

namespace gpulab::models {

SplitReduction split_reduction(const SplitReductionInput& in) {
    if (in.rows < 1 || in.cols < 1 || in.segments < 1 || in.segments > in.cols) {
        throw std::invalid_argument("rows and columns must be positive, segments within 1..columns");
    }
    const double elements = static_cast<double>(in.rows) * static_cast<double>(in.cols);
    const bool split = in.segments > 1;
    SplitReduction r;
    r.first_stage_tasks = in.rows * in.segments;
    r.launches = split ? 3 : 1;
    r.temp_per_task_bytes = static_cast<double>(in.cols) / static_cast<double>(in.segments) * in.partial_bytes;
    r.input_bytes = elements * in.elem_bytes;
    r.gamma_bytes = elements * in.elem_bytes;
    r.output_bytes = elements * in.elem_bytes;
    if (split) {
        r.partial_sums_bytes = static_cast<double>(r.first_stage_tasks) * in.partial_bytes;
        r.scales_bytes = static_cast<double>(in.rows) * in.partial_bytes;
        r.reread_bytes = r.input_bytes;  // the row no longer stays local until it is normalised
    }
    // Partial sums and scales are each written by one stage and read by the next.
    r.total_bytes = r.input_bytes + r.gamma_bytes + r.output_bytes + r.reread_bytes +
                    2 * (r.partial_sums_bytes + r.scales_bytes);
    return r;
}

float fp32_sum_in_order(std::span<const float> values) {
    float sum = 0.0f;
    for (const float v : values) sum += v;
    return sum;
}

int distinct_fp32_sums_over_orders(std::span<const float> values) {
    if (values.size() > 10) throw std::invalid_argument("at most 10 addends (10! orders)");
    std::vector<std::size_t> idx(values.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::set<float> sums;
    do {
        float sum = 0.0f;
        for (const std::size_t i : idx) sum += values[i];
        sums.insert(sum);
    } while (std::next_permutation(idx.begin(), idx.end()));
    return static_cast<int>(sums.size());
}

std::int64_t longest_rounding_path(std::int64_t n, std::int64_t segments) {
    if (n < 1 || segments < 1 || segments > n) throw std::invalid_argument("need n >= 1 and segments within 1..n");
    const std::int64_t length = (n + segments - 1) / segments;
    return (length - 1) + (segments - 1);
}

std::int64_t best_segment_count(std::int64_t n) {
    if (n < 1) throw std::invalid_argument("need n >= 1");
    std::int64_t best = 1, fewest = longest_rounding_path(n, 1);
    for (std::int64_t s = 2; s <= n; ++s) {
        const std::int64_t k = longest_rounding_path(n, s);
        if (k < fewest) best = s, fewest = k;
        if (s - 1 > fewest) break;  // the merge alone already costs more
    }
    return best;
}

double fp32_error_bound(std::int64_t roundings) {
    if (roundings < 0) throw std::invalid_argument("need roundings >= 0");
    const double ku = static_cast<double>(roundings) * 0x1p-24;
    if (ku >= 1) throw std::invalid_argument("k·u must stay below 1");
    return ku / (1 - ku);
}

std::int64_t merge_orders(int partials) {
    if (partials < 1 || partials > 20) throw std::invalid_argument("need 1..20 partial sums");
    std::int64_t f = 1;
    for (int i = 2; i <= partials; ++i) f *= i;
    return f;
}

int pairwise_merge_depth(std::int64_t partials) {
    if (partials < 1) throw std::invalid_argument("need partials >= 1");
    int depth = 0;
    while ((std::int64_t{1} << depth) < partials) ++depth;
    return depth;
}

}  // namespace gpulab::models
