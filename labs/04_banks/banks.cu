// Lab 04 — THE FILE YOU EDIT. Read labs/04_banks/README.md first.
//
// Goal: a transpose whose shared-memory tile is read down its columns without bank conflicts, in two ways:
// padding each row (a few extra bytes) and XOR-swizzling the columns (no extra bytes). A layout is a type
// with kElements (its footprint in elements) and offset(row, col) (where element (row, col) of the 32×32
// tile lives): see PlainLayout in banks.hpp. The grader evaluates your layouts on the host with the bank
// model, times them with a clock64() probe on the GPU, and times your transposes against the copy.
//
// Untouched, this file compiles, runs and scores 0: the layouts are the plain one and the launchers
// launch nothing.
#include "banks.hpp"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"

// TODO(student) (a): rows banks::kTile + 1 elements apart, so that the 32 rows of one column fall in 32
// different banks. Set kElements to what the padded tile occupies.
struct PaddedLayout {
    static constexpr int kElements = PlainLayout::kElements;
    __host__ __device__ static constexpr int offset(int row, int col) { return PlainLayout::offset(row, col); }
};

// TODO(student) (b): rows kTile elements apart as in PlainLayout, but element (row, col) stored in column
// col XOR row of its row. Not one extra byte.
struct SwizzledLayout {
    static constexpr int kElements = PlainLayout::kElements;
    __host__ __device__ static constexpr int offset(int row, int col) { return PlainLayout::offset(row, col); }
};

// TODO(student) (c): a 32×32 tile of BF16 (2-byte elements) whose row writes and column reads are one round
// each, in no more than 32 · 32 · 2 bytes. First work out what a bank holds, and how many rounds a column of
// the plain BF16 layout costs.
struct SwizzledLayoutBf16 {
    static constexpr int kElements = PlainLayout::kElements;
    __host__ __device__ static constexpr int offset(int row, int col) { return PlainLayout::offset(row, col); }
};

namespace {

// TODO(student): the tiled transpose through any layout, for float and __nv_bfloat16. Start from
// transpose_plain_kernel in baseline.cu (blocks of kTile × kBlockRows threads, partial tiles at the edges)
// and replace its two shared-memory index expressions with Layout::offset(row, col).
template <class Layout, class T>
__global__ void transpose_tiled(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    gpulab::unused(in, out, rows, cols);
}

}  // namespace

// TODO(student): launch transpose_tiled<PaddedLayout, float> on `stream` over a grid of
// ceil(cols / kTile) × ceil(rows / kTile) blocks of kTile × kBlockRows threads, then LABS_CHECK_LAUNCH().
void launch_transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    gpulab::unused(in, out, rows, cols, stream, &transpose_tiled<PaddedLayout, float>);
}

// TODO(student): the same with SwizzledLayout.
void launch_transpose_swizzled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    gpulab::unused(in, out, rows, cols, stream, &transpose_tiled<SwizzledLayout, float>);
}

// TODO(student): the same for BF16 with SwizzledLayoutBf16.
void launch_transpose_swizzled_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols,
                                    cudaStream_t stream) {
    gpulab::unused(in, out, rows, cols, stream, &transpose_tiled<SwizzledLayoutBf16, __nv_bfloat16>);
}
