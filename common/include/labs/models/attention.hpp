/**
 * @file attention.hpp
 * @brief Attention for one head: the traffic of materialising S and P, the online-softmax state
 * (m, ℓ, u) and its update, and how many query rows a FlashAttention-style block can hold for a
 * given K/V block size within a shared-memory budget, with the passes, traffic and state updates
 * that follow (section 5.3.3, Example 5-6, Experiment 5-3).
 *
 * Local storage of a block holding a query rows and a K/V block of b rows (head dimension d):
 * S = 2ad (Q, BF16) + 2bd (one K/V slot, BF16) + 4ab (scores/probabilities, FP32)
 *   + 4ad (output accumulator, FP32) + 12a (three FP32 per-row vectors) [+ 2bd per prefetch slot].
 *
 * @code
 * using namespace gpulab::models;
 * const FlashPlan p = flash_plan({8192, 128}, 64, 101376);
 * // p.q_rows == 82, p.passes == 100, to_mib(p.traffic_bytes) == 404, p.state_updates == 12800
 * @endcode
 */
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace gpulab::models {

/** @brief One attention head over a sequence. */
struct AttentionShape {
    std::int64_t seq_len = 0;   ///< L
    std::int64_t head_dim = 0;  ///< d
    int elem_bytes = 2;         ///< bytes per element of Q, K, V, O (BF16)
    int score_bytes = 4;        ///< bytes per element of S and P (FP32)
};

/** @brief Traffic of attention through materialised S and P. */
struct MaterialisedAttention {
    double qkvo_bytes = 0;        ///< Q, K, V read once and O written once
    double score_matrix_bytes = 0;  ///< one L × L matrix (S or P)
    double intermediate_bytes = 0;  ///< S and P each written once and read once
    double total_bytes = 0;       ///< qkvo + intermediate
};

/** @brief Traffic when S and P are written to memory and read back. @param a the head */
[[nodiscard]] MaterialisedAttention materialised_attention(const AttentionShape& a);

/**
 * @brief Local storage of a block with @p q_rows query rows and K/V blocks of @p kv_rows rows.
 * @param q_rows a @param kv_rows b @param head_dim d @param prefetch_slots extra b × d BF16 slots
 */
[[nodiscard]] double flash_local_bytes(std::int64_t q_rows, std::int64_t kv_rows, std::int64_t head_dim,
                                       int prefetch_slots = 0);

/**
 * @brief The largest a whose local storage fits in @p budget_bytes (0 when not even one row fits).
 * @param kv_rows b @param head_dim d @param budget_bytes shared memory of one block
 * @param prefetch_slots extra b × d BF16 slots carved out of the budget
 */
[[nodiscard]] std::int64_t max_q_rows(std::int64_t kv_rows, std::int64_t head_dim, std::int64_t budget_bytes,
                                      int prefetch_slots = 0);

/** @brief A FlashAttention blocking and what it costs. */
struct FlashPlan {
    std::int64_t kv_rows = 0;     ///< b
    std::int64_t q_rows = 0;      ///< a: the most query rows that fit
    double local_bytes = 0;       ///< local storage at that a
    std::int64_t passes = 0;      ///< ⌈L / a⌉ passes over K and V
    double kv_bytes_per_pass = 0; ///< K and V read once
    double traffic_bytes = 0;     ///< passes · (K + V) + Q read once + O written once
    std::int64_t kv_blocks_per_pass = 0;  ///< ⌈L / b⌉
    std::int64_t state_updates = 0;  ///< passes · kv_blocks_per_pass (one per Q block and K/V block)
};

/**
 * @brief The largest query block for K/V blocks of @p kv_rows rows within @p budget_bytes, and its cost.
 * @param a the head @param kv_rows b (1..L) @param budget_bytes shared memory of one block
 * @param prefetch_slots extra b × d BF16 slots
 * @throws std::invalid_argument when b is out of range or not even one query row fits
 */
[[nodiscard]] FlashPlan flash_plan(const AttentionShape& a, std::int64_t kv_rows, std::int64_t budget_bytes,
                                   int prefetch_slots = 0);

/** @brief Online-softmax state of one row: m, ℓ = Σ e^(s−m), u = Σ e^(s−m)·v (scalar values). */
struct SoftmaxState {
    double m = -std::numeric_limits<double>::infinity();  ///< running maximum score
    double l = 0;  ///< sum of exponentials relative to m
    double u = 0;  ///< exponentially weighted sum of values relative to m
    /** @brief The normalised result u / ℓ. */
    [[nodiscard]] double result() const { return u / l; }
};

/** @brief One update of the state by a block of scores and values. */
struct SoftmaxUpdate {
    SoftmaxState before;  ///< state before the block
    double r = 0;         ///< rescale of the old state, e^(m − m') (0 on the first block)
    SoftmaxState after;   ///< state after the block
};

/**
 * @brief m' = max(m, max s); r = e^(m − m'); ℓ' = r·ℓ + Σ e^(s−m'); u' = r·u + Σ e^(s−m')·v.
 * @param state the state so far @param scores the block's scores @param values the block's values (same length, ≥ 1)
 */
[[nodiscard]] SoftmaxUpdate online_softmax_update(const SoftmaxState& state, std::span<const double> scores,
                                                  std::span<const double> values);

/**
 * @brief Runs the row through the online update, @p block_size elements at a time; one entry per block.
 * @param scores the row's scores @param values its values @param block_size elements per block (≥ 1)
 */
[[nodiscard]] std::vector<SoftmaxUpdate> online_softmax(std::span<const double> scores, std::span<const double> values,
                                                        std::size_t block_size);

/**
 * @brief Σ softmax(s)_j · v_j computed over the whole row at once (the expected value the online update must reach).
 * @param scores the row's scores @param values its values (same length, ≥ 1)
 */
[[nodiscard]] double softmax_weighted_sum(std::span<const double> scores, std::span<const double> values);

}  // namespace gpulab::models
