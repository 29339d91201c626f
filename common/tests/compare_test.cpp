// compare(): tolerances, NaN/Inf/unwritten handling, error location.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "catch_compat.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/numeric.hpp"

using namespace gpulab;

TEST_CASE("Equal arrays pass and report zero error", "[compare]") {
    const std::vector<double> a{1, 2, 3, 4};
    const CompareReport r = compare(a, a, {0, 0});
    CHECK(r.passed());
    CHECK(r.bad_count == 0);
    CHECK(r.rel_error_norm == 0);
    CHECK(r.describe() == "all 4 elements match");
}

TEST_CASE("Tolerance is atol + rtol*|ref|", "[compare]") {
    const std::vector<double> ref{100, 1};
    const std::vector<double> out{100.5, 1.5};
    CHECK(compare(out, ref, {0.0, 0.01}).bad_count == 1);   // 0.5 ≤ 1 passes, 0.5 > 0.01 fails
    CHECK(compare(out, ref, {0.5, 0.0}).passed());
    CHECK(compare(out, ref, {0.49, 0.0}).bad_count == 2);
    const CompareReport r = compare(out, ref, {0.0, 0.01});
    REQUIRE(r.first_bad.has_value());
    CHECK(*r.first_bad == 1);
}

TEST_CASE("NaN and Inf never pass, whatever the tolerance", "[compare]") {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> ref{1, 2, 3};
    const std::vector<double> out{std::nan(""), inf, 3};
    const CompareReport r = compare(out, ref, {1e300, 1e300});
    CHECK_FALSE(r.passed());
    CHECK(r.nan_count == 1);
    CHECK(r.inf_count == 1);
    CHECK(std::isinf(r.rel_error_norm));
}

TEST_CASE("Relative error norm is ||out-ref|| / ||ref||", "[compare]") {
    const std::vector<double> ref{3, 4};
    const std::vector<double> out{3, 4.5};
    CHECK(rel_error_norm(out, ref) == gpulab::testing::Approx(0.1));
}

TEST_CASE("Unwritten FP32 outputs are recognised from the poison pattern", "[compare]") {
    std::vector<float> out(8, 1.0f);
    poison_host(std::span<float>(out).subspan(6));
    const std::vector<double> ref(8, 1.0);
    const CompareReport r = compare_f32(out, ref, {1e-6, 0});
    CHECK(r.bad_count == 2);
    CHECK(r.unwritten_count == 2);
    CHECK(r.nan_count == 0);
    CHECK(r.describe().find("never written") != std::string::npos);
}

TEST_CASE("Errors in the last partial tile are reported as a missing bounds guard", "[compare]") {
    // 10 x 10 matrix, 4 x 4 tiles: rows and columns 8, 9 form the tail.
    const std::size_t n = 100;
    std::vector<double> ref(n, 1.0), out(n, 1.0);
    for (std::size_t r = 0; r < 10; ++r)
        for (std::size_t c = 8; c < 10; ++c) out[r * 10 + c] = 0.0;
    const CompareReport rep = compare(out, ref, {1e-6, 0}, TileLayout{10, 10, 4, 4});
    CHECK(rep.bad_count == 20);
    CHECK(rep.bad_in_tail == 20);
    CHECK(rep.clustered_in_tail());
    CHECK(rep.hint().find("bounds guard") != std::string::npos);
    CHECK(rep.describe().find("row 0, col 8") != std::string::npos);
}

TEST_CASE("Errors on tile borders are told apart from tail errors", "[compare]") {
    // 16 x 16, 4 x 4 tiles (no tail): break column 4k+3 in every row.
    std::vector<double> ref(256, 1.0), out(256, 1.0);
    for (std::size_t r = 0; r < 16; ++r)
        for (std::size_t c = 3; c < 16; c += 4) out[r * 16 + c] = 2.0;
    const CompareReport rep = compare(out, ref, {1e-6, 0}, TileLayout{16, 16, 4, 4});
    CHECK_FALSE(rep.clustered_in_tail());
    CHECK(rep.clustered_on_tile_borders());
}

