// Lab 03 — THE FILE YOU EDIT. Read labs/03_tiling/README.md first.
//
// Goal: C = A·W (A [M, K], W [K, N], C [M, N], row-major BF16, FP32 accumulation) five ways, each graded
// on its own: v1 shared-memory tiles, v2 register tiles, v3 tensor cores, v3 with the SiLU epilogue fused
// after each tile's K loop, and v4 on Hopper (TMA, wgmma, mbarriers; graded on a GPU of compute capability 9.0). Store every output with tiling::round_output (or round_output2), and
// the fused one with tiling::silu_epilogue (or silu_epilogue2): tiling_math.cuh.
//
// Untouched, this file compiles, runs and scores 0: the launchers launch nothing.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "labs/cuda_check.hpp"
#include "labs/hopper.cuh"
#include "labs/launch.hpp"
#include "labs/math.hpp"
#include "labs/tma.hpp"
#include "ptx.cuh"
#include "tiling.hpp"
#include "tiling_math.cuh"

namespace {

using bf16 = __nv_bfloat16;
using gpulab::ceil_div;

// ---- v1: shared-memory tiles ----------------------------------------------------------------------

constexpr int kV1Threads = 256;  // if you change it, gemm_v1_kernel_info below reports it

// TODO(student) v1: a block computes the (BM, BN) tile of C at rows blockIdx.y·BM, columns blockIdx.x·BN.
// For each K step of BK: all threads copy the A tile (BM, BK) and the W tile (BK, BN) into __shared__
// arrays (consecutive threads, consecutive elements of a row; zeros outside the matrices), __syncthreads(),
// multiply-add from shared memory into FP32 accumulators, __syncthreads(). Then store the tile, guarding
// rows ≥ M and columns ≥ N. With 256 threads and BN ≤ 256: thread t owns column t % BN and the rows
// t / BN, t / BN + 256 / BN, ... — static_assert what your indexing assumes.
template <int BM, int BN, int BK>
__global__ void __launch_bounds__(kV1Threads)
    gemm_v1_kernel(const bf16* __restrict__ A, const bf16* __restrict__ W, bf16* __restrict__ C, int M, int N, int K) {
    gpulab::unused(A, W, C, M, N, K);
}

// ---- v2: register tiles -----------------------------------------------------------------------------

// TODO(student) v2: as v1 with a larger tile (the suggested path: BM = BN = 128, BK = 16, 256 threads),
// but each thread owns a TM × TN block of C (8 × 8). At each k of a K step, load the thread's TM values of
// A and TN values of W from shared memory into registers (16 bytes each: store the A tile transposed,
// (BK, BM), so that TM rows at one k are contiguous), then do the TM·TN multiply-adds. Use 16-byte
// global loads when N % 8 == 0, K % 8 == 0 and the pointers are 16-byte aligned, element-wise loads
// otherwise (a template flag chosen by the launcher).
__global__ void gemm_v2_kernel(const bf16* __restrict__ A, const bf16* __restrict__ W, bf16* __restrict__ C, int M,
                               int N, int K) {
    gpulab::unused(A, W, C, M, N, K);
}

// ---- v3: tensor cores, and the fused epilogue ----------------------------------------------------------

// TODO(student) v3: tensor-core tiles. The suggested path (README, "v3"):
//  - block tile (128, 256), K step 32, 8 warps as (2, 4), each owning a (64, 64) warp tile of
//    (4, 8) fragments of mma.sync m16n8k16: float acc[4][8][4];
//  - tiles copied with ptx::cp_async_16 into a 4-stage ring of dynamic shared memory (96 KiB: opt in with
//    cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)); zero-fill chunks
//    outside the matrices (valid = false);
//  - per K step: ptx::cp_async_wait<stages - 2>(); __syncthreads(); start the copies of step ks + stages - 1
//    into the buffer computed last; ptx::cp_async_commit(); then, for each 16 of the 32 k, load fragments
//    with ptx::ldmatrix_x4 (A) and ptx::ldmatrix_x4_trans (W) and issue ptx::mma_bf16_16816;
//  - swizzle the shared-memory tiles (XOR the 16-byte chunk index with bits of the row) so that the 8 rows
//    an ldmatrix reads fall into 8 different bank groups;
//  - epilogue: lane l holds rows l/4 and l/4 + 8, columns 2(l%4) and 2(l%4) + 1 of each fragment; store
//    pairs with tiling::round_output2 (v3) or tiling::silu_epilogue2 (fused), guarding rows ≥ M.
// Make the epilogue a template parameter so that v3 and the fused kernel are the same code.
// WMMA (nvcuda::wmma, 16x16x16 BF16 fragments) is a simpler start that earns the correctness points.
__global__ void gemm_v3_kernel(const bf16* __restrict__ A, const bf16* __restrict__ W, bf16* __restrict__ C, int M,
                               int N, int K) {
    gpulab::unused(A, W, C, M, N, K);
}

// ---- v4: Hopper — TMA, wgmma, mbarriers, a producer warpgroup, a persistent grid -------------------------

// TODO(student) v4 (README, "v4"; the wrappers: labs/hopper.cuh, labs/tma.hpp). The suggested path:
//  - block tile (64·kConsumers, 256), K step 64 (one 128-byte swizzle row of BF16); kConsumers + 1 warpgroups:
//    warpgroup 0 the producer, the others consumers owning 64 rows each;
//  - kStages stages in dynamic shared memory, each the A box (64·kConsumers, 64) and W as four boxes (64, 64),
//    every box 1024-byte aligned (round the dynamic shared memory's start up); two mbarriers per stage:
//    full[s] (1 arrival: the producer's mbar_arrive_expect_tx of the stage's bytes) and empty[s] (one arrival
//    per consumer warpgroup); thread 0 initialises them, fence_barrier_init(), __syncthreads();
//  - producer: setmaxnreg_dec<40>(); its thread 0 walks the tiles (blockIdx.x, += gridDim.x) and their K steps:
//    wait empty[s] (parity phase ^ 1: the first pass finds every stage free), arrive_expect_tx on full[s],
//    tma_load_2d the A box and the four W boxes onto full[s]; the stage index wraps, flipping phase;
//  - consumer: setmaxnreg_inc<232>(); float acc[128]; per K step wait full[s] (parity phase), wgmma_fence(),
//    four wgmma_m64n256k16_bf16<1> (A K-major: desc(a + 32·kk, 16, 1024); W MN-major: desc(w + 2048·kk,
//    8192, 1024)), wgmma_commit(), wgmma_wait<1>(), then release the previous step's stage (one thread:
//    mbar_arrive(&empty[prev]));
//  - epilogue: the accumulator layout of labs/wgmma_ops.cuh; store pairs with tiling::round_output2, guarding
//    rows ≥ M and columns ≥ N (TMA already read zeros outside A and W).
// Put the kernel's body under #if defined(__CUDA_ARCH_FEAT_SM90_ALL): the file is compiled for other GPUs too.
// The grader reads the machine code of the kernels your launcher runs (code.v4): they must hold wgmma and TMA loads,
// and no mma.sync or cp.async — part v4 is timed only then.
template <int kStages, int kConsumers>
__global__ void gemm_v4_kernel(const __grid_constant__ gpulab::TensorMap map_a, const __grid_constant__ gpulab::TensorMap map_w,
                               bf16* __restrict__ C, int M, int N, int K) {
    gpulab::unused(map_a, map_w, C, M, N, K);
}

}  // namespace

