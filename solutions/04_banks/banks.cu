// Lab 04 solution. What changed from the baseline's transpose_plain_kernel, and why:
// - The shared-memory index goes through a layout (Layout::offset), so the kernel is written once and the
//   layouts — the lesson — are three small functions the grader can also evaluate on the host.
// - Padded: rows 33 elements apart. A column's 32 elements are then 33 words apart, one bank further each
//   row: 32 banks, one round, for 32 · 4 = 128 bytes more per tile (+3.1%).
// - Swizzled: rows stay 32 elements apart; (row, col) lives in column col ^ row. Down a column the stored
//   column runs through all 32 values, so 32 banks again; along a row it is a permutation of the row, so
//   row writes stay one round. No extra bytes, one XOR per access.
// - BF16: a bank word holds two elements, so a plain 32-wide BF16 row is 16 words and a column touches only
//   banks 0 and 16 (16 rounds). The same element-level XOR still works: the stored column col ^ row puts
//   row r's element in word 16·r + ((col ^ row) >> 1), which lands in bank 16·(r & 1) + ((col ^ r) >> 1);
//   rows of one parity then differ in (col ^ r) >> 1, so all 32 lanes reach 32 different banks.
#include "banks.hpp"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"

struct PaddedLayout {
    static constexpr int kPitch = banks::kTile + 1;
    static constexpr int kElements = banks::kTile * kPitch;
    __host__ __device__ static constexpr int offset(int row, int col) { return row * kPitch + col; }
};

struct SwizzledLayout {
    static constexpr int kElements = banks::kTile * banks::kTile;
    __host__ __device__ static constexpr int offset(int row, int col) { return row * banks::kTile + (col ^ row); }
};

struct SwizzledLayoutBf16 {
    static constexpr int kElements = banks::kTile * banks::kTile;
    __host__ __device__ static constexpr int offset(int row, int col) { return row * banks::kTile + (col ^ row); }
};

namespace {

using banks::kBlockRows;
using banks::kTile;

// As the baseline's transpose_plain_kernel, with every shared-memory index through Layout::offset().
template <class Layout, class T>
__global__ void __launch_bounds__(kTile * kBlockRows)
    transpose_tiled(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    constexpr int kSteps = kTile / kBlockRows;  // elements each thread moves, all its loads in flight at once
    __shared__ T tile[Layout::kElements];
    const int tile_row = static_cast<int>(blockIdx.y) * kTile;
    const int tile_col = static_cast<int>(blockIdx.x) * kTile;
    const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
    const bool whole = tile_row + kTile <= rows && tile_col + kTile <= cols;  // no bounds checks needed
    // Load: a warp reads 32 neighbours of input row tile_row + j and writes them along tile row j (a row write).
    const T* src = in + std::size_t(tile_row + y) * cols + tile_col + x;
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
        const int j = y + k * kBlockRows;
        if (whole || (tile_row + j < rows && tile_col + x < cols))
            tile[Layout::offset(j, x)] = src[std::size_t(k * kBlockRows) * cols];
    }
    __syncthreads();
    // Store: a warp reads tile column j (lane x reads row x: a column read) and writes it as 32 neighbours of
    // output row tile_col + j.
    T* dst = out + std::size_t(tile_col + y) * rows + tile_row + x;
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
        const int j = y + k * kBlockRows;
        if (whole || (tile_col + j < cols && tile_row + x < rows))
            dst[std::size_t(k * kBlockRows) * rows] = tile[Layout::offset(x, j)];
    }
}

template <class Layout, class T>
void launch_tiled(const T* in, T* out, int rows, int cols, cudaStream_t stream) {
    const dim3 grid(gpulab::ceil_div(cols, kTile), gpulab::ceil_div(rows, kTile));
    transpose_tiled<Layout, T><<<grid, dim3(kTile, kBlockRows), 0, stream>>>(in, out, rows, cols);
    LABS_CHECK_LAUNCH();
}

}  // namespace

void launch_transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    launch_tiled<PaddedLayout>(in, out, rows, cols, stream);
}

void launch_transpose_swizzled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    launch_tiled<SwizzledLayout>(in, out, rows, cols, stream);
}

void launch_transpose_swizzled_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols,
                                    cudaStream_t stream) {
    launch_tiled<SwizzledLayoutBf16>(in, out, rows, cols, stream);
}
