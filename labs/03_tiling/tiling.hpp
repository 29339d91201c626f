/**
 * @file tiling.hpp
 * @brief Lab 03 interface: C = A·W in BF16 with FP32 accumulation, as a naive kernel (the baseline),
 * shared-memory tiles (v1), register tiles (v2), tensor-core tiles (v3), v3 with the SiLU epilogue fused
 * after each tile's K loop, and Hopper's copy engine and warpgroup products (v4: TMA, wgmma, mbarriers).
 *
 * FROZEN: do not edit. Every matrix is row-major BF16 in device memory: A is [M, K], W is [K, N],
 * C (and Y) is [M, N], M, N, K ≥ 1. Each variant accumulates in FP32 and rounds once to BF16 when it
 * stores (tiling_math.cuh). Every launcher has the same signature, enqueues on `stream` and returns
 * without synchronising; an unsupported shape throws std::invalid_argument before anything is launched.
 */
#pragma once

#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "labs/activations.hpp"

// ---- Given: the baseline, a separate SiLU, and cuBLAS (baseline.cu) -----------------------------------

/**
 * @brief The baseline: one thread per output C[i, j], looping over all of K (section 5.2.1). Every
 * multiply-add reads both operands from device memory (through the caches). Any M, N, K ≥ 1.
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows of A and C
 * @param N columns of W and C @param K reduction length @param stream stream to launch on
 */
void launch_gemm_naive(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                       cudaStream_t stream);

// The unfused epilogue as its own kernel, launch_silu(C, Y, count, stream): Y = round_to_bf16(SiLU(C)),
// element by element, with the same function as tiling::silu_of_output(). It reads C from device memory
// and writes Y back (the 48 MiB that fusion saves). It is the course's shared SiLU kernel
// (labs/activations.hpp).
using gpulab::launch_silu;

/**
 * @brief The baseline for speed, and the expected output at the full shape: cuBLAS (cublasGemmEx), BF16
 * inputs and output, FP32 accumulation (CUBLAS_COMPUTE_32F). Row-major C = A·W is computed as column-major Cᵀ = Wᵀ·Aᵀ.
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows
 * @param N columns @param K reduction length @param stream stream to launch on
 */
void launch_gemm_cublas(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream);

// ---- Yours (tiling.cu) -----------------------------------------------------------------------------

/**
 * @brief v1, shared-memory tiles: a block computes a BM × BN tile of C, walking K in steps of BK; at each
 * step the block copies an A tile (BM, BK) and a W tile (BK, BN) into shared memory once, and every
 * thread reads its operands from there. Any M, N, K ≥ 1.
 *
 * Defined in tiling.cu as a template; the build instantiates it for the tiles the experiment sweeps
 * (TILING_V1_TILES: <32, 32, 32>, <64, 64, 32> and <128, 128, 32>).
 * @tparam BM tile rows @tparam BN tile columns @tparam BK K step
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows
 * @param N columns @param K reduction length @param stream stream to launch on
 */
template <int BM, int BN, int BK>
void launch_gemm_v1_tiles(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream);

/** @brief What a launcher launches, for the occupancy API: the kernel, its block size and its dynamic
 *  shared memory. */
struct KernelInfo {
    const void* kernel = nullptr;   ///< the __global__ function
    int threads = 0;                ///< threads per block
    std::size_t dynamic_smem = 0;   ///< dynamic shared memory per block, bytes
};

/**
 * @brief The kernel that launch_gemm_v1_tiles<BM, BN, BK> launches (the experiment asks the occupancy
 * API how many of its blocks fit on one SM). Instantiated for the same three tiles.
 * @tparam BM tile rows @tparam BN tile columns @tparam BK K step
 */
template <int BM, int BN, int BK>
KernelInfo gemm_v1_kernel_info();

/**
 * @brief The one list of the tiles the experiment sweeps: calls X(BM, BN, BK) for each. The build
 * instantiates your launch_gemm_v1_tiles and gemm_v1_kernel_info for all of them (tiling_instances.cuh,
 * compiled at the end of tiling.cu); the checks and the benchmark link against those.
 */
#define TILING_V1_TILES(X) X(32, 32, 32) X(64, 64, 32) X(128, 128, 32)

/// @cond EXPLICIT_INSTANTIATIONS
#define TILING_V1_TILE_SIGNATURES(PREFIX, BM, BN, BK)                                                             \
    PREFIX void launch_gemm_v1_tiles<BM, BN, BK>(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, int, \
                                                 int, cudaStream_t);                                             \
    PREFIX KernelInfo gemm_v1_kernel_info<BM, BN, BK>();
#define TILING_EXTERN_V1_TILE(BM, BN, BK) TILING_V1_TILE_SIGNATURES(extern template, BM, BN, BK)
#define TILING_INSTANTIATE_V1_TILE(BM, BN, BK) TILING_V1_TILE_SIGNATURES(template, BM, BN, BK)
TILING_V1_TILES(TILING_EXTERN_V1_TILE)
/// @endcond

