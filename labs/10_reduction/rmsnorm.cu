// Lab 10 — THE FILE YOU EDIT. Read labs/10_reduction/README.md first.
//
// Goal: RMSNorm four ways — one block per row (a), a row split into segments for small batches (b), a split whose
// order of additions depends on the row length alone (c), and a split that merges with atomicAdd (d) — each with the
// functions of rmsnorm_math.cuh (square, row_scale, normalize): the variants may differ only in the order in which
// they add a row's squares.
//
// Untouched, this file compiles, runs and scores 0: the launchers launch nothing.
#include <algorithm>
#include <cstdint>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"
#include "rmsnorm.hpp"
#include "rmsnorm_math.cuh"

namespace {

// TODO(student) (a): one block per row. Each thread adds rmsnorm::square() of its elements (8 per 16-byte load when
// cols % 8 == 0: rows are then 16-byte aligned; one at a time otherwise), the block adds the threads' sums (warp
// shuffles, then one warp over the warps' sums), thread 0 writes scale[row] = rmsnorm::row_scale(sum, cols, eps), and
// every thread writes y = rmsnorm::normalize(x, scale, gamma) for its elements.
__global__ void rows_kernel(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int cols,
                            float eps) {
    gpulab::unused(x, gamma, y, scale, cols, eps);
}

// TODO(student) (b), (c), (d): a first-stage kernel whose block (s, r) adds the squares of segment s of row r and
// writes the partial sum to the workspace (or, for (d), atomicAdd()s it to the row's total), and a second kernel that
// merges a row's partial sums in a fixed order, computes the scale and normalises (each block its own segment).

}  // namespace

void launch_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                         int cols, float eps, float* workspace, cudaStream_t stream) {
    // TODO(student): rows_kernel<<<rows, threads, 0, stream>>>(...), then LABS_CHECK_LAUNCH().
    gpulab::unused(x, gamma, y, scale, rows, cols, eps, workspace, stream, &rows_kernel);
}

void launch_rmsnorm_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                          int cols, float eps, float* workspace, cudaStream_t stream) {
    // TODO(student): choose the segments per row from the device (cudaDevAttrMultiProcessorCount) and the rows, so that
    // the first stage has a few blocks per SM (at most kMaxSegments; no segment shorter than is worth a block), then
    // launch the two stages. With one segment per row, (a) is the right kernel.
    gpulab::unused(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}

void launch_rmsnorm_invariant(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                              int rows, int cols, float eps, float* workspace, cudaStream_t stream) {
    // TODO(student): as (b), with the segments chosen from cols alone — and the same path (the same order of additions)
    // for every number of rows.
    gpulab::unused(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}

void launch_rmsnorm_atomic(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                           int cols, float eps, float* workspace, cudaStream_t stream) {
    // TODO(student): zero one FP32 total per row in the workspace (cudaMemsetAsync), a first stage that atomicAdd()s
    // each segment's sum to its row's total, then a second stage that normalises with the total.
    gpulab::unused(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}
