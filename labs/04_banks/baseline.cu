// FROZEN: do not edit. Lab 04 baseline: the naive transpose and the tiled transpose through the plain
// layout. transpose_plain_kernel is the skeleton your kernels start from: it already handles partial
// tiles at the matrix's edges; what it lacks is a layout whose column reads do not conflict.
#include <stdexcept>

#include "banks.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace {

dim3 tile_grid(int rows, int cols, int side) {
    return dim3(gpulab::ceil_div(cols, side), gpulab::ceil_div(rows, side));
}

// One thread per element: a warp reads 32 neighbours of one input row and writes them 32 output rows apart.
template <int Side>
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    const int r = static_cast<int>(blockIdx.y) * Side + static_cast<int>(threadIdx.y);
    const int c = static_cast<int>(blockIdx.x) * Side + static_cast<int>(threadIdx.x);
    if (r < rows && c < cols) out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
}

// A block of Side × kBlockRows threads moves one Side × Side tile: it reads the tile's rows from `in`
// (coalesced) into shared memory, then writes the tile's columns, read back from shared memory, as rows of
// `out` (coalesced). Each thread moves Side / kBlockRows elements of its tile column. The loops have a fixed
// trip count, so they unroll and all of a thread's loads are in flight before its first store; a whole tile
// (most of them) needs no bounds checks, and its addresses advance by a stride instead of a multiplication.
template <int Side>
__global__ void __launch_bounds__(Side * banks::kBlockRows)
    transpose_plain_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    constexpr int kRows = banks::kBlockRows, kSteps = Side / kRows;
    __shared__ float tile[Side * Side];  // element (row, col) at row * Side + col: PlainLayout for Side = 32
    const int tile_row = static_cast<int>(blockIdx.y) * Side;
    const int tile_col = static_cast<int>(blockIdx.x) * Side;
    const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
    const bool whole = tile_row + Side <= rows && tile_col + Side <= cols;
    // Load: step k moves tile row j = y + k·kRows; a warp reads 32 neighbours of an input row and writes them
    // along a tile row.
    const float* src = in + std::size_t(tile_row + y) * cols + tile_col + x;
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
        const int j = y + k * kRows;
        if (whole || (tile_row + j < rows && tile_col + x < cols)) tile[j * Side + x] = src[std::size_t(k * kRows) * cols];
    }
    __syncthreads();
    // Store: step k moves tile column j; a warp reads it (lane x reads row x) and writes it as 32 neighbours of
    // output row tile_col + j.
    float* dst = out + std::size_t(tile_col + y) * rows + tile_row + x;
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
        const int j = y + k * kRows;
        if (whole || (tile_col + j < cols && tile_row + x < rows)) dst[std::size_t(k * kRows) * rows] = tile[x * Side + j];
    }
}

void check_shape(int rows, int cols, int side) {
    if (rows < 1 || cols < 1) throw std::invalid_argument("a matrix has at least one row and one column");
    if (side != 16 && side != 32) throw std::invalid_argument("the block or tile side must be 16 or 32");
}

}  // namespace

void launch_transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream, int side) {
    check_shape(rows, cols, side);
    if (side == 16) transpose_naive_kernel<16><<<tile_grid(rows, cols, 16), dim3(16, 16), 0, stream>>>(in, out, rows, cols);
    else transpose_naive_kernel<32><<<tile_grid(rows, cols, 32), dim3(32, 32), 0, stream>>>(in, out, rows, cols);
    LABS_CHECK_LAUNCH();
}

void launch_transpose_plain(const float* in, float* out, int rows, int cols, cudaStream_t stream, int side) {
    check_shape(rows, cols, side);
    const dim3 block(static_cast<unsigned>(side), banks::kBlockRows);
    if (side == 16) transpose_plain_kernel<16><<<tile_grid(rows, cols, 16), block, 0, stream>>>(in, out, rows, cols);
    else transpose_plain_kernel<32><<<tile_grid(rows, cols, 32), block, 0, stream>>>(in, out, rows, cols);
    LABS_CHECK_LAUNCH();
}
