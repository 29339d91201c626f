// Section 5.2.4: RMSNorm with one task per row vs eight segments per row; FP32 summation order.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/reduction.hpp"
#include "labs/models/units.hpp"
#include "labs/numeric.hpp"

using namespace gpulab::models;
using gpulab::testing::prints_as;
using gpulab::testing::Approx;

TEST_CASE("RMSNorm over [1024, 4096]: 24 MiB in one launch, 32.1 MiB in three with 8 segments", "[models][reduction]") {
    const SplitReduction one = split_reduction({1024, 4096, 1});
    CHECK(one.first_stage_tasks == 1024);
    CHECK(one.launches == 1);
    CHECK(to_mib(one.total_bytes) == 24);
    CHECK(to_kib(one.temp_per_task_bytes) == 16);  // a whole FP32 row
    const SplitReduction eight = split_reduction({1024, 4096, 8});
    CHECK(eight.first_stage_tasks == 8192);
    CHECK(eight.launches == 3);
    CHECK(to_kib(eight.partial_sums_bytes) == 32);
    CHECK(to_kib(eight.scales_bytes) == 4);
    CHECK(to_mib(eight.reread_bytes) == 8);
    CHECK(prints_as(to_mib(eight.total_bytes), 32.1, 1));
    CHECK(to_kib(eight.temp_per_task_bytes) == 2);
}

TEST_CASE("FP32 addition is not associative: 1 + 2^-24 + 2^-24", "[models][reduction]") {
    const float tiny = std::ldexp(1.0f, -24);
    const std::vector<float> left{1.0f, tiny, tiny}, right{tiny, tiny, 1.0f};
    CHECK(fp32_sum_in_order(left) == 1.0f);
    CHECK(fp32_sum_in_order(right) == 1.0f + std::ldexp(1.0f, -23));
    CHECK(distinct_fp32_sums_over_orders(left) == 2);
}

TEST_CASE("A 4096-element row in 8 segments: the 8! merge orders give 3 FP32 sums, 1 ULP apart",
          "[models][reduction]") {
    // Section 5.2.4's setting: the sum of squares of one row of 4096 BF16 values. A BF16 square has at
    // most 16 significant bits, so it is exact in FP32 and only the order of the additions rounds.
    // Values: uniform in [-1, 1) from std::mt19937 (whose output the standard fixes), rounded to BF16;
    // the sum is ≈ 1373, where an FP32 ULP is 2^-13.
    std::mt19937 rng(1);
    std::vector<float> squares(4096);
    double exact = 0;  // each square is exact in double too; the double sum errs far below 2^-13
    for (float& sq : squares) {
        const float u = static_cast<float>(rng() >> 8) * 0x1p-24f;  // 24 random bits: [0, 1)
        const float x = gpulab::round_to_bf16(2 * u - 1);
        sq = x * x;
        exact += sq;
    }
    const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);  // FP32 spacing at the exact sum
    const auto ulps_from_exact = [&](float s) { return (s - exact) / ulp; };

    // Eight segments of 512, each summed left to right in FP32, then merged in every order.
    std::array<float, 8> partials{};
    for (std::size_t s = 0; s < partials.size(); ++s) {
        partials[s] = fp32_sum_in_order(std::span<const float>(squares).subspan(s * 512, 512));
    }
    std::array<std::size_t, 8> order{0, 1, 2, 3, 4, 5, 6, 7};
    std::set<float> sums;
    int orders = 0;
    do {
        std::array<float, 8> merged{};
        for (std::size_t i = 0; i < order.size(); ++i) merged[i] = partials[order[i]];
        sums.insert(fp32_sum_in_order(merged));
        ++orders;
    } while (std::next_permutation(order.begin(), order.end()));
    REQUIRE(orders == 40320);  // 8!
    CHECK(distinct_fp32_sums_over_orders(partials) == static_cast<int>(sums.size()));

    // Few results, not one and not thousands: the chapter's row gives 3, and so does this one (over
    // seeds 1..2000 this generator gives 1 to 5). They are neighbouring FP32 values, 1 ULP apart.
    CHECK(sums.size() == 3);
    const std::int64_t spread = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(*sums.rbegin())) -
                                static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(*sums.begin()));
    CHECK(spread == static_cast<std::int64_t>(sums.size()) - 1);
    // Every order lands within 10 ULP of the exact sum (here 6.2 to 8.2 below it; the chapter's row: 9.2).
    for (const float s : sums) CHECK(std::fabs(ulps_from_exact(s)) < 10);
    // One segment for the whole row lets the accumulator grow to the full sum before the small
    // squares are added: far less accurate (here 106 ULP below; the chapter's row: 175.2).
    CHECK(std::fabs(ulps_from_exact(fp32_sum_in_order(squares))) > 50);
}