// ---- v1 launchers -------------------------------------------------------------------------------------

template <int BM, int BN, int BK>
void launch_gemm_v1_tiles(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    // TODO(student): launch gemm_v1_kernel<BM, BN, BK> on `stream` with a grid of (⌈N/BN⌉, ⌈M/BM⌉) blocks
    // of kV1Threads, then LABS_CHECK_LAUNCH(). Do not synchronise.
    gpulab::unused(A, W, C, M, N, K, stream);
}

template <int BM, int BN, int BK>
KernelInfo gemm_v1_kernel_info() {
    return {reinterpret_cast<const void*>(&gemm_v1_kernel<BM, BN, BK>), kV1Threads, 0};
}

void launch_gemm_v1(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    launch_gemm_v1_tiles<64, 64, 32>(A, W, C, M, N, K, stream);  // the graded tile: change it if you like
}

// ---- v2, v3 and fused launchers ------------------------------------------------------------------------

void launch_gemm_v2(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    // TODO(student): launch gemm_v2_kernel on `stream` (choosing the 16-byte or the element-wise path),
    // then LABS_CHECK_LAUNCH().
    gpulab::unused(A, W, C, M, N, K, stream, &gemm_v2_kernel);
}

void launch_gemm_v3(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    // TODO(student): check the requirements (N % 8 == 0, K % 8 == 0, 16-byte aligned A, W and C; throw
    // std::invalid_argument otherwise), opt in to the dynamic shared memory once, launch gemm_v3_kernel
    // on `stream` with a grid of (⌈M/BM⌉, ⌈N/BN⌉) (row blocks fastest: blocks running together share W),
    // then LABS_CHECK_LAUNCH().
    gpulab::unused(A, W, C, M, N, K, stream, &gemm_v3_kernel);
}

void launch_gemm_silu(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K,
                      cudaStream_t stream) {
    // TODO(student): the same launch as v3, with the epilogue storing tiling::silu_epilogue2(acc) instead of
    // tiling::round_output2(acc). It must give the bits of launch_silu(launch_gemm_v3(A, W)).
    gpulab::unused(A, W, Y, M, N, K, stream);
}

// ---- v4 launchers ---------------------------------------------------------------------------------------

template <int kStages, int kConsumers, bool kPersistent>
void launch_gemm_v4_config(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                           cudaStream_t stream) {
    // TODO(student): throw std::invalid_argument with gpulab::sm90a_unavailable()'s reason when it gives one, and
    // on v3's requirements; opt in to the dynamic shared memory once; encode the maps
    // (gpulab::make_tensor_map_2d_bf16: A as K-wide rows in boxes of (64·kConsumers, 64), W as N-wide rows in boxes
    // of (64, 64)); launch gemm_v4_kernel<kStages, kConsumers> with 128·(kConsumers + 1) threads on a grid of one
    // block per tile, or min(tiles, SMs) when kPersistent; then LABS_CHECK_LAUNCH().
    gpulab::unused(A, W, C, M, N, K, stream, &gemm_v4_kernel<kStages, kConsumers>);
}

void launch_gemm_v4(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    launch_gemm_v4_config<4, 2, true>(A, W, C, M, N, K, stream);  // the graded step: change it if you like
}
