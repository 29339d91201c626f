/**
 * @file math.hpp
 * @brief Small integer helpers shared by host and device code.
 */
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
/// Marks a function callable from host and device code (`__host__ __device__` under nvcc, nothing else).
#define LABS_HD __host__ __device__
#else
/// Marks a function callable from host and device code (`__host__ __device__` under nvcc, nothing else).
#define LABS_HD
#endif

namespace gpulab {

/** @brief ⌈a / b⌉ for positive integers. @param a dividend @param b divisor (> 0) */
template <typename T>
LABS_HD constexpr T ceil_div(T a, T b) {
    return (a + b - 1) / b;
}

/** @brief Smallest multiple of @p b that is ≥ @p a. @param a value @param b granularity (> 0) */
template <typename T>
LABS_HD constexpr T round_up(T a, T b) {
    return ceil_div(a, b) * b;
}

/** @brief Bytes in one mebibyte (2^20). */
inline constexpr double kMiB = 1024.0 * 1024.0;
/** @brief Bytes in one kibibyte (2^10). */
inline constexpr double kKiB = 1024.0;

}  // namespace gpulab
