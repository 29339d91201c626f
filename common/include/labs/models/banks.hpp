/**
 * @file banks.hpp
 * @brief Shared-memory bank rounds of one warp access, and the two cures for a column read of a
 * row-major tile: padding the row stride, or an XOR swizzle of the column (section 5.2.3).
 *
 * Model: `banks` banks, each serving one word per round; word address w lives in bank w mod banks.
 * Lanes asking for the same word share it (broadcast); distinct words in one bank take one round
 * each, so a warp access takes as many rounds as the busiest bank has distinct words.
 *
 * @code
 * using namespace gpulab::models;
 * strided_access_rounds(32);                        // 32: a column of a 32-wide FP32 tile
 * strided_access_rounds(33);                        // 1: the same column with one word of padding
 * swizzled_column_read_rounds(32, 32, 0);           // 1: column c stored at c XOR r
 * padding_cost(32, 32, 1).padded_bytes;             // 4224 (+3.1%)
 * strided_element_rounds(32, 2);                     // 16: a BF16 column, rows 64 bytes apart
 * @endcode
 */
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpulab::models {

/** @brief Bank of a word address. @param word_address address in words @param banks number of banks */
[[nodiscard]] int bank_of(std::int64_t word_address, int banks = 32);

/**
 * @brief Rounds one warp access takes: the largest number of distinct words any bank must serve.
 * @param word_addresses one word address per lane @param banks number of banks (≥ 1)
 */
[[nodiscard]] int warp_access_rounds(std::span<const std::int64_t> word_addresses, int banks = 32);

/**
 * @brief Rounds when lane i reads word i·@p stride_words (a column of a row-major tile whose rows are
 * @p stride_words apart).
 * @param stride_words distance between lanes in words @param lanes lanes in the warp @param banks banks
 */
[[nodiscard]] int strided_access_rounds(std::int64_t stride_words, int lanes = 32, int banks = 32);

/**
 * @brief Physical column of logical element (row, col) under the XOR swizzle: col ⊕ (row mod cols).
 * Each row keeps its elements (a permutation of its columns); @p cols must be a power of two.
 * @param row logical row @param col logical column @param cols columns per row (power of two)
 */
[[nodiscard]] std::int64_t xor_swizzle_column(std::int64_t row, std::int64_t col, std::int64_t cols);

/**
 * @brief Word addresses of column @p col of a @p rows × @p cols row-major tile with rows
 * @p row_stride_words apart, optionally XOR-swizzled.
 * @param rows rows read (one per lane) @param cols logical columns @param col the column read
 * @param row_stride_words words between row starts (cols, or cols + padding)
 * @param swizzle store (r, c) at column c ⊕ r
 */
[[nodiscard]] std::vector<std::int64_t> column_addresses(std::int64_t rows, std::int64_t cols, std::int64_t col,
                                                         std::int64_t row_stride_words, bool swizzle);

/**
 * @brief Rounds to read column @p col of a swizzled @p rows × @p cols tile (stride stays @p cols).
 * @param rows rows (lanes) @param cols columns (power of two) @param col column read @param banks banks
 */
[[nodiscard]] int swizzled_column_read_rounds(std::int64_t rows, std::int64_t cols, std::int64_t col, int banks = 32);

/**
 * @brief Rounds of one warp access to elements smaller than a word: lane i reads the element at
 * @p element_offsets[i] (in elements of @p element_bytes from a word-aligned base). Lanes whose
 * elements fall in one word share it (a 32-bit bank word holds two BF16 elements), so it is the word
 * addresses that count.
 * @param element_offsets one element offset per lane @param element_bytes bytes per element (1, 2 or 4)
 * @param banks banks @throws std::invalid_argument for an element size that does not divide a word
 */
[[nodiscard]] int element_access_rounds(std::span<const std::int64_t> element_offsets, int element_bytes,
                                        int banks = 32);

/**
 * @brief Rounds when lane i reads element i·@p stride_elements of @p element_bytes each: a column of a
 * row-major tile whose rows are @p stride_elements apart.
 * @param stride_elements distance between lanes in elements @param element_bytes bytes per element (1, 2, 4)
 * @param lanes lanes @param banks banks
 */
[[nodiscard]] int strided_element_rounds(std::int64_t stride_elements, int element_bytes, int lanes = 32, int banks = 32);

/**
 * @brief Extra shared-memory rounds (bank conflicts) on the load side of a 32×32-tiled transpose of a
 * @p rows × @p cols matrix of 4-byte elements whose tile rows are @p row_stride_words apart: each warp
 * reads one column of 32 rows of a tile, rows·cols/32 requests in all, each costing
 * strided_access_rounds(row_stride_words) − 1 extra rounds.
 * @param rows matrix rows (a multiple of 32) @param cols matrix columns (a multiple of 32)
 * @param row_stride_words the tile's row stride (32: plain, 33: padded)
 * @throws std::invalid_argument for a matrix that is not made of whole 32×32 tiles
 */
[[nodiscard]] std::int64_t tiled_transpose_extra_rounds(std::int64_t rows, std::int64_t cols,
                                                        std::int64_t row_stride_words);

/** @brief What padding a tile's rows costs. */
struct PaddingCost {
    std::int64_t row_stride_words = 0;  ///< cols + pad
    std::int64_t unpadded_bytes = 0;    ///< rows · cols · word
    std::int64_t padded_bytes = 0;      ///< rows · (cols + pad) · word
    std::int64_t extra_bytes = 0;       ///< padded − unpadded
    double overhead_fraction = 0;       ///< extra / unpadded
};

/**
 * @brief Bytes of a @p rows × @p cols tile with @p pad_words extra words per row.
 * @param rows rows @param cols columns @param pad_words words added to each row @param word_bytes bytes per word
 */
[[nodiscard]] PaddingCost padding_cost(std::int64_t rows, std::int64_t cols, std::int64_t pad_words, int word_bytes = 4);

}  // namespace gpulab::models
