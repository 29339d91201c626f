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

TEST_CASE("Two BF16 elements share a bank word: a 32-element BF16 column is 16 rounds", "[models][banks]") {
    CHECK(strided_element_rounds(32, 2) == 16);  // rows 64 bytes = 16 words apart: banks 0 and 16 only
    CHECK(strided_element_rounds(32, 4) == strided_access_rounds(32));
    CHECK(strided_element_rounds(1, 2) == 1);   // a BF16 row: two lanes per word, 16 words
    CHECK(strided_element_rounds(33, 2) == 1);  // one element of padding: rows 66 bytes apart
    CHECK(strided_element_rounds(34, 2) == 1);  // one word of padding: 17 words apart
    // The element-level XOR swizzle still spreads a BF16 column over 32 distinct banks.
    for (std::int64_t col = 0; col < 32; ++col) {
        std::vector<std::int64_t> column;
        for (std::int64_t r = 0; r < 32; ++r) column.push_back(r * 32 + xor_swizzle_column(r, col, 32));
        INFO("column " << col);
        CHECK(element_access_rounds(column, 2) == 1);
    }
    CHECK_THROWS_AS(strided_element_rounds(1, 3), std::invalid_argument);
    CHECK_THROWS_AS(strided_element_rounds(1, 8), std::invalid_argument);
}

TEST_CASE("The plain tiled transpose at 8192^2 pays 31 extra rounds per column read", "[models][banks]") {
    CHECK(tiled_transpose_extra_rounds(8192, 8192, 32) == 31LL * 2097152);  // about 65.0 M
    CHECK(tiled_transpose_extra_rounds(8192, 8192, 33) == 0);
    CHECK(tiled_transpose_extra_rounds(64, 96, 34) == 64LL * 96 / 32);  // even stride: 2 rounds each
    CHECK_THROWS_AS(tiled_transpose_extra_rounds(33, 64, 32), std::invalid_argument);
}
