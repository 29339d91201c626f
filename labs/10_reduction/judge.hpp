/**
 * @file judge.hpp
 * @brief Lab 10: how the grader judges one row of an RMSNorm output, on the host — shared by checks.cu and the CPU test
 * of the bounds (judge_test.cpp).
 *
 * FROZEN: do not edit. A row is right when its scale lies within the worst case of any order of FP32 additions of the
 * exact scale, and every output element is rmsnorm::normalize() of its input with that scale, bit for bit. The bound:
 * n non-negative values added in any order err by at most γ(n − 1) = (n − 1)u / (1 − (n − 1)u) relative (u = 2^-24:
 * every addend passes through at most n − 1 roundings); the division by n rounds once more, the addition of eps once
 * (and eps dilutes the sum's error by mean / (mean + eps)), the square root halves what it is given and rounds once,
 * the reciprocal rounds once.
 */
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "labs/buffer.hpp"
#include "labs/numeric.hpp"
#include "labs/text.hpp"
#include "rmsnorm_math.cuh"

namespace lab10 {

/** @brief FP32's unit roundoff, 2^-24. */
inline constexpr double kUnit = 0x1p-24;

/** @brief The exact sum of squares of a row of BF16 bits: each square is exact in double, and so is their sum for any
 *  row shorter than 2^21 (squares of at most 16 significant bits). @param x the row @param cols its length */
[[nodiscard]] inline double exact_sum(const std::uint16_t* x, int cols) {
    double s = 0;
    for (int j = 0; j < cols; ++j) {
        const double v = gpulab::bf16_bits_to_float(x[j]);
        s += v * v;
    }
    return s;
}

/** @brief γ(n − 1): the worst relative error of adding n non-negative FP32 values in any order. @param n values */
[[nodiscard]] inline double sum_bound(int n) {
    const double k = double(std::max(n - 1, 0)) * kUnit;
    return k / (1 - k);
}

/**
 * @brief The worst relative error of rmsnorm::row_scale() of a sum added in any order: the sum and the division by n
 * err by (1 + γ)(1 + u) − 1, diluted by eps to ε = that · mean / (mean + eps), and the addition of eps rounds once;
 * then 1 / √(1 − ε) − 1 at worst (a sum too small), times one rounding of the root and one of the reciprocal.
 * @param n the row's length @param mean_square its exact mean square @param eps the eps added to it
 */
[[nodiscard]] inline double scale_bound(int n, double mean_square, double eps) {
    const double g = sum_bound(n);
    const double before_eps = (1 + g) * (1 + kUnit) - 1;
    const double e = (1 + before_eps * mean_square / (mean_square + eps)) * (1 + kUnit) - 1;
    return (1 + kUnit) / ((1 - kUnit) * std::sqrt(1 - e)) - 1;
}

/** @brief What judge_row() found. */
struct RowVerdict {
    std::string wrong;        ///< "" when the row is right, else why not
    double scale_units = 0;   ///< |scale / exact − 1| in units of u
};

/**
 * @brief Judges row @p r of an output: its scale within scale_bound() of the exact scale, then every element
 * rmsnorm::normalize(x, that scale, gamma), bit for bit (an element still holding the poison pattern: "never written").
 * @param x the row's input bits @param g gamma's bits @param y the row's output bits @param scale the row's scale
 * @param cols the row's length @param eps the eps of the call @param r the row's index, for messages
 */
[[nodiscard]] inline RowVerdict judge_row(const std::uint16_t* x, const std::uint16_t* g, const std::uint16_t* y, float scale,
                                          int cols, float eps, int r) {
    RowVerdict v;
    const double mean = exact_sum(x, cols) / cols;
    const double exact = 1.0 / std::sqrt(mean + double(eps));
    if (gpulab::is_poison(scale)) {
        v.wrong = gpulab::strprintf("row %d: its scale was never written", r);
        return v;
    }
    if (!std::isfinite(scale)) {
        v.wrong = gpulab::strprintf("row %d: its scale is %g", r, double(scale));
        return v;
    }
    const double rel = std::fabs(double(scale) / exact - 1);
    v.scale_units = rel / kUnit;
    const double bound = scale_bound(cols, mean, double(eps));
    if (rel > bound) {
        v.wrong = gpulab::strprintf("row %d: scale %.9g, exact %.9g: %.1f u away, beyond the %.1f u that any order of the row's "
                                    "%d additions allows (u = 2^-24)",
                                    r, double(scale), exact, rel / kUnit, bound / kUnit, cols);
        return v;
    }
    for (int j = 0; j < cols; ++j) {
        const __nv_bfloat16 want = rmsnorm::normalize(std::bit_cast<__nv_bfloat16>(x[j]), scale, std::bit_cast<__nv_bfloat16>(g[j]));
        const auto w = std::bit_cast<std::uint16_t>(want);
        if (y[j] != w) {
            v.wrong = gpulab::is_poison(y[j])
                          ? gpulab::strprintf("row %d, column %d: never written", r, j)
                          : gpulab::strprintf("row %d, column %d: 0x%04x, but normalize(x, the row's scale %.9g, gamma) is 0x%04x", r,
                                              j, unsigned(y[j]), double(scale), unsigned(w));
            return v;
        }
    }
    return v;
}

}  // namespace lab10