TEST_CASE("Segments shorten the longest chain of roundings: 4095 for one segment of 4096, 518 for eight", "[models][reduction]") {
    CHECK(longest_rounding_path(4096, 1) == 4095);
    CHECK(longest_rounding_path(4096, 8) == 511 + 7);
    CHECK(longest_rounding_path(4097, 8) == 512 + 7);  // ⌈4097 / 8⌉ = 513 per segment
    CHECK(longest_rounding_path(1, 1) == 0);
    // The optimum sits near √n: 64 segments of 64 for 4096 (63 + 63 = 126).
    CHECK(best_segment_count(4096) == 64);
    CHECK(longest_rounding_path(4096, 64) == 126);
    for (const std::int64_t n : {1, 2, 3, 10, 1000, 4097, 65536}) {
        const std::int64_t best = best_segment_count(n);
        for (std::int64_t s = 1; s <= std::min<std::int64_t>(n, 4 * best + 4); ++s) {
            INFO("n = " << n << ", s = " << s);
            CHECK(longest_rounding_path(n, s) >= longest_rounding_path(n, best));
            if (s < best) CHECK(longest_rounding_path(n, s) > longest_rounding_path(n, best));
        }
    }
    CHECK_THROWS(longest_rounding_path(4, 5));
    CHECK_THROWS(longest_rounding_path(0, 1));
}

TEST_CASE("The bound holds: a row's FP32 sum of squares errs by no more than γ of its longest rounding chain",
          "[models][reduction]") {
    CHECK(fp32_error_bound(0) == 0);
    CHECK(fp32_error_bound(1) == Approx(0x1p-24).epsilon(1e-6));
    // Rows of BF16 values, summed as one segment and as eight: the error never passes the bound, and the eight-segment
    // sum is nearer the exact value over many rows (the chapter's 175.2 against 9.2 ULP is one such row).
    std::mt19937 rng(7);
    double err_one = 0, err_eight = 0;
    for (int row = 0; row < 64; ++row) {
        std::vector<float> squares(4096);
        double exact = 0;
        for (float& sq : squares) {
            const float u = static_cast<float>(rng() >> 8) * 0x1p-24f;
            const float x = gpulab::round_to_bf16(2.5f * u - 1.25f);
            sq = x * x;
            exact += sq;
        }
        const float one = fp32_sum_in_order(squares);
        std::array<float, 8> partials{};
        for (std::size_t s = 0; s < 8; ++s) partials[s] = fp32_sum_in_order(std::span<const float>(squares).subspan(s * 512, 512));
        const float eight = fp32_sum_in_order(partials);
        CHECK(std::fabs(one - exact) <= fp32_error_bound(longest_rounding_path(4096, 1)) * exact);
        CHECK(std::fabs(eight - exact) <= fp32_error_bound(longest_rounding_path(4096, 8)) * exact);
        err_one += std::fabs(one - exact) / exact;
        err_eight += std::fabs(eight - exact) / exact;
    }
    CHECK(err_eight * 4 < err_one);
}

TEST_CASE("Merge orders and a pairwise merge's depth", "[models][reduction]") {
    CHECK(merge_orders(8) == 40320);  // the chapter's 8!
    CHECK(merge_orders(1) == 1);
    CHECK(pairwise_merge_depth(8) == 3);
    CHECK(pairwise_merge_depth(9) == 4);
    CHECK(pairwise_merge_depth(1) == 0);
    CHECK_THROWS(merge_orders(21));
}
