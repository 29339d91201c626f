/**
 * @file tiled_body.cuh
 * @brief Lab 02 (d): the body of the tiled kernel, shared by the given kernel (baseline.cu) and yours
 * (tiled_bounded in occupancy.cu), so that the two differ only in their __launch_bounds__.
 *
 * FROZEN: do not edit. C = A·B, n × n FP32, row-major, n a multiple of kTile: each block of kTiledThreads
 * threads computes a kTile × kTile tile of C, stepping through K kStepK columns at a time with the A and B
 * tiles in shared memory (33 KiB per block with the padding) and an 8 × 8 block of C per thread held in
 * registers — 64 accumulators, which is what makes the kernel hungry for registers.
 */
#pragma once

#include <stdexcept>
#include <string>

#include "labs/cuda_check.hpp"
#include "occupancy.hpp"

/** @brief Columns of A (rows of B) per step through K: each step stages a kTile × kStepK tile of A and a
 *  kStepK × kTile tile of B in shared memory. */
inline constexpr int kStepK = 32;

/** @brief One block's tile of C = A·B (n × n, row-major, n a multiple of kTile); call it from a kernel of
 *  kTiledThreads threads launched on an (n / kTile) × (n / kTile) grid.
 *  @param a A @param b B @param c C @param n the side */
__device__ __forceinline__ void tiled_gemm_body(const float* __restrict__ a, const float* __restrict__ b,
                                                float* __restrict__ c, int n) {
    __shared__ float a_tile[kStepK][kTile + 4];  // A's tile transposed (k, row), padded against bank conflicts
    __shared__ float b_tile[kStepK][kTile];      // B's tile (k, col)
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // this thread: rows ty·8 + i, columns tx + 16·j
    const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < n; k0 += kStepK) {
        for (int i = threadIdx.x; i < kTile * kStepK; i += kTiledThreads) {
            const int r = i / kStepK, k = i % kStepK;
            a_tile[k][r] = a[static_cast<std::size_t>(row0 + r) * n + k0 + k];
        }
        for (int i = threadIdx.x; i < kStepK * kTile; i += kTiledThreads) {
            const int k = i / kTile, col = i % kTile;
            b_tile[k][col] = b[static_cast<std::size_t>(k0 + k) * n + col0 + col];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kStepK; ++k) {
            float av[8], bv[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) av[i] = a_tile[k][ty * 8 + i];
#pragma unroll
            for (int j = 0; j < 8; ++j) bv[j] = b_tile[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = __fmaf_rn(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) c[static_cast<std::size_t>(row0 + ty * 8 + i) * n + col0 + tx + 16 * j] = acc[i][j];
}

/** @brief A kernel running tiled_gemm_body (the given one, yours, the experiment's). */
using TiledKernel = void (*)(const float*, const float*, float*, int);

/** @brief Launches @p kernel on C = A·B (n × n, n a multiple of kTile): (n / kTile)² blocks of kTiledThreads.
 *  @param kernel the kernel @param who its launcher's name, for the error @param a A @param b B @param c C
 *  @param n the side @param stream the stream */
inline void launch_tiled_kernel(TiledKernel kernel, const char* who, const float* a, const float* b, float* c, int n,
                                cudaStream_t stream) {
    if (n <= 0 || n % kTile != 0) throw std::invalid_argument(std::string(who) + ": n must be a multiple of kTile");
    kernel<<<dim3(n / kTile, n / kTile), kTiledThreads, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}

/** @brief What the runtime says about @p kernel: registers, spills, static shared memory, and resident blocks
 *  of kTiledThreads with the largest shared-memory carveout. @param kernel the kernel */
inline TiledInfo tiled_info_of(TiledKernel kernel) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    TiledInfo t;
    t.regs_per_thread = attr.numRegs;
    t.local_bytes = attr.localSizeBytes;
    t.static_smem = attr.sharedSizeBytes;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&t.blocks_per_sm, kernel, kTiledThreads, 0));
    return t;
}
