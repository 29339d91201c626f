// Lab 07 — THE FILE YOU EDIT. Read labs/07_attention/README.md first.
//
// Goal: (a) a row softmax whose statistics take one pass over the row (the online (m, ℓ) state), (b) the
// attention forward pass without L × L buffers (FlashAttention-2's loop order), on tensor cores, and (c) the same
// on Hopper with TMA and wgmma (FlashAttention-3's structure; graded on a GPU of compute capability 9.0). All are
// graded for their bits against the given paths and for their speed.
//
// Untouched, this file compiles, runs and scores 0: the kernels below are skeletons and the launchers launch
// nothing.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "attention.hpp"
#include "labs/cuda_check.hpp"
#include "labs/hopper.cuh"
#include "labs/launch.hpp"
#include "labs/mma.cuh"
#include "labs/tma.hpp"

namespace ptx = gpulab::ptx;

namespace {

// ---- (a) the softmax ---------------------------------------------------------------------------------------

constexpr int kSoftmaxThreads = 256;
constexpr std::int64_t kSoftmaxChunk = 16384;  // values of one row per block: a long row is split over blocks

/// The softmax's state of a part of a row: its maximum m and ℓ = Σ e^(x − m) over the values seen.
struct MaxSum {
    float m;  // −∞: nothing seen
    float l;
};

// TODO(student) (a): the state of two parts together: (m, ℓ) ⊕ (m', ℓ') = (M, ℓ·e^(m − M) + ℓ'·e^(m' − M)),
// M = max(m, m'). Mind two parts that saw only −∞ (e^(−∞ − (−∞)) is NaN).
__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
    gpulab::unused(b);
    return a;
}

// Block (s, r): the state of values [s · kSoftmaxChunk, (s + 1) · kSoftmaxChunk) of row r, into
// partial[r · gridDim.x + s].
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_stats_kernel(const float* x, std::int64_t cols, MaxSum* partial) {
    const std::int64_t first = blockIdx.x * kSoftmaxChunk, last = min(cols, first + kSoftmaxChunk);
    MaxSum s{-INFINITY, 0.0f};
    // TODO(student) (a): one pass over this thread's values of [first, last) of row blockIdx.y: a new maximum
    // rescales ℓ (several loads in flight per thread; one rescale per group of values, not per value, is cheaper).
    // Then merge the states of the warp (__shfl_xor_sync), of the block (shared memory) and write the block's.
    gpulab::unused(x, first, last, s, partial);
}

// Block (s, r) writes part s of row r: it merges the row's partial states (every block of the row in the same
// order, so that they all divide by the same ℓ), then writes e^(x − m) / ℓ for each of its values.
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_write_kernel(const float* x, float* y, std::int64_t cols,
                                                                        const MaxSum* partial) {
    // TODO(student) (a)
    gpulab::unused(x, y, cols, partial);
}

// ---- (b) attention ------------------------------------------------------------------------------------------

constexpr int kBr = 64;               // query rows per block: 4 warps × 16 rows (one m16n8k16 row tile each)
constexpr int kBc = 64;               // keys per K/V tile
constexpr int kThreads = 128;

// A block owns kBr query rows of one head (blockIdx.y = batch · heads + head) and streams K/V tiles of kBc keys
// through shared memory. D = head_dim (64 or 128). Dynamic shared memory: Q [kBr][D], K [kBc][D], V [kBc][D]
// (BF16; double-buffer K and V to load the next tile while this one is used).
template <int D, bool kCausal>
__global__ void __launch_bounds__(kThreads) attention_kernel(AttentionArgs a, float scale_log2) {
    extern __shared__ __align__(128) __nv_bfloat16 smem[];
    const int L = a.seq_len;
    const int q0 = blockIdx.x * kBr;
    const std::size_t head = std::size_t(blockIdx.y) * L * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // A lane's part of an m16n8 accumulator fragment: rows g and g + 8 of the warp's 16, columns 2t and 2t + 1.
    const int g = lane / 4, t = lane % 4;

    float o[D / 8][4] = {};  // this warp's 16 rows of O: D / 8 fragments of 16 × 8
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows g and g + 8: running max and sum
    // TODO(student) (b): copy the block's Q rows into shared memory (ptx::cp_async_16; rows ≥ L as zeros) and
    // load the warp's Q fragments (ptx::ldmatrix_x4) once.
    const int kv_tiles = (L + kBc - 1) / kBc;  // causal: the tiles past the block's last row are not needed
    for (int j = 0; j < kv_tiles; ++j) {
        // TODO(student) (b): tile j of K and V in shared memory (load the next one while this one is used).
        float s[kBc / 8][4] = {};  // S = Q·Kᵀ for the warp's 16 rows × kBc keys
        // TODO(student) (b): S on tensor cores: for each 16 of D, K's fragments (ptx::ldmatrix_x4 of K's rows
        // gives Kᵀ's B fragments), ptx::mma_bf16_16816.
        // TODO(student) (b): scale (scale_log2 = log2(e)/√d: exponentials in base 2, exp2f), mask keys ≥ L and,
        // causal, keys past the row (−∞); the tile's max of each row (the 4 lanes of a row: shuffles); the new m,
        // the rescale of ℓ and of o; P = 2^(s − m) in place of s, added into ℓ.
        // TODO(student) (b): O += P·V: P rounded to BF16 from s's registers is already in A-fragment order;
        // V's B fragments from ptx::ldmatrix_x4_trans.
        // TODO(student) (b): a barrier before the buffers are refilled.
        gpulab::unused(s, scale_log2, kCausal);
    }
    // TODO(student) (b): sum ℓ over the 4 lanes of each row, write O / ℓ (BF16) for rows < L and, from one lane of
    // each row, a.lse = m · ln 2 + ln ℓ (m is in base 2).
    gpulab::unused(smem, q0, head, warp, g, t, o, m, l);
}

