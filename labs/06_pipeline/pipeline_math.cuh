/**
 * @file pipeline_math.cuh
 * @brief Lab 06: the math every variant does on a tile, the order it does it in, and the block's final sum —
 * shared, so that all variants compute the same bits.
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <cstdint>

#include <cuda_bf16.h>

#include "pipeline.hpp"

/** @brief Where tile @p j of block @p b starts, and how many values it has (0 past the end). */
struct TileSpan {
    std::size_t first = 0;  ///< index of its first value in Work::in
    int count = 0;          ///< values in it (kTileElems but for the last tile)
};

/** @brief Tile @p j (0 … T − 1) of block @p b. @param w the work @param b block @param j tile of the block */
__host__ __device__ inline TileSpan tile_span(const Work& w, int b, int j) {
    const std::size_t tile = std::size_t(b) * w.tiles_per_block + j;
    const std::size_t first = tile * kTileElems;
    if (j >= w.tiles_per_block || first >= w.n) return {first, 0};
    const std::size_t left = w.n - first;
    return {first, static_cast<int>(left < std::size_t(kTileElems) ? left : std::size_t(kTileElems))};
}

/** @brief The 16-byte piece of a tile that thread @p t reads @p k-th (k < 4): piece (t + 32) mod 256 + 256·k, so a
 *  warp reads 512 consecutive bytes at a time (free of bank conflicts), and every thread reads pieces that the
 *  *next* warp's lanes would copy in a plain loop (piece t + 256·k). As in any real kernel (a GEMM reads its tile
 *  along k, across the threads that loaded it), no thread reads only what it copied itself: the barriers matter. */
__host__ __device__ constexpr int piece_read(int t, int k) { return (t + 32) % kThreads + k * kThreads; }

/** @brief The math on one tile (in shared or global memory, 16-byte aligned): this thread's 16-byte pieces
 *  piece_read(threadIdx.x, k) (k < 4, eight values each) are read at once, each of the 32 values is taken
 *  through @p iters multiply-adds (32 independent chains, so the math runs at the SM's issue rate, not at one chain's latency) and added to
 *  @p acc in a fixed order. Pieces at or past @p count are skipped (count is a multiple of 8).
 *  @param tile the tile's values @param count how many @param iters steps per value (0: convert and add only)
 *  @param acc this thread's running sum */
__device__ __forceinline__ float consume_tile(const __nv_bfloat16* tile, int count, int iters, float acc) {
    constexpr int kPieces = kTileChunks / kThreads;  // 16-byte pieces per thread
    const auto* pieces = reinterpret_cast<const uint4*>(tile);
    float x[kPieces * 8];
#pragma unroll
    for (int k = 0; k < kPieces; ++k) {
        const int c = piece_read(threadIdx.x, k);
        const uint4 v = c * 8 < count ? pieces[c] : make_uint4(0, 0, 0, 0);
        const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int h = 0; h < 4; ++h) {  // a BF16 is the top half of a float: shift the low value up, mask the high one
            x[k * 8 + 2 * h] = __uint_as_float(words[h] << 16);
            x[k * 8 + 2 * h + 1] = __uint_as_float(words[h] & 0xFFFF0000u);
        }
    }
    for (int s = 0; s < iters; ++s)
#pragma unroll
        for (int i = 0; i < kPieces * 8; ++i) x[i] = __fmaf_rn(x[i], 0.9990234375f, 0.0009765625f);
#pragma unroll
    for (int k = 0; k < kPieces; ++k)
        if (piece_read(threadIdx.x, k) * 8 < count)
#pragma unroll
            for (int e = 0; e < 8; ++e) acc = __fadd_rn(acc, x[k * 8 + e]);
    return acc;
}

/** @brief Stamps the SM's clock (clock64) for tile @p j of block 0, one lane per warp, when the bench asks for a
 *  timeline (Work::timeline); does nothing otherwise (one test of a pointer). Marks are optional for grading:
 *  the bench's timeline figure shows what your kernels mark. @param w the work @param j tile of the block
 *  @param what which moment */
__device__ __forceinline__ void mark(const Work& w, int j, Mark what) {
    if (w.timeline == nullptr || blockIdx.x != 0 || threadIdx.x % 32 != 0 || j < 0 || j >= w.tiles_per_block) return;
    w.timeline[(std::size_t(threadIdx.x / 32) * w.tiles_per_block + j) * kMarks + what] = clock64();
}

/** @brief The barrier the kThreads computing threads of a block (threads 0 … kThreads − 1) wait at: the whole
 *  block when it has no other threads; with a producer warp beside them (part d), a named barrier of just
 *  those threads, which the producer does not join. */
__device__ __forceinline__ void compute_threads_barrier() {
    if (blockDim.x == kThreads) __syncthreads();
    else asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory");
}

/** @brief Writes the block's sum of @p acc to @p out[blockIdx.x], always in the same order (a warp tree,
 *  then the warps' sums one after another). Threads 0 … kThreads − 1 must all call it (a producer warp beyond
 *  them must not). */
__device__ __forceinline__ void write_block_sum(float acc, float* out) {
    __shared__ float warp_sums[kThreads / 32];
    for (int offset = 16; offset > 0; offset /= 2) acc = __fadd_rn(acc, __shfl_down_sync(0xFFFFFFFFu, acc, offset));
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    compute_threads_barrier();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < kThreads / 32; ++w) s = __fadd_rn(s, warp_sums[w]);
        out[blockIdx.x] = s;
    }
}
