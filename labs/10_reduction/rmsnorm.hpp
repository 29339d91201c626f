/**
 * @file rmsnorm.hpp
 * @brief Lab 10 interface: RMSNorm over the rows of a BF16 matrix, four ways: one block per row (a), a row split into
 * segments whose partial sums a second stage merges (b), the same with a reduction tree that depends on the row length
 * alone, so that a row's result never depends on the batch or the run (c), and the partial sums merged by atomic adds
 * (d).
 *
 * FROZEN: do not edit. x is row-major [rows, cols] BF16, gamma [cols] BF16, y row-major [rows, cols] BF16 and scale
 * [rows] FP32, all in device memory; rows ≥ 1, cols ≥ 1 (any: odd, 1, not a multiple of anything), and a row starts
 * wherever rows · cols puts it (16-byte aligned only when cols is a multiple of 8). For each row r (rmsnorm_math.cuh
 * computes every step):
 *
 *     sum   = Σ_j x[r, j]²                      in FP32, in the order your reduction chooses
 *     scale = rmsnorm::row_scale(sum, cols, eps)   = 1 / √(sum / cols + eps), correctly rounded at each step
 *     y[r, j] = rmsnorm::normalize(x[r, j], scale, gamma[j])   = BF16((x · scale) · gamma)
 *
 * and scale[r] holds the row's scale: every output element is the normalize() of its input with that scale, bit for
 * bit, so the only freedom is the order in which the squares are added. Each launcher enqueues its work on `stream`
 * and returns without synchronising; it may use `workspace` (workspace_floats(rows) FP32 values, contents undefined on
 * entry: the grader scrambles it before every call) for partial sums, and no other memory of its own.
 */
#pragma once

#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

/** @brief The most segments a row may be split into (each one a first-stage task). */
inline constexpr int kMaxSegments = 64;

/** @brief FP32 values of the workspace every launcher receives for @p rows rows: a partial sum per segment and one
 *  more value per row. @param rows rows of the call */
[[nodiscard]] constexpr std::size_t workspace_floats(int rows) {
    return static_cast<std::size_t>(rows) * (kMaxSegments + 1);
}

/** @brief Every launcher's signature. @param x input [rows, cols] @param gamma weights [cols] @param y output [rows, cols]
 *  @param scale output [rows]: each row's scale @param rows rows @param cols columns @param eps added to the mean square
 *  @param workspace workspace_floats(rows) FP32 values @param stream the stream to enqueue on */
using RmsNormLauncher = void (*)(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                                 int rows, int cols, float eps, float* workspace, cudaStream_t stream);

// ---- Given (baseline.cu) -------------------------------------------------------------------------------------

/** @brief The given RMSNorm, one block of 256 threads per row, that the split variants are timed against at small
 *  batches. Parameters: RmsNormLauncher (the workspace is not used). */
void launch_rmsnorm_baseline(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                             int rows, int cols, float eps, float* workspace, cudaStream_t stream);

// ---- Yours (rmsnorm.cu) -------------------------------------------------------------------------------------

/** @brief (a) One block per row: the row's sum of squares, its scale and its outputs in one kernel, one launch; the
 *  workspace is not needed. Parameters: RmsNormLauncher. */
void launch_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                         int cols, float eps, float* workspace, cudaStream_t stream);

/** @brief (b) Split: each row cut into segments, their number chosen from the device and the batch so that a small
 *  batch still fills the GPU; a first stage writes one partial sum per segment to the workspace, a later stage merges
 *  a row's partial sums and normalises. Parameters: RmsNormLauncher. */
void launch_rmsnorm_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                          int cols, float eps, float* workspace, cudaStream_t stream);

/** @brief (c) Batch-invariant and deterministic: split as (b), but the segments and the order in which every partial
 *  sum is added depend on cols alone, so that a row's y and scale are bit-identical in every run and whatever the
 *  rows beside it. Parameters: RmsNormLauncher. */
void launch_rmsnorm_invariant(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                              int rows, int cols, float eps, float* workspace, cudaStream_t stream);

/** @brief (d) Atomic: each segment adds its partial sum to its row's total with a floating-point atomicAdd, in whatever
 *  order the blocks arrive; a later stage normalises. Parameters: RmsNormLauncher. */
void launch_rmsnorm_atomic(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                           int cols, float eps, float* workspace, cudaStream_t stream);