// ---- (c) the Hopper forward ---------------------------------------------------------------------------------

// TODO(student) (c) (README, "(c)"; the wrappers: labs/hopper.cuh, labs/tma.hpp). The suggested path, d = 128:
//  - a block of 3 warpgroups owns 128 query rows: warpgroup 0 produces, warpgroups 1 and 2 consume 64 rows each;
//    key tiles of 128; dynamic shared memory (1024-byte aligned): Q (two boxes of (128 rows, 64 dims)), 2 stages
//    of K and 2 of V (each two such boxes), then the barriers: q_full, and per stage k_full, k_empty, v_full,
//    v_empty (full: 1 arrival + the bytes; empty: 2 arrivals, one per consumer);
//  - the producer (setmaxnreg_dec<24>, one thread): Q's two boxes onto q_full, then per key tile wait k_empty
//    (parity phase ^ 1), arrive_expect_tx(k_full, 32 KiB), tma_load_3d K's two boxes; the same for V;
//  - a consumer (setmaxnreg_inc<240>): float o[64], s[64]; per tile wait k_full, wgmma_fence, 8 ×
//    wgmma_m64n128k16_bf16<0> (Q and K both K-major: desc(box + 32·(kk % 4), 16, 1024), box kk / 4), commit,
//    wait<0>, release k_empty; mask (keys ≥ L; causal, keys past the row), the online update as in (b) (rows
//    row0 and row0 + 8 per thread, the 4 lanes of a row: shuffles), rescale o; pack P to BF16 in A-fragment order;
//    wait v_full, wgmma_fence, 8 × wgmma_m64n128k16_bf16_rs<1>(o, p[kk], desc(v + 2048·kk, 16 KiB, 1024), 1),
//    commit, wait<0>, release v_empty;
//  - the epilogue as (b)'s: O / ℓ for rows < L, the LSE from one lane of each row.
// Put the kernel's body under #if defined(__CUDA_ARCH_FEAT_SM90_ALL): the file is compiled for other GPUs too.
// The grader reads the machine code of the kernels your launcher runs (code.hopper): they must hold wgmma and TMA
// loads, and no mma.sync or cp.async — part (c) is timed only then.
template <bool kCausal>
__global__ void attention_hopper_kernel(const __grid_constant__ gpulab::TensorMap map_q, const __grid_constant__ gpulab::TensorMap map_k,
                                        const __grid_constant__ gpulab::TensorMap map_v, AttentionArgs a, float scale_log2) {
    gpulab::unused(map_q, map_k, map_v, a, scale_log2);
}

}  // namespace

void launch_softmax(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream) {
    // TODO(student) (a): check the shape (throw std::invalid_argument), take rows · ⌈cols / kSoftmaxChunk⌉
    // MaxSum of scratch (ws.take), launch softmax_stats_kernel then softmax_write_kernel on a grid of
    // (parts, rows), LABS_CHECK_LAUNCH() after each, and ws.release_all() at the end.
    gpulab::unused(x, y, rows, cols, ws, stream, &softmax_stats_kernel, &softmax_write_kernel, &merge);
}

void launch_attention(const AttentionArgs& a, Arena& ws, cudaStream_t stream) {
    // TODO(student) (b): check the shape (head_dim 64 or 128: throw std::invalid_argument otherwise), opt in to
    // the dynamic shared memory once per instance (cudaFuncSetAttribute, ...MaxDynamicSharedMemorySize), launch
    // attention_kernel<D, causal> on a grid of (⌈L / kBr⌉, batch · heads) with scale_log2 = log2(e) / √d, then
    // LABS_CHECK_LAUNCH().
    gpulab::unused(a, ws, stream, &attention_kernel<64, false>);
}

void launch_attention_hopper(const AttentionArgs& a, Arena& ws, cudaStream_t stream) {
    // TODO(student) (c): throw std::invalid_argument with gpulab::sm90a_unavailable()'s reason when it gives one, and
    // unless head_dim is 128; opt in to the dynamic shared memory once; encode Q, K and V's maps
    // (gpulab::make_tensor_map_3d_bf16: [batch · heads][L][128], boxes of (1, 128 rows, 64 dims)); launch
    // attention_hopper_kernel<causal> with 384 threads on a grid of (⌈L / 128⌉, batch · heads), then
    // LABS_CHECK_LAUNCH().
    gpulab::unused(a, ws, stream, &attention_hopper_kernel<false>);
}
