// Lab 11's arithmetic (chain_math.cuh) on the host: chain::host_row_dot() is the order the handout states — lane l adds
// chunks l, l + 32, … with fused multiply-adds, then the butterfly — and it is close to the exact dot product (FP64)
// within what BF16 rounding of the result allows; a different order (one accumulator left to right) gives other bits
// for a few outputs in ten thousand — enough for a chain of 262,144 outputs to show it, which is why every variant
// must keep this order. No GPU, no student code.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch_compat.hpp"
#include "chain_math.cuh"
#include "labs/random.hpp"

namespace {

std::vector<std::uint16_t> bf16_values(std::size_t n, std::uint64_t seed, float lo, float hi) {
    std::vector<std::uint16_t> v(n);
    gpulab::fill_uniform_bf16(v, seed, lo, hi);
    return v;
}

double exact_dot(const std::vector<std::uint16_t>& w, const std::vector<std::uint16_t>& x) {
    double s = 0;
    for (std::size_t i = 0; i < w.size(); ++i) s += double(chain::bf16_value(w[i])) * double(chain::bf16_value(x[i]));
    return s;
}

// The lane order written out again, independently of host_row_dot: lane l's chunks, then the butterfly's pairs.
float lanes_then_butterfly(const std::vector<std::uint16_t>& w, const std::vector<std::uint16_t>& x) {
    const int dim = int(w.size());
    float lane[32];
    for (int l = 0; l < 32; ++l) {
        float acc = 0.0f;
        for (int c = l; c < dim / 8; c += 32)
            for (int k = 0; k < 8; ++k)
                acc = std::fma(chain::bf16_value(w[std::size_t(8 * c + k)]), chain::bf16_value(x[std::size_t(8 * c + k)]), acc);
        lane[l] = acc;
    }
    for (int o = 16; o > 0; o /= 2) {
        float next[32];
        for (int l = 0; l < 32; ++l) next[l] = lane[l] + lane[l ^ o];
        std::memcpy(lane, next, sizeof lane);
    }
    return lane[0];
}

std::uint16_t bits_of(float v) {
    const __nv_bfloat16 b = chain::to_bf16(v);
    std::uint16_t u;
    std::memcpy(&u, &b, 2);
    return u;
}

}  // namespace

TEST_CASE("host_row_dot is the stated order, and within a BF16 rounding of the exact dot product", "[lab11]") {
    for (const int dim : {256, 512, 4096, 8192}) {
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            const float range = std::sqrt(3.0f / float(dim));
            const auto w = bf16_values(std::size_t(dim), seed * 1000 + std::uint64_t(dim), -range, range);
            const auto x = bf16_values(std::size_t(dim), seed * 7777 + std::uint64_t(dim), -1.0f, 1.0f);
            const std::uint16_t got = chain::host_row_dot(w.data(), x.data(), dim);
            INFO("dim " << dim << ", seed " << seed);
            CHECK(got == bits_of(lanes_then_butterfly(w, x)));
            // FP32 accumulation of dim products is far more precise than the BF16 result (2^-8 relative): within one
            // BF16 step of the exact value, with room for the FP32 error on top.
            const double exact = exact_dot(w, x);
            const double value = chain::bf16_value(got);
            CHECK(std::abs(value - exact) <= std::ldexp(std::abs(exact), -8) + 1e-6);
        }
    }
}

TEST_CASE("another order of the same additions gives other bits for a few outputs in ten thousand", "[lab11]") {
    // One accumulator left to right against the lane order, over a step of the chapter's chain (4096 rows of 4096):
    // BF16 rounding of the result hides the FP32 difference for almost every row, not for all (2 rows with these
    // inputs). A chain of 64 such steps has 262,144 outputs: a variant that changes the order fails bit-identity.
    const int dim = 4096, rows = 4096;
    const float range = std::sqrt(3.0f / float(dim));
    const auto w = bf16_values(std::size_t(rows) * std::size_t(dim), 5, -range, range);
    const auto x = bf16_values(std::size_t(dim), 6, -1.0f, 1.0f);
    int differs = 0;
    for (int r = 0; r < rows; ++r) {
        const std::uint16_t* row = w.data() + std::size_t(r) * std::size_t(dim);
        float serial = 0.0f;
        for (int i = 0; i < dim; ++i) serial = std::fma(chain::bf16_value(row[i]), chain::bf16_value(x[std::size_t(i)]), serial);
        differs += bits_of(serial) != chain::host_row_dot(row, x.data(), dim);
    }
    CHECK(differs > 0);
    CHECK(differs < rows / 100);
}

TEST_CASE("dot8 adds the chunk's eight products in element order, low half of each word first", "[lab11]") {
    // w = (1, 2, …, 8), x = (1, 1, …, 1): acc = 0 + 1 + 2 + … + 8 = 36, exactly.
    std::uint16_t w[8], x[8];
    for (int k = 0; k < 8; ++k) {
        w[k] = bits_of(float(k + 1));
        x[k] = bits_of(1.0f);
    }
    uint4 wc, xc;
    std::memcpy(&wc, w, 16);
    std::memcpy(&xc, x, 16);
    CHECK(chain::dot8(wc, xc, 0.0f) == 36.0f);
    // Order matters where rounding does. 2^24 first: every later add rounds to even (spacing 2 there), 2^24 + 2, + 4, + 8,
    // + 12, + 18, + 24, + 32; 2^24 last: 1 + … + 7 = 28 exactly, then 2^24 + 28.
    w[0] = bits_of(16777216.0f);
    for (int k = 1; k < 8; ++k) w[k] = bits_of(float(k + 1));
    std::memcpy(&wc, w, 16);
    CHECK(chain::dot8(wc, xc, 0.0f) == 16777216.0f + 32.0f);
    for (int k = 0; k < 7; ++k) w[k] = bits_of(float(k + 1));
    w[7] = bits_of(16777216.0f);
    std::memcpy(&wc, w, 16);
    CHECK(chain::dot8(wc, xc, 0.0f) == 16777216.0f + 28.0f);
}
