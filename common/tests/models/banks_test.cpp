// Section 5.2.3: bank rounds of row and column reads, padding to 33 words, XOR swizzle.
#include <numeric>
#include <vector>

#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/banks.hpp"

using namespace gpulab::models;
using gpulab::testing::prints_as;

TEST_CASE("A row of a 32x32 FP32 tile is one round, a column 32 rounds", "[models][banks]") {
    std::vector<std::int64_t> row(32);
    std::iota(row.begin(), row.end(), 5 * 32);  // row 5, words 160..191
    CHECK(warp_access_rounds(row) == 1);
    CHECK(strided_access_rounds(1) == 1);
    CHECK(strided_access_rounds(32) == 32);
    CHECK(warp_access_rounds(column_addresses(32, 32, 7, 32, false)) == 32);
}

TEST_CASE("Padding the row stride to 33 words makes a column one round for 3.1% more bytes", "[models][banks]") {
    CHECK(strided_access_rounds(33) == 1);
    CHECK(warp_access_rounds(column_addresses(32, 32, 7, 33, false)) == 1);
    const PaddingCost p = padding_cost(32, 32, 1);
    CHECK(p.row_stride_words == 33);
    CHECK(p.unpadded_bytes == 4096);
    CHECK(p.padded_bytes == 4224);
    CHECK(prints_as(p.overhead_fraction * 100, 3.1, 1));
}

TEST_CASE("An XOR swizzle spreads a column over 32 banks with no extra bytes", "[models][banks]") {
    for (std::int64_t col = 0; col < 32; ++col) {
        INFO("column " << col);
        CHECK(swizzled_column_read_rounds(32, 32, col) == 1);
    }
    // Rows still read in one round: a swizzled row is a permutation of its own words.
    std::vector<std::int64_t> row;
    for (std::int64_t c = 0; c < 32; ++c) row.push_back(3 * 32 + xor_swizzle_column(3, c, 32));
    CHECK(warp_access_rounds(row) == 1);
    CHECK(padding_cost(32, 32, 0).extra_bytes == 0);
}

TEST_CASE("Strides sharing a factor with 32 conflict, odd strides do not; broadcasts are free", "[models][banks]") {
    CHECK(strided_access_rounds(2) == 2);
    CHECK(strided_access_rounds(8) == 8);
    CHECK(strided_access_rounds(3) == 1);
    CHECK(strided_access_rounds(0) == 1);  // every lane reads the same word
    CHECK_THROWS_AS(xor_swizzle_column(0, 0, 24), std::invalid_argument);
    CHECK_THROWS_AS(strided_access_rounds(-1), std::invalid_argument);
}
