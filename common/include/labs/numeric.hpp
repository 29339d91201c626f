/**
 * @file numeric.hpp
 * @brief Host emulation of the GPU's BF16 and FP8 E4M3FN conversions, bit for bit.
 *
 * The labs keep low-precision rounding as part of the result (fusion must not change it), so a CPU
 * check needs conversions that round exactly as the device does:
 * - FP32 → BF16: round to nearest, ties to even; overflow goes to ±Inf; any NaN becomes the canonical
 *   NaN 0x7FFF (as `__float2bfloat16` / `cvt.rn.bf16.f32`).
 * - BF16 → FP32: exact (the 16 bits become the high half of the float).
 * - FP32 → E4M3FN: round to nearest, ties to even. E4M3FN has no infinities; its largest finite
 *   value is 448 and 0x7F/0xFF are NaN. With saturation (the `__nv_fp8_e4m3` constructor,
 *   `__NV_SATFINITE`) anything beyond ±448, infinities included, becomes ±448; without it
 *   (`__NV_NOSAT`) it becomes NaN. NaN input gives NaN 0x7F.
 * - E4M3FN → FP32: exact.
 *
 * A GPU test (common/tests/numeric_gpu_test.cu) compares these with the device conversions on all
 * 65,536 BF16 patterns, all 256 FP8 patterns, and millions of random plus edge FP32 values.
 */
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace gpulab {

/** @brief Converts FP32 to BF16 bits: round to nearest even; NaN → 0x7FFF. */
[[nodiscard]] inline std::uint16_t float_to_bf16_bits(float x) noexcept {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFFu;  // NaN
    const std::uint32_t lsb = (u >> 16) & 1u;
    return static_cast<std::uint16_t>((u + 0x7FFFu + lsb) >> 16);
}

/** @brief Converts BF16 bits to FP32 (exact). */
[[nodiscard]] inline float bf16_bits_to_float(std::uint16_t b) noexcept {
    return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

/** @brief Rounds an FP32 value to the nearest BF16 value, returned as FP32. */
[[nodiscard]] inline float round_to_bf16(float x) noexcept {
    return bf16_bits_to_float(float_to_bf16_bits(x));
}

/** @brief Largest finite E4M3FN value. */
inline constexpr float kE4M3Max = 448.0f;

/** @brief What an FP8 conversion does with values beyond the largest finite one. */
enum class Fp8Overflow {
    saturate,  ///< clamp to ±448 (CUDA's __NV_SATFINITE, the default of __nv_fp8_e4m3)
    to_nan,    ///< become NaN (CUDA's __NV_NOSAT)
};

/** @brief Converts FP32 to E4M3FN bits with round to nearest even. */
[[nodiscard]] inline std::uint8_t float_to_e4m3_bits(float x,
                                                     Fp8Overflow overflow = Fp8Overflow::saturate) noexcept {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
    const std::uint8_t sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7Fu;  // NaN
    const double a = std::fabs(static_cast<double>(x));
    const std::uint8_t too_big = overflow == Fp8Overflow::saturate ? std::uint8_t(sign | 0x7Eu)
                                                                   : std::uint8_t(sign | 0x7Fu);
    if (std::isinf(a)) return too_big;
    // Quantum (spacing of E4M3FN values) at a's binade; subnormals share the quantum 2^-9.
    int e = 0;
    (void)std::frexp(a, &e);  // a = f·2^e, f in [0.5, 1)  →  binade exponent e-1
    const int binade = (a == 0.0) ? -6 : std::max(e - 1, -6);
    const double quantum = std::ldexp(1.0, binade - 3);
    const double q = a / quantum;                 // exact: a power-of-two scaling of a float
    double r = std::floor(q);
    const double frac = q - r;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
    const double v = r * quantum;  // the rounded magnitude, exactly representable or the next binade
    if (v > kE4M3Max) return too_big;
    // Codes are monotonic in value: subnormals m·2^-9 are codes 0..7, then E<<3 | m.
    std::uint8_t code = 0;
    if (v < std::ldexp(1.0, -6)) {
        code = static_cast<std::uint8_t>(v / std::ldexp(1.0, -9));
    } else {
        int ve = 0;
        const double vf = std::frexp(v, &ve);  // v = vf·2^ve, vf in [0.5, 1)
        const int biased = (ve - 1) + 7;
        const int mant = static_cast<int>((vf * 2.0 - 1.0) * 8.0);
        code = static_cast<std::uint8_t>((biased << 3) | mant);
    }
    return static_cast<std::uint8_t>(sign | code);
}

/** @brief Converts E4M3FN bits to FP32 (exact; 0x7F and 0xFF are NaN). */
[[nodiscard]] inline float e4m3_bits_to_float(std::uint8_t b) noexcept {
    const bool negative = (b & 0x80u) != 0;
    const int exponent = (b >> 3) & 0xF;
    const int mant = b & 0x7;
    if (exponent == 0xF && mant == 0x7) return std::bit_cast<float>(0x7FC00000u);
    const double v = exponent == 0 ? std::ldexp(static_cast<double>(mant), -9)
                                   : std::ldexp(1.0 + mant / 8.0, exponent - 7);
    return static_cast<float>(negative ? -v : v);
}

/** @brief Rounds an FP32 value to the nearest E4M3FN value (saturating), returned as FP32. */
[[nodiscard]] inline float round_to_e4m3(float x) noexcept {
    return e4m3_bits_to_float(float_to_e4m3_bits(x));
}

}  // namespace gpulab
