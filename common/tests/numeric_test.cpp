// Host BF16 / FP8 E4M3FN conversions against values worked out by hand.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "catch_compat.hpp"
#include "labs/numeric.hpp"

using namespace gpulab;

TEST_CASE("BF16 rounding is to nearest, ties to even", "[numeric][bf16]") {
    CHECK(float_to_bf16_bits(1.0f) == 0x3F80);
    CHECK(float_to_bf16_bits(-2.0f) == 0xC000);
    // 1 + 2^-8 is exactly halfway between 1 and 1 + 2^-7: ties to the even mantissa (1.0).
    CHECK(float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);
    // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): rounds up.
    CHECK(float_to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82);
    // Just above the halfway point rounds up.
    CHECK(float_to_bf16_bits(std::bit_cast<float>(0x3F808001u)) == 0x3F81);
    CHECK(round_to_bf16(3.14159265f) == 3.140625f);
}

TEST_CASE("BF16 keeps infinities, overflows to infinity and canonicalises NaN", "[numeric][bf16]") {
    CHECK(float_to_bf16_bits(std::numeric_limits<float>::infinity()) == 0x7F80);
    CHECK(float_to_bf16_bits(-std::numeric_limits<float>::infinity()) == 0xFF80);
    CHECK(float_to_bf16_bits(std::numeric_limits<float>::max()) == 0x7F80);
    CHECK(float_to_bf16_bits(std::bit_cast<float>(0xFFC00001u)) == 0x7FFF);
    CHECK(float_to_bf16_bits(-0.0f) == 0x8000);
    // Subnormals survive: the smallest BF16 subnormal is 2^-133.
    CHECK(float_to_bf16_bits(std::ldexp(1.0f, -133)) == 0x0001);
}

TEST_CASE("BF16 to FP32 is exact for every pattern", "[numeric][bf16]") {
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        const float f = bf16_bits_to_float(static_cast<std::uint16_t>(b));
        if (std::isnan(f)) continue;
        REQUIRE(float_to_bf16_bits(f) == b);
    }
}

TEST_CASE("E4M3FN decodes its code points", "[numeric][fp8]") {
    CHECK(e4m3_bits_to_float(0x00) == 0.0f);
    CHECK(e4m3_bits_to_float(0x01) == std::ldexp(1.0f, -9));   // smallest subnormal
    CHECK(e4m3_bits_to_float(0x08) == std::ldexp(1.0f, -6));   // smallest normal
    CHECK(e4m3_bits_to_float(0x38) == 1.0f);
    CHECK(e4m3_bits_to_float(0x7E) == 448.0f);
    CHECK(e4m3_bits_to_float(0xFE) == -448.0f);
    CHECK(std::isnan(e4m3_bits_to_float(0x7F)));
    CHECK(std::isnan(e4m3_bits_to_float(0xFF)));
}

TEST_CASE("E4M3FN encoding inverts decoding for every finite code", "[numeric][fp8]") {
    for (int b = 0; b < 256; ++b) {
        const float f = e4m3_bits_to_float(static_cast<std::uint8_t>(b));
        if (std::isnan(f)) continue;
        if (b == 0x80) {
            CHECK(float_to_e4m3_bits(f) == 0x80);  // −0 keeps its sign
            continue;
        }
        REQUIRE(float_to_e4m3_bits(f) == b);
    }
}

TEST_CASE("E4M3FN rounds to nearest even and saturates or overflows to NaN", "[numeric][fp8]") {
    // 1.0625 is halfway between 1 (mantissa 000) and 1.125 (001): ties to even → 1.
    CHECK(float_to_e4m3_bits(1.0625f) == 0x38);
    // 1.1875 is halfway between 1.125 (001) and 1.25 (010): → 1.25.
    CHECK(float_to_e4m3_bits(1.1875f) == 0x3A);
    // 464 is halfway between 448 (110) and 480 (would be 111 = NaN): even → 448.
    CHECK(float_to_e4m3_bits(464.0f) == 0x7E);
    CHECK(float_to_e4m3_bits(465.0f) == 0x7E);
    CHECK(float_to_e4m3_bits(465.0f, Fp8Overflow::to_nan) == 0x7F);
    CHECK(float_to_e4m3_bits(-1e30f) == 0xFE);
    CHECK(float_to_e4m3_bits(std::numeric_limits<float>::infinity()) == 0x7E);
    CHECK(float_to_e4m3_bits(-std::numeric_limits<float>::infinity(), Fp8Overflow::to_nan) == 0xFF);
    CHECK(float_to_e4m3_bits(std::numeric_limits<float>::quiet_NaN()) == 0x7F);
    // Half the smallest subnormal ties to even (zero); a bit more rounds up.
    CHECK(float_to_e4m3_bits(std::ldexp(1.0f, -10)) == 0x00);
    CHECK(float_to_e4m3_bits(std::ldexp(1.0f, -10) * 1.01f) == 0x01);
    CHECK(float_to_e4m3_bits(-std::ldexp(1.0f, -12)) == 0x80);
    // The chapter's row-scale example: 1·448/10 = 44.8 → 44.
    CHECK(round_to_e4m3(44.8f) == 44.0f);
}
