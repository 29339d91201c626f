// Shared-memory bank rounds, padding and XOR swizzle.
#include "labs/models/banks.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace gpulab::models {

int bank_of(std::int64_t word_address, int banks) {
    if (banks < 1) throw std::invalid_argument("at least one bank");
    if (word_address < 0) throw std::invalid_argument("word addresses must not be negative");
    return static_cast<int>(word_address % banks);
}

int warp_access_rounds(std::span<const std::int64_t> word_addresses, int banks) {
    std::map<int, std::set<std::int64_t>> words_per_bank;  // same word twice: one broadcast
    for (const std::int64_t w : word_addresses) words_per_bank[bank_of(w, banks)].insert(w);
    std::size_t rounds = 0;
    for (const auto& [bank, words] : words_per_bank) rounds = std::max(rounds, words.size());
    return static_cast<int>(rounds);
}

int strided_access_rounds(std::int64_t stride_words, int lanes, int banks) {
    if (stride_words < 0) throw std::invalid_argument("the stride must not be negative");
    if (lanes < 1) throw std::invalid_argument("at least one lane");
    std::vector<std::int64_t> addresses(static_cast<std::size_t>(lanes));
    for (int lane = 0; lane < lanes; ++lane) addresses[static_cast<std::size_t>(lane)] = lane * stride_words;
    return warp_access_rounds(addresses, banks);
}

std::int64_t xor_swizzle_column(std::int64_t row, std::int64_t col, std::int64_t cols) {
    if (cols < 1 || (cols & (cols - 1)) != 0) throw std::invalid_argument("swizzled rows need a power-of-two width");
    if (row < 0 || col < 0 || col >= cols) throw std::invalid_argument("element outside the tile");
    return col ^ (row & (cols - 1));
}

std::vector<std::int64_t> column_addresses(std::int64_t rows, std::int64_t cols, std::int64_t col,
                                           std::int64_t row_stride_words, bool swizzle) {
    if (rows < 1 || cols < 1) throw std::invalid_argument("the tile must have rows and columns");
    if (row_stride_words < cols) throw std::invalid_argument("the row stride must hold a whole row");
    std::vector<std::int64_t> addresses;
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t c = swizzle ? xor_swizzle_column(r, col, cols) : col;
        addresses.push_back(r * row_stride_words + c);
    }
    return addresses;
}

int swizzled_column_read_rounds(std::int64_t rows, std::int64_t cols, std::int64_t col, int banks) {
    return warp_access_rounds(column_addresses(rows, cols, col, cols, true), banks);
}

int element_access_rounds(std::span<const std::int64_t> element_offsets, int element_bytes, int banks) {
    constexpr int kWordBytes = 4;
    if (element_bytes < 1 || element_bytes > kWordBytes || kWordBytes % element_bytes != 0)
        throw std::invalid_argument("an element must be 1, 2 or 4 bytes (a part of one bank word)");
    std::vector<std::int64_t> words;
    words.reserve(element_offsets.size());
    for (const std::int64_t e : element_offsets) {
        if (e < 0) throw std::invalid_argument("element offsets must not be negative");
        words.push_back(e * element_bytes / kWordBytes);
    }
    return warp_access_rounds(words, banks);
}

int strided_element_rounds(std::int64_t stride_elements, int element_bytes, int lanes, int banks) {
    if (stride_elements < 0) throw std::invalid_argument("the stride must not be negative");
    if (lanes < 1) throw std::invalid_argument("at least one lane");
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(lanes));
    for (int lane = 0; lane < lanes; ++lane) offsets[static_cast<std::size_t>(lane)] = lane * stride_elements;
    return element_access_rounds(offsets, element_bytes, banks);
}

std::int64_t tiled_transpose_extra_rounds(std::int64_t rows, std::int64_t cols, std::int64_t row_stride_words) {
    constexpr std::int64_t kTile = 32;
    if (rows < kTile || cols < kTile || rows % kTile != 0 || cols % kTile != 0)
        throw std::invalid_argument("the model counts whole 32x32 tiles: rows and columns must be multiples of 32");
    if (row_stride_words < kTile) throw std::invalid_argument("the row stride must hold a whole tile row");
    const std::int64_t requests = rows * cols / kTile;  // one column of 32 rows per warp request
    return requests * (strided_access_rounds(row_stride_words, static_cast<int>(kTile)) - 1);
}

PaddingCost padding_cost(std::int64_t rows, std::int64_t cols, std::int64_t pad_words, int word_bytes) {
    if (rows < 1 || cols < 1 || pad_words < 0 || word_bytes < 1) {
        throw std::invalid_argument("rows, columns and word size must be positive, padding not negative");
    }
    PaddingCost p;
    p.row_stride_words = cols + pad_words;
    p.unpadded_bytes = rows * cols * word_bytes;
    p.padded_bytes = rows * p.row_stride_words * word_bytes;
    p.extra_bytes = p.padded_bytes - p.unpadded_bytes;
    p.overhead_fraction = static_cast<double>(p.extra_bytes) / static_cast<double>(p.unpadded_bytes);
    return p;
}

}  // namespace gpulab::models