/**
 * @brief v1 as graded: the shared-memory tiling with the tile you choose (the solution uses 64 × 64,
 * BK = 32). Any M, N, K ≥ 1.
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows
 * @param N columns @param K reduction length @param stream stream to launch on
 */
void launch_gemm_v1(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream);

/**
 * @brief v2, register tiles: as v1, but each thread computes a TM × TN block of C and, at each k, loads
 * TM values of A and TN values of W from shared memory into registers and does TM·TN multiply-adds with
 * them (an outer product). Any M, N, K ≥ 1.
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows
 * @param N columns @param K reduction length @param stream stream to launch on
 */
void launch_gemm_v2(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream);

/**
 * @brief v3, tensor-core tiles: each warp computes its part of the block's tile with BF16 tensor-core
 * instructions (mma.sync or WMMA), FP32 accumulators in registers.
 *
 * Requires N % 8 == 0, K % 8 == 0 and 16-byte aligned A, W and C (so that every row starts on a 16-byte
 * boundary and a 16-byte copy never straddles the end of a row); any M ≥ 1. Otherwise it throws
 * std::invalid_argument.
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows
 * @param N columns (multiple of 8) @param K reduction length (multiple of 8) @param stream stream
 */
void launch_gemm_v3(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream);

/**
 * @brief v3 with the epilogue of section 5.4.2 fused: Y = round_to_bf16(SiLU(round_to_bf16(A·W))),
 * computed from each tile's accumulators right after its K loop (tiling::silu_epilogue()); C never
 * exists in device memory.
 *
 * Must give exactly the bits of launch_silu() applied to launch_gemm_v3()'s C: build it from your v3
 * kernel with only the store changed. Same requirements as launch_gemm_v3().
 * @param A [M, K] input @param W [K, N] weights @param Y [M, N] output @param M rows
 * @param N columns (multiple of 8) @param K reduction length (multiple of 8) @param stream stream
 */
void launch_gemm_silu(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K,
                      cudaStream_t stream);

// ---- Yours, on Hopper (tiling.cu, part v4) ---------------------------------------------------------------

/**
 * @brief v4, the Hopper GEMM (compute capability 9.0: H100, H200): tiles copied by TMA (one thread starts a whole
 * 2-D box; labs/tma.hpp, labs/hopper.cuh), products by warpgroups (wgmma reads both tiles from shared memory),
 * full and empty mbarriers between a producer warpgroup and consumer warpgroups, and a persistent tile schedule.
 *
 * Same requirements as launch_gemm_v3() (N % 8 == 0, K % 8 == 0, 16-byte aligned A, W and C: TMA's row pitch is a
 * multiple of 16 bytes), any M ≥ 1; and a GPU of compute capability 9.0 with a build that has sm_90a code
 * (gpulab::sm90a_unavailable() says why not). Otherwise it throws std::invalid_argument. The checks of part v4 are
 * SKIPPED, with the reason, where that function gives one.
 * @param A [M, K] input @param W [K, N] weights @param C [M, N] output @param M rows
 * @param N columns (multiple of 8) @param K reduction length (multiple of 8) @param stream stream
 */
void launch_gemm_v4(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream);

/**
 * @brief The steps from one consumer warpgroup to the graded kernel, for the experiment's ladder (bench: each step's
 * fraction of cuBLAS): your v4 kernel with kStages shared-memory stages, kConsumers consumer warpgroups (64 rows of
 * the tile each: a block tile of 64·kConsumers × your BN) and, when kPersistent, one block per SM walking the tiles
 * (otherwise one block per tile). Same contract as launch_gemm_v4(). Instantiated for TILING_V4_STEPS.
 * @tparam kStages shared-memory stages @tparam kConsumers consumer warpgroups @tparam kPersistent persistent grid
 */
template <int kStages, int kConsumers, bool kPersistent>
void launch_gemm_v4_config(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                           cudaStream_t stream);

/**
 * @brief The ladder the experiment measures, X(stages, consumers, persistent): one consumer warpgroup with two
 * stages, then four; two consumers; then a persistent grid (the handout's table). The build instantiates
 * launch_gemm_v4_config for each (tiling_instances.cuh).
 */
#define TILING_V4_STEPS(X) X(2, 1, false) X(4, 1, false) X(4, 2, false) X(4, 2, true)

/// @cond EXPLICIT_INSTANTIATIONS
#define TILING_V4_STEP_SIGNATURE(PREFIX, S, C, P)                                                                 \
    PREFIX void launch_gemm_v4_config<S, C, P>(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, int, \
                                               int, cudaStream_t);
#define TILING_EXTERN_V4_STEP(S, C, P) TILING_V4_STEP_SIGNATURE(extern template, S, C, P)
#define TILING_INSTANTIATE_V4_STEP(S, C, P) TILING_V4_STEP_SIGNATURE(template, S, C, P)
TILING_V4_STEPS(TILING_EXTERN_V4_STEP)
/// @endcond
