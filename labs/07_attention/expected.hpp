/**
 * @file expected.hpp
 * @brief Lab 07: the expected values, computed in double precision on the CPU, of the row softmax and of
 * attention (small shapes).
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_bf16.h>

/** @brief Each row's softmax in double precision: y = e^(x − max) / Σ e^(x − max). A row of only −∞ gives NaN.
 *  @param x rows × cols values, row-major @param rows rows @param cols values per row */
[[nodiscard]] std::vector<double> softmax_expected(const std::vector<float>& x, int rows, std::int64_t cols);

/** @brief What attention_expected() computes. */
struct AttentionExpected {
    std::vector<double> o;    ///< [batch · heads · L · d]
    std::vector<double> lse;  ///< [batch · heads · L], natural log of Σ e^(q·k/√d)
};

/** @brief O = softmax(Q·Kᵀ/√d)·V and each row's log-sum-exp in double precision, from the BF16 inputs as
 *  they are. @param q,k,v [heads, L, d] (batch and heads flattened) @param heads batch · heads @param L tokens
 *  @param d head dimension @param causal query i sees keys 0 … i */
[[nodiscard]] AttentionExpected attention_expected(const std::vector<__nv_bfloat16>& q,
                                                   const std::vector<__nv_bfloat16>& k,
                                                   const std::vector<__nv_bfloat16>& v, int heads, int L, int d,
                                                   bool causal);
