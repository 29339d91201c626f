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

}  // namespace gpulab::models
