// Seeded generators: reproducible, seed-dependent, in range.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "catch_compat.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"

using namespace gpulab;

TEST_CASE("Same seed gives the same data, another seed different data", "[random]") {
    std::vector<float> a(1000), b(1000), c(1000);
    fill_uniform(a, 42);
    fill_uniform(b, 42);
    fill_uniform(c, 43);
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("Uniform values stay in [lo, hi) and spread over it", "[random]") {
    std::vector<float> v(100000);
    fill_uniform(v, 7, -2.0f, 3.0f);
    const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    CHECK(*mn >= -2.0f);
    CHECK(*mx < 3.0f);
    CHECK(*mn < -1.99f);
    CHECK(*mx > 2.99f);
    double mean = 0;
    for (float x : v) mean += x;
    mean /= static_cast<double>(v.size());
    CHECK(mean == gpulab::testing::Approx(0.5).margin(0.02));
}

TEST_CASE("BF16 fill is the rounded uniform fill", "[random][bf16]") {
    std::vector<float> f(500);
    std::vector<std::uint16_t> b(500);
    fill_uniform(f, 9);
    fill_uniform_bf16(b, 9);
    for (std::size_t i = 0; i < f.size(); ++i) REQUIRE(b[i] == float_to_bf16_bits(f[i]));
}