TEST_CASE("Bitwise comparison finds the first differing element", "[compare]") {
    const std::vector<std::uint16_t> a{1, 2, 3, 4}, b{1, 2, 7, 4};
    const CompareReport r = compare_bits(std::span<const std::uint16_t>(a), std::span<const std::uint16_t>(b));
    CHECK(r.bad_count == 1);
    CHECK(*r.first_bad == 2);
    CHECK(r.first_bad_out == 3);
    CHECK(r.first_bad_ref == 7);
}

TEST_CASE("ULP distance counts representable values between", "[compare][ulp]") {
    CHECK(ulp_distance(1.0f, 1.0f) == 0);
    CHECK(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)) == 1);
    CHECK(ulp_distance(0.0f, -0.0f) == 0);
    CHECK(ulp_distance(-std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::denorm_min()) == 2);
    CHECK(ulp_distance(1.0f, std::nanf("")) == std::numeric_limits<std::uint64_t>::max());
    CHECK(ulp_distance_bf16(float_to_bf16_bits(1.0f), float_to_bf16_bits(1.0078125f)) == 1);
    CHECK(ulp_distance_e4m3(0x38, 0x3A) == 2);
    CHECK(ulp_distance_e4m3(0x01, 0x81) == 2);
}

TEST_CASE("bf16_within says what compare_bf16 would, on every kind of bad element and at the tolerance's edge", "[compare]") {
    // A reference row, an output within tolerance of it, then one element spoilt at a time in each way compare() counts.
    const Tolerance tol{1.0 / 64, 1.0 / 256};
    std::vector<std::uint16_t> ref, good;
    for (int i = 0; i < 4096; ++i) {
        const float e = std::ldexp(static_cast<float>((i * 37) % 201 - 100), (i % 9) - 4);
        ref.push_back(float_to_bf16_bits(e));
        good.push_back(float_to_bf16_bits(e + static_cast<float>(tol.atol) * 0.5f));  // inside: |err| ≤ atol
    }
    const auto widened = [](const std::vector<std::uint16_t>& bits) {
        std::vector<double> d;
        for (std::uint16_t b : bits) d.push_back(bf16_bits_to_float(b));
        return d;
    };
    const auto agree = [&](const std::vector<std::uint16_t>& out) {
        const bool fast = bf16_within(out, ref, tol), full = compare_bf16(out, widened(ref), tol).passed();
        CHECK(fast == full);
        return fast;
    };
    CHECK(agree(good));
    CHECK(agree(ref));
    const std::uint16_t poison = static_cast<std::uint16_t>(kPoisonByte | (kPoisonByte << 8));
    for (const std::uint16_t spoilt : {poison, float_to_bf16_bits(std::numeric_limits<float>::quiet_NaN()),
                                      float_to_bf16_bits(std::numeric_limits<float>::infinity()),
                                      float_to_bf16_bits(-std::numeric_limits<float>::infinity()), float_to_bf16_bits(1e6f)}) {
        for (const std::size_t at : {std::size_t(0), std::size_t(2047), std::size_t(4095)}) {
            std::vector<std::uint16_t> out = good;
            out[at] = spoilt;
            CHECK_FALSE(agree(out));
        }
    }
    // At the edge: every value one BF16 step either side of its reference, judged element by element alike.
    int passed = 0, failed = 0;
    for (int i = 0; i < 4096; ++i) {
        std::vector<std::uint16_t> out = ref;
        out[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(ref[static_cast<std::size_t>(i)] + (i % 2 ? 1 : -1) * (1 + i % 3));
        (agree(out) ? passed : failed) += 1;
    }
    CHECK(passed > 0);  // both outcomes occur: the edge is exercised
    CHECK(failed > 0);
    CHECK_FALSE(bf16_within({}, {}, tol));  // nothing compared passes nothing, as compare() says
}
