/**
 * @file banks.hpp
 * @brief Lab 04 interface: an out-of-place transpose through a 32×32 shared-memory tile, where the
 * tile's layout — where element (row, col) of the tile lives in shared memory — is a separate
 * `__host__ __device__ constexpr` function, so that the grader can evaluate it on the host against the
 * bank model as well as time it on the GPU.
 *
 * FROZEN: do not edit. A matrix is row-major [rows, cols] in device memory (rows, cols ≥ 1); its
 * transpose is row-major [cols, rows]: out[c·rows + r] = in[r·cols + c]. Every launcher enqueues on
 * `stream` and returns without synchronising.
 *
 * A layout is a type with two static members, like PlainLayout below:
 * @code
 * struct MyLayout {
 *     static constexpr int kElements = ...;     // elements of shared memory the tile occupies
 *     __host__ __device__ static constexpr int offset(int row, int col);  // 0 ≤ row, col < 32
 * };
 * @endcode
 * Offsets count elements of the tile's type (4 bytes for FP32, 2 for BF16) from the tile's start.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace banks {
/** @brief Side of the tile, in elements: a warp's 32 lanes cover one tile row or one tile column. */
inline constexpr int kTile = 32;
/** @brief Rows of threads per block: a block is kTile × kBlockRows threads, each moving kTile / kBlockRows
 *  elements of its column of the tile. */
inline constexpr int kBlockRows = 4;
}  // namespace banks

/**
 * @brief The plain layout (given): row-major, rows kTile elements apart. A warp that walks a row of the
 * tile touches 32 banks; one that walks a column hits one bank 32 times.
 */
struct PlainLayout {
    /** @brief Elements of shared memory the tile occupies. */
    static constexpr int kElements = banks::kTile * banks::kTile;
    /** @brief Where element (@p row, @p col) of the tile lives, in elements from the tile's start. */
    __host__ __device__ static constexpr int offset(int row, int col) { return row * banks::kTile + col; }
};

// ---- Given (baseline.cu) --------------------------------------------------------------------------

/**
 * @brief Naive transpose: one thread per element; reads of a warp are one row of the input (coalesced),
 * its writes go down a column of the output (32 rows apart: one sector each).
 * @param in input [rows, cols] @param out output [cols, rows] @param rows rows @param cols columns
 * @param stream stream @param side block side: 16 (16×16 threads) or 32 (32×32 threads)
 */
void launch_transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream, int side = 32);

/**
 * @brief Tiled transpose through shared memory with the plain layout: both global accesses coalesced,
 * the tile's column read conflicting (32 rounds per warp request with a 32-wide tile).
 * @param in input [rows, cols] @param out output [cols, rows] @param rows rows @param cols columns
 * @param stream stream @param side tile side: 16 or 32 (blocks of side × kBlockRows threads)
 */
void launch_transpose_plain(const float* in, float* out, int rows, int cols, cudaStream_t stream, int side = 32);

// ---- Yours (banks.cu) -----------------------------------------------------------------------------
// banks.cu defines the layouts PaddedLayout, SwizzledLayout (FP32 tiles) and SwizzledLayoutBf16 (a 32×32
// tile of BF16), each with kElements and offset() as above, and the kernels and launchers below.

/** @brief (a) Tiled transpose through the padded layout (rows 33 elements apart).
 *  @param in input @param out output @param rows rows @param cols columns @param stream stream */
void launch_transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream);

/** @brief (b) Tiled transpose through the XOR-swizzled layout (rows 32 elements apart, no extra bytes).
 *  @param in input @param out output @param rows rows @param cols columns @param stream stream */
void launch_transpose_swizzled(const float* in, float* out, int rows, int cols, cudaStream_t stream);

/** @brief (c) The swizzled transpose of a BF16 matrix, through SwizzledLayoutBf16.
 *  @param in input @param out output @param rows rows @param cols columns @param stream stream */
void launch_transpose_swizzled_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols,
                                    cudaStream_t stream);

// ---- For the grader and the experiment (banks_instances.cuh, compiled into banks.cu's translation unit)

/** @brief The layouts the lab knows: the given plain layout over FP32 and over BF16 elements, and yours. */
enum class LayoutId { plain, plain_bf16, padded, swizzled, swizzled_bf16 };

/** @brief Short name of a layout ("plain", "plain_bf16", "padded", "swizzled", "swizzled_bf16"). */
[[nodiscard]] std::string layout_name(LayoutId id);

/** @brief A layout evaluated on the host: its offset() at every (row, col) of the tile. */
struct LayoutTable {
    int element_bytes = 4;       ///< bytes per element of the tile's type
    long long elements = 0;      ///< the layout's kElements (its shared-memory footprint, in elements)
    std::vector<int> offsets;    ///< offset(row, col) at [row · kTile + col]
};

/** @brief Evaluates layout @p id on the host. @param id which layout */
[[nodiscard]] LayoutTable layout_table(LayoutId id);

/** @brief Cycles per warp access through a layout, timed with clock64() inside one warp. */
struct ProbeCycles {
    double row_write = 0;    ///< lane i writes (row, i): what a tiled transpose does on its load side
    double column_read = 0;  ///< lane i reads (i, col): what it does on its store side
    double row_read = 0;     ///< lane i reads (row, i): a conflict-free yardstick
};

/**
 * @brief Times warp accesses through layout @p id in shared memory, on the GPU (one warp of one block):
 * each access pattern walks all 32 rows or columns @p reps times. Synchronises the device.
 * @param id which layout @param reps repetitions (≥ 1)
 */
[[nodiscard]] ProbeCycles probe_layout(LayoutId id, int reps);
