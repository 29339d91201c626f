/**
 * @file compare.hpp
 * @brief Comparing a result with the expected values: error norms, elementwise tolerances, ULP distance,
 * and a report that says where the errors are.
 *
 * NaN and Inf in the output never pass, whatever the tolerance. An element still holding the poison
 * pattern (see buffer.hpp) is reported as "never written". When the data is a matrix cut into tiles,
 * the report says whether the bad elements sit in the last partial tile row/column (a missing bounds
 * guard) or on tile borders (an off-by-one in tile indexing).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

namespace gpulab {

/** @brief Elementwise tolerance: |out − ref| ≤ atol + rtol·|ref|. */
struct Tolerance {
    double atol = 0.0;  ///< absolute part
    double rtol = 0.0;  ///< relative part
};

/**
 * @brief How the compared elements are laid out, for locating errors. A vector is one row.
 * With tile sizes 0 the edge analysis is skipped.
 */
struct TileLayout {
    std::size_t rows = 1;       ///< rows of the row-major matrix
    std::size_t cols = 0;       ///< columns (0: the whole span is one row)
    std::size_t tile_rows = 0;  ///< tile height used by the kernel (0: unknown)
    std::size_t tile_cols = 0;  ///< tile width used by the kernel (0: unknown)
};

/** @brief What compare() found. */
struct CompareReport {
    std::size_t count = 0;          ///< elements compared
    std::size_t bad_count = 0;      ///< elements outside tolerance (NaN/Inf/unwritten included)
    std::size_t nan_count = 0;      ///< NaN outputs that were written (not poison)
    std::size_t inf_count = 0;      ///< infinite outputs
    std::size_t unwritten_count = 0;  ///< outputs still holding the poison pattern
    std::optional<std::size_t> first_bad;  ///< index of the first bad element
    double first_bad_out = 0.0;     ///< output value at first_bad
    double first_bad_ref = 0.0;     ///< expected value at first_bad
    bool first_bad_unwritten = false;  ///< the element at first_bad still held the poison pattern
    double max_abs_error = 0.0;     ///< over finite elements
    double rel_error_norm = 0.0;    ///< ‖out − ref‖₂ / ‖ref‖₂ (Inf when any output is not finite)
    std::size_t bad_in_tail = 0;    ///< bad elements in the last partial tile row or column
    std::size_t tail_count = 0;     ///< elements in that tail region
    std::size_t bad_on_tile_border = 0;  ///< bad elements in the first/last row/column of a tile
    TileLayout layout;              ///< layout used for the edge analysis

    /** @brief True when no element is bad. */
    [[nodiscard]] bool passed() const noexcept { return bad_count == 0 && count > 0; }
    /** @brief True when most bad elements (≥ 90%) are in the tail region and it is small. */
    [[nodiscard]] bool clustered_in_tail() const noexcept;
    /** @brief True when most bad elements (≥ 90%) lie on tile borders, outside the tail. */
    [[nodiscard]] bool clustered_on_tile_borders() const noexcept;
    /**
     * @brief One line for a student: "12 of 1000 elements wrong; first at index 996 (row 0, col 996):
     * got NaN, expected 1.25; 12 never written" (the likely cause is hint()).
     */
    [[nodiscard]] std::string describe() const;
    /** @brief A hint for the most likely cause, or empty. */
    [[nodiscard]] std::string hint() const;
};

/** @brief JSON form of a report (field names as in the struct, plus "passed" and "hint"). */
void to_json(nlohmann::json& j, const CompareReport& r);

/**
 * @brief Compares @p out with @p ref elementwise.
 * @param out     the result, already widened to double (see the typed overloads)
 * @param ref     the expected values in double precision
 * @param tol     elementwise tolerance
 * @param layout  row-major layout and tile sizes for the edge analysis
 * @param unwritten optional per-element flags: true where the output still held the poison pattern
 */
[[nodiscard]] CompareReport compare(std::span<const double> out, std::span<const double> ref,
                                    Tolerance tol, TileLayout layout = {},
                                    std::span<const bool> unwritten = {});

/** @brief Compares FP32 outputs (poison detected on the raw bits). */
[[nodiscard]] CompareReport compare_f32(std::span<const float> out, std::span<const double> ref,
                                        Tolerance tol, TileLayout layout = {});
/** @brief Compares BF16 outputs given as raw bits (poison detected on the raw bits). */
[[nodiscard]] CompareReport compare_bf16(std::span<const std::uint16_t> out,
                                         std::span<const double> ref, Tolerance tol,
                                         TileLayout layout = {});
/**
 * @brief Whether compare_bf16(@p out, @p ref widened to double, @p tol) would pass, without building its report: one
 * pass, no allocation, stopping at the first element it would count as bad (never written, NaN, ±∞, or outside
 * the tolerance). For large outputs that usually pass — a timed call's verification against a reference run — ask
 * this first and build the report with compare_bf16() only when it says no.
 * @param out the output's raw bits @param ref the expected values' raw bits (BF16) @param tol the tolerance
 */
[[nodiscard]] bool bf16_within(std::span<const std::uint16_t> out, std::span<const std::uint16_t> ref, Tolerance tol);
/** @brief Compares E4M3FN outputs given as raw bits (poison detected on the raw bits). */
[[nodiscard]] CompareReport compare_e4m3(std::span<const std::uint8_t> out,
                                         std::span<const double> ref, Tolerance tol,
                                         TileLayout layout = {});

/**
 * @brief Bitwise comparison of two arrays of raw values (for results that must be bit-identical).
 * Each differing element is bad; `first_bad_out`/`first_bad_ref` hold the raw bit patterns.
 */
[[nodiscard]] CompareReport compare_bits(std::span<const std::uint16_t> out,
                                         std::span<const std::uint16_t> ref, TileLayout layout = {});
/** @brief Bitwise comparison of raw 8-bit values (E4M3FN results); see the 16-bit overload. */
[[nodiscard]] CompareReport compare_bits(std::span<const std::uint8_t> out,
                                         std::span<const std::uint8_t> ref, TileLayout layout = {});
/** @brief Bitwise comparison of FP32 values (first_bad_out/ref hold the bits as integers). */
[[nodiscard]] CompareReport compare_bits(std::span<const float> out, std::span<const float> ref,
                                         TileLayout layout = {});

/** @brief ‖out − ref‖₂ / ‖ref‖₂ (0 when both are zero, Inf when ref is zero and out is not). */
[[nodiscard]] double rel_error_norm(std::span<const double> out, std::span<const double> ref);

/**
 * @brief Distance in units in the last place between two FP32 values: the number of representable
 * floats between them (0 when equal, +0 and −0 are equal). NaN gives the maximum value.
 */
[[nodiscard]] std::uint64_t ulp_distance(float a, float b) noexcept;
/** @brief ULP distance between two BF16 values given as bits (NaN gives the maximum value). */
[[nodiscard]] std::uint64_t ulp_distance_bf16(std::uint16_t a, std::uint16_t b) noexcept;
/** @brief ULP distance between two E4M3FN values given as bits (NaN gives the maximum value). */
[[nodiscard]] std::uint64_t ulp_distance_e4m3(std::uint8_t a, std::uint8_t b) noexcept;

}  // namespace gpulab
