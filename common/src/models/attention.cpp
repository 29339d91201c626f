// Attention traffic, FlashAttention capacity, online softmax.
#include "labs/models/attention.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "labs/math.hpp"

namespace gpulab::models {

MaterialisedAttention materialised_attention(const AttentionShape& a) {
    if (a.seq_len < 1 || a.head_dim < 1) throw std::invalid_argument("sequence length and head dimension must be positive");
    const double l = static_cast<double>(a.seq_len), d = static_cast<double>(a.head_dim);
    MaterialisedAttention m;
    m.qkvo_bytes = 4.0 * l * d * a.elem_bytes;
    m.score_matrix_bytes = l * l * a.score_bytes;
    m.intermediate_bytes = 2.0 * 2.0 * m.score_matrix_bytes;  // S and P, each written and read once
    m.total_bytes = m.qkvo_bytes + m.intermediate_bytes;
    return m;
}

double flash_local_bytes(std::int64_t q_rows, std::int64_t kv_rows, std::int64_t head_dim, int prefetch_slots) {
    const double a = static_cast<double>(q_rows), b = static_cast<double>(kv_rows), d = static_cast<double>(head_dim);
    return 2 * a * d            // Q rows, BF16
           + 2 * b * d          // one K/V slot, BF16
           + 4 * a * b          // scores / probabilities, FP32
           + 4 * a * d          // output accumulator, FP32
           + 12 * a             // m, ℓ and one scratch vector per row, FP32
           + prefetch_slots * 2 * b * d;  // optional prefetch slots, BF16
}

std::int64_t max_q_rows(std::int64_t kv_rows, std::int64_t head_dim, std::int64_t budget_bytes, int prefetch_slots) {
    if (kv_rows < 1 || head_dim < 1 || prefetch_slots < 0) throw std::invalid_argument("block sizes must be positive");
    // S(a) = per_row · a + fixed  ≤  budget.
    const double fixed = flash_local_bytes(0, kv_rows, head_dim, prefetch_slots);
    const double per_row = flash_local_bytes(1, kv_rows, head_dim, prefetch_slots) - fixed;
    if (fixed >= static_cast<double>(budget_bytes)) return 0;
    return static_cast<std::int64_t>(std::floor((static_cast<double>(budget_bytes) - fixed) / per_row));
}

FlashPlan flash_plan(const AttentionShape& a, std::int64_t kv_rows, std::int64_t budget_bytes, int prefetch_slots) {
    if (kv_rows < 1 || kv_rows > a.seq_len) throw std::invalid_argument("K/V block rows must be 1..L");
    FlashPlan p;
    p.kv_rows = kv_rows;
    p.q_rows = std::min(max_q_rows(kv_rows, a.head_dim, budget_bytes, prefetch_slots), a.seq_len);
    if (p.q_rows < 1) throw std::invalid_argument("not even one query row fits in the budget");
    p.local_bytes = flash_local_bytes(p.q_rows, kv_rows, a.head_dim, prefetch_slots);
    p.passes = ceil_div(a.seq_len, p.q_rows);
    const double matrix_bytes = static_cast<double>(a.seq_len) * static_cast<double>(a.head_dim) * a.elem_bytes;
    p.kv_bytes_per_pass = 2 * matrix_bytes;
    p.traffic_bytes = static_cast<double>(p.passes) * p.kv_bytes_per_pass + 2 * matrix_bytes;  // + Q read, O written
    p.kv_blocks_per_pass = ceil_div(a.seq_len, kv_rows);
    p.state_updates = p.passes * p.kv_blocks_per_pass;
    return p;
}

SoftmaxUpdate online_softmax_update(const SoftmaxState& state, std::span<const double> scores,
                                    std::span<const double> values) {
    if (scores.empty() || scores.size() != values.size()) throw std::invalid_argument("one value per score, at least one");
    SoftmaxUpdate up;
    up.before = state;
    const double m_new = std::max(state.m, *std::max_element(scores.begin(), scores.end()));
    up.r = std::exp(state.m - m_new);  // e^(−∞) = 0 on the first block
    up.after.m = m_new;
    up.after.l = up.r * state.l;
    up.after.u = up.r * state.u;
    for (std::size_t j = 0; j < scores.size(); ++j) {
        const double p = std::exp(scores[j] - m_new);
        up.after.l += p;
        up.after.u += p * values[j];
    }
    return up;
}

std::vector<SoftmaxUpdate> online_softmax(std::span<const double> scores, std::span<const double> values,
                                          std::size_t block_size) {
    if (block_size < 1) throw std::invalid_argument("block size must be at least 1");
    if (scores.empty() || scores.size() != values.size()) throw std::invalid_argument("one value per score, at least one");
    std::vector<SoftmaxUpdate> steps;
    SoftmaxState state;
    for (std::size_t start = 0; start < scores.size(); start += block_size) {
        const std::size_t n = std::min(block_size, scores.size() - start);
        steps.push_back(online_softmax_update(state, scores.subspan(start, n), values.subspan(start, n)));
        state = steps.back().after;
    }
    return steps;
}

double softmax_weighted_sum(std::span<const double> scores, std::span<const double> values) {
    if (scores.empty() || scores.size() != values.size()) throw std::invalid_argument("one value per score, at least one");
    const double m = *std::max_element(scores.begin(), scores.end());
    double num = 0, den = 0;
    for (std::size_t j = 0; j < scores.size(); ++j) {
        const double w = std::exp(scores[j] - m);
        num += w * values[j];
        den += w;
    }
    return num / den;
}

}  // namespace gpulab::models
