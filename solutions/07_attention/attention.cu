// Lab 07 solution. What each part does, and why:
// (a) Softmax, two kernels. The first makes the one pass the statistics need: every thread runs the online
//     update over its values (a new maximum rescales the sum so far), then the states of threads, warps and
//     the row's blocks are merged — (m, ℓ) ⊕ (m', ℓ') = (M, ℓ·e^(m−M) + ℓ'·e^(m'−M)) with M = max(m, m'). The
//     second reads the row's merged state and writes every value: 2 reads + 1 write per value, against the
//     baseline's 3 + 1. A state of an all −∞ part is (−∞, 0) and merges as nothing.
// (b) Attention, FlashAttention-2's order: a block owns 64 query rows of one head (4 warps × 16 rows) and
//     streams K/V tiles of 64 keys through shared memory (two buffers, cp.async, the next tile loading while
//     this one is used). Per tile: S = Q·Kᵀ on tensor cores (Q's fragments stay in registers), the online
//     update per row (the running max and a rescale of O's accumulators and of the partial sum ℓ), P rounded
//     to BF16 straight from S's accumulator registers into A fragments, O += P·V. The rows are normalised once,
//     at the end, and m + ln ℓ is written as the row's log-sum-exp. Causal: tiles past the diagonal are never
//     loaded; the diagonal tile is masked per element. Exponentials in base 2 with log2(e)/√d folded into the
//     scale. Shared-memory rows are XOR-swizzled by 16-byte chunk (lab 04), so ldmatrix reads conflict-free.
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

// ---- (a) ---------------------------------------------------------------------------------------------------

constexpr int kSoftmaxThreads = 256;
constexpr std::int64_t kSoftmaxChunk = 16384;  // values of one row per block

struct MaxSum {
    float m;  // running maximum (−∞: nothing seen)
    float l;  // Σ e^(x − m)
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
    const float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) return {m, 0.0f};
    return {m, a.l * expf(a.m - m) + b.l * expf(b.m - m)};  // e^(−∞ − m) = 0 for a part that saw nothing
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum s) {
    for (int offset = 16; offset > 0; offset /= 2)
        s = merge(s, {__shfl_xor_sync(0xFFFFFFFFu, s.m, offset), __shfl_xor_sync(0xFFFFFFFFu, s.l, offset)});
    return s;
}

// Values [first, last) of a row as the kernels read them: four 16-byte loads in flight per thread when the row
// is 16-byte aligned (cols a multiple of 4), else four single values. `use` gets each group of values; a value
// past `last` arrives as −∞ (nothing, to the statistics).
template <bool kVec, typename Use>
__device__ __forceinline__ void for_each_group(const float* row, std::int64_t first, std::int64_t last, Use use) {
    constexpr int kLoads = 4;
    if constexpr (kVec) {
        const auto* row4 = reinterpret_cast<const float4*>(row);
        const std::int64_t first4 = first / 4, last4 = last / 4;  // chunks and 2^20-long rows are multiples of 4
        for (std::int64_t c = first4 + threadIdx.x; c < last4; c += kLoads * kSoftmaxThreads) {
            float4 v[kLoads];
#pragma unroll
            for (int u = 0; u < kLoads; ++u) {
                const std::int64_t i = c + u * kSoftmaxThreads;
                v[u] = i < last4 ? row4[i] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
            }
            use(reinterpret_cast<const float*>(v), kLoads * 4, c * 4, kSoftmaxThreads * 4);
        }
    } else {
        for (std::int64_t c = first + threadIdx.x; c < last; c += kLoads * kSoftmaxThreads) {
            float v[kLoads];
#pragma unroll
            for (int u = 0; u < kLoads; ++u) {
                const std::int64_t i = c + u * kSoftmaxThreads;
                v[u] = i < last ? row[i] : -INFINITY;
            }
            use(v, kLoads, c, kSoftmaxThreads);
        }
    }
}

// Block (s, r): the state of values [s·chunk, (s+1)·chunk) of row r, into partial[r · splits + s].
template <bool kVec>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_stats_kernel(const float* x, std::int64_t cols, MaxSum* partial) {
    const std::int64_t first = blockIdx.x * kSoftmaxChunk, last = min(cols, first + kSoftmaxChunk);
    MaxSum s{-INFINITY, 0.0f};
    // One rescale per group of values, not per value: the group's maximum first, then its exponentials.
    for_each_group<kVec>(x + blockIdx.y * cols, first, last, [&](const float* v, int n, std::int64_t, int) {
        float m = s.m;
#pragma unroll
        for (int u = 0; u < n; ++u) m = fmaxf(m, v[u]);
        if (m == -INFINITY) return;
        float l = s.l * expf(s.m - m);
#pragma unroll
        for (int u = 0; u < n; ++u) l += expf(v[u] - m);
        s = {m, l};
    });
    s = warp_merge(s);
    __shared__ MaxSum warps[kSoftmaxThreads / 32];
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        MaxSum b = warps[0];
        for (int w = 1; w < kSoftmaxThreads / 32; ++w) b = merge(b, warps[w]);
        partial[blockIdx.y * gridDim.x + blockIdx.x] = b;
    }
}

// Block (s, r) writes part s of row r — taken in reverse order, so that the first blocks read what the
// statistics pass read last, still in L2. The first warp merges the row's partial states (the same order in
// every block of the row, so every block normalises by the same ℓ).
template <bool kVec>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_write_kernel(const float* x, float* y, std::int64_t cols,
                                                                        const MaxSum* partial) {
    const unsigned part = gridDim.x - 1 - blockIdx.x, r = gridDim.y - 1 - blockIdx.y;
    __shared__ MaxSum row_state;
    if (threadIdx.x < 32) {
        MaxSum s{-INFINITY, 0.0f};
        for (unsigned p = threadIdx.x; p < gridDim.x; p += 32) s = merge(s, partial[r * gridDim.x + p]);
        s = warp_merge(s);
        if (threadIdx.x == 0) row_state = s;
    }
    __syncthreads();
    const float m = row_state.m, inv = 1.0f / row_state.l;
    const std::int64_t first = part * kSoftmaxChunk, last = min(cols, first + kSoftmaxChunk);
    float* out = y + r * cols;
    for_each_group<kVec>(x + r * cols, first, last, [&](const float* v, int n, std::int64_t at, int stride) {
        if constexpr (kVec) {
#pragma unroll
            for (int u = 0; u < n / 4; ++u) {
                const std::int64_t i = at + std::int64_t(u) * stride;
                if (i >= last) break;
                *reinterpret_cast<float4*>(out + i) = make_float4(expf(v[4 * u] - m) * inv, expf(v[4 * u + 1] - m) * inv,
                                                                  expf(v[4 * u + 2] - m) * inv, expf(v[4 * u + 3] - m) * inv);
            }
        } else {
#pragma unroll
            for (int u = 0; u < n; ++u) {
                const std::int64_t i = at + std::int64_t(u) * stride;
                if (i < last) out[i] = expf(v[u] - m) * inv;
            }
        }
    });
}

// ---- (b) ---------------------------------------------------------------------------------------------------

constexpr int kBc = 64;        // keys per K/V tile
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;

// Element offset of (row, 16-byte chunk) in a tile of rows of D BF16 values, chunks XOR-swizzled by row % 8.
template <int D>
__device__ __forceinline__ int swz(int row, int chunk) {
    return row * D + ((chunk ^ (row & 7)) * 8);
}

// Copies `rows` rows from row0 of one head's [L, D] matrix into a swizzled tile; rows ≥ L become zeros.
template <int D>
__device__ __forceinline__ void load_tile(__nv_bfloat16* tile, const __nv_bfloat16* head, int row0, int rows, int L) {
    constexpr int kChunks = D / 8;
    for (int i = threadIdx.x; i < rows * kChunks; i += kThreads) {
        const int r = i / kChunks, c = i % kChunks;
        const bool ok = row0 + r < L;
        ptx::cp_async_16(tile + swz<D>(r, c), ok ? head + std::size_t(row0 + r) * D + c * 8 : head, ok);
    }
}

// 2^x on the special-function unit, results below 2^-126 flushed to zero (a probability that small adds nothing a BF16
// P or an FP32 row sum can hold): exp2f() without fast math wraps the same instruction in three more for denormals.
__device__ __forceinline__ float exp2_ftz(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
}

// MT m-tiles of 16 query rows per warp (a block: 64 · MT rows). Each K or V fragment loaded from shared memory
// feeds MT multiply-accumulates; with MT = 1 Q's fragments stay in registers, with more they are read from
// shared memory at every k-step (registers go to the accumulators).
template <int D, bool kCausal, int MT>
__global__ void __launch_bounds__(kThreads) attention_kernel(AttentionArgs a, float scale_log2) {
    constexpr int kBr = 16 * MT * kWarps;
    constexpr bool kQInRegisters = MT == 1;
    extern __shared__ __align__(128) __nv_bfloat16 smem[];
    __nv_bfloat16* sq = smem;                   // [kBr][D]
    __nv_bfloat16* sk = sq + kBr * D;           // 2 × [64][D]
    __nv_bfloat16* sv = sk + 2 * kBc * D;       // 2 × [64][D]
    const int L = a.seq_len;
    const int q_blocks = (L + kBr - 1) / kBr;
    // Heads vary fastest in the grid, so blocks start in order of the row block: causal, every head's longest rows
    // start first and its shortest last, and the last wave is short blocks (with heads slowest, the last head's
    // longest block would start late). Measured on an H100: no slower than heads slowest, within the runs' spread.
    // (c) keeps heads slowest, where heads fastest measured 4-9% slower: one block per SM, blocks of one head share
    // their K and V tiles in L2 only when they run together.
    const int qb = kCausal ? q_blocks - 1 - static_cast<int>(blockIdx.y) : static_cast<int>(blockIdx.y);
    const int q0 = qb * kBr;
    const std::size_t head = std::size_t(blockIdx.x) * L * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int ldm_i = lane / 8, ldm_r = lane % 8;  // which 8 × 8 matrix this lane addresses, and which row of it
    const int kv_tiles = kCausal ? min((L + kBc - 1) / kBc, (q0 + kBr - 1) / kBc + 1) : (L + kBc - 1) / kBc;

    load_tile<D>(sq, a.q + head, q0, kBr, L);
    load_tile<D>(sk, a.k + head, 0, kBc, L);
    load_tile<D>(sv, a.v + head, 0, kBc, L);
    ptx::cp_async_commit();

    std::uint32_t qa[kQInRegisters ? D / 16 : 1][4];  // MT = 1: this warp's 16 rows of Q as A fragments
    float o[MT][D / 8][4] = {};  // O accumulators: per m-tile rows g and g + 8, dims 8c + 2t, +1
    float m[MT][2], l[MT][2];    // per m-tile rows g and g + 8 (l: this thread's columns only)
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) m[mt][0] = m[mt][1] = -INFINITY, l[mt][0] = l[mt][1] = 0.0f;
    const auto q_fragment = [&](std::uint32_t (&f)[4], int mt, int kk) {
        ptx::ldmatrix_x4(f, sq + swz<D>(warp * 16 * MT + mt * 16 + ldm_r + (ldm_i & 1) * 8, 2 * kk + (ldm_i >> 1)));
    };

    for (int j = 0; j < kv_tiles; ++j) {
        if (j + 1 < kv_tiles) {  // the next tile loads while this one is used
            load_tile<D>(sk + ((j + 1) & 1) * kBc * D, a.k + head, (j + 1) * kBc, kBc, L);
            load_tile<D>(sv + ((j + 1) & 1) * kBc * D, a.v + head, (j + 1) * kBc, kBc, L);
        }
        ptx::cp_async_commit();
        ptx::cp_async_wait<1>();
        __syncthreads();
        if (kQInRegisters && j == 0) {
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) q_fragment(qa[kk % (kQInRegisters ? D / 16 : 1)], 0, kk);
        }
        const __nv_bfloat16* kt = sk + (j & 1) * kBc * D;
        const __nv_bfloat16* vt = sv + (j & 1) * kBc * D;

        // S = Q·Kᵀ: per m-tile 16 rows × 64 keys, 8 n-tiles of 8 keys.
        float s[MT][kBc / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            std::uint32_t qf[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                if constexpr (kQInRegisters) {
#pragma unroll
                    for (int e = 0; e < 4; ++e) qf[mt][e] = qa[kk % (kQInRegisters ? D / 16 : 1)][e];
                } else {
                    q_fragment(qf[mt], mt, kk);
                }
            }
#pragma unroll
            for (int p = 0; p < kBc / 16; ++p) {
                std::uint32_t b[4];
                ptx::ldmatrix_x4(b, kt + swz<D>(16 * p + ldm_r + (ldm_i >> 1) * 8, 2 * kk + (ldm_i & 1)));
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    ptx::mma_bf16_16816(s[mt][2 * p], qf[mt], b[0], b[1]);
                    ptx::mma_bf16_16816(s[mt][2 * p + 1], qf[mt], b[2], b[3]);
                }
            }
        }

        // The online update, in base 2: x = s · log2(e)/√d, folded into the exponent's FFMA; masked scores are −∞.
        // Only a tile that reaches past L, or (causal) past this warp's first row, has scores to mask.
        const bool edge = (j + 1) * kBc > L || (kCausal && (j + 1) * kBc - 1 > q0 + warp * 16 * MT);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            float tile_max[2] = {-INFINITY, -INFINITY};
            if (edge) {
#pragma unroll
                for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int key = j * kBc + n * 8 + 2 * t + (e & 1);
                        const int row = q0 + warp * 16 * MT + mt * 16 + g + (e >> 1) * 8;
                        if (key >= L || (kCausal && key > row)) s[mt][n][e] = -INFINITY;
                    }
            }
#pragma unroll
            for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                for (int e = 0; e < 4; ++e) tile_max[e >> 1] = fmaxf(tile_max[e >> 1], s[mt][n][e]);
            float rescale[2];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xFFFFFFFFu, tile_max[h], 1));
                tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xFFFFFFFFu, tile_max[h], 2));
                const float m_new = fmaxf(m[mt][h], tile_max[h] * scale_log2);  // −∞ stays −∞
                const float base = m_new == -INFINITY ? 0.0f : m_new;  // a row with nothing yet: every p is 0
                rescale[h] = exp2_ftz(m[mt][h] - base);                  // 0 on the row's first keys
                m[mt][h] = m_new;
                l[mt][h] *= rescale[h];
#pragma unroll
                for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                    for (int e = 2 * h; e < 2 * h + 2; ++e) {
                        s[mt][n][e] = exp2_ftz(fmaf(s[mt][n][e], scale_log2, -base));  // −∞ · scale − base: 0
                        l[mt][h] += s[mt][n][e];
                    }
            }
            // Most tiles past the first few leave every row's maximum where it was: then the warp skips the rescale.
            if (__any_sync(0xFFFFFFFFu, rescale[0] != 1.0f || rescale[1] != 1.0f)) {
#pragma unroll
                for (int c = 0; c < D / 8; ++c) {
                    o[mt][c][0] *= rescale[0], o[mt][c][1] *= rescale[0];
                    o[mt][c][2] *= rescale[1], o[mt][c][3] *= rescale[1];
                }
            }
        }

        // O += P·V: P (BF16) from S's registers; V row-major is k-major, ldmatrix.trans gives B fragments.
#pragma unroll
        for (int kk = 0; kk < kBc / 16; ++kk) {
            std::uint32_t pa[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                pa[mt][0] = pack_bf16(s[mt][2 * kk][0], s[mt][2 * kk][1]);
                pa[mt][1] = pack_bf16(s[mt][2 * kk][2], s[mt][2 * kk][3]);
                pa[mt][2] = pack_bf16(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
                pa[mt][3] = pack_bf16(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
            }
#pragma unroll
            for (int c = 0; c < D / 8; c += 2) {
                std::uint32_t b[4];
                ptx::ldmatrix_x4_trans(b, vt + swz<D>(16 * kk + ldm_r + (ldm_i & 1) * 8, c + (ldm_i >> 1)));
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    ptx::mma_bf16_16816(o[mt][c], pa[mt], b[0], b[1]);
                    ptx::mma_bf16_16816(o[mt][c + 1], pa[mt], b[2], b[3]);
                }
            }
        }
        __syncthreads();  // every warp is done with this tile's buffers before they are refilled
    }

    // Normalise, write O and the log-sum-exp (natural log of Σ e^(s/√d)).
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            l[mt][h] += __shfl_xor_sync(0xFFFFFFFFu, l[mt][h], 1);
            l[mt][h] += __shfl_xor_sync(0xFFFFFFFFu, l[mt][h], 2);
            const int row = q0 + warp * 16 * MT + mt * 16 + g + h * 8;
            if (row >= L) continue;
            const float inv = 1.0f / l[mt][h];
            __nv_bfloat16* out = a.o + head + std::size_t(row) * D;
#pragma unroll
            for (int c = 0; c < D / 8; ++c)
                *reinterpret_cast<std::uint32_t*>(out + c * 8 + 2 * t) =
                    pack_bf16(o[mt][c][2 * h] * inv, o[mt][c][2 * h + 1] * inv);
            if (t == 0) a.lse[std::size_t(blockIdx.x) * L + row] = m[mt][h] * 0.6931471805599453f + logf(l[mt][h]);
        }
}

template <int D, bool kCausal, int MT = 1>
void launch_attention_of(const AttentionArgs& a, cudaStream_t stream) {
    constexpr int kBr = 16 * MT * kWarps;
    constexpr int bytes = (kBr + 4 * kBc) * D * 2;
    static const bool opted_in = [] {  // once, outside any timed launch
        CUDA_CHECK(cudaFuncSetAttribute(attention_kernel<D, kCausal, MT>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        return true;
    }();
    (void)opted_in;
    const dim3 grid(a.batch * a.heads, (a.seq_len + kBr - 1) / kBr);
    attention_kernel<D, kCausal, MT><<<grid, kThreads, bytes, stream>>>(a, 1.4426950408889634f / std::sqrt(float(D)));
    LABS_CHECK_LAUNCH();
}


// ---- (c) the Hopper forward ------------------------------------------------------------------------------------
// What changes from (b): the tiles arrive by TMA (one thread starts each (128, 64) box; the 3-D tensor maps end a box at
// its head's last row, zeros past it), both products are wgmma — S = Q·Kᵀ reads Q and K from shared memory, O += P·V
// takes P from the registers S's accumulators left it in — and the warpgroups specialise: one producer, two consumers
// of 64 query rows each, with full and empty barriers per stage for K and for V apart, so that S can start as soon as K
// has landed. The two consumers interleave on the SM: one's softmax runs while the other's wgmma do.
namespace hopper {

namespace sm90 = gpulab::sm90;

constexpr int kD = 128, kBr = 128, kBc = 128, kStages = 2, kThreads = 384;
constexpr int kBox = 64 * 128 * 2;  // (128 rows, 64 dims) with 128-byte swizzle: 16 KiB
constexpr int kTile = 2 * kBox;     // 128 rows × 128 dims
constexpr int kSmem = kTile + 2 * kStages * kTile + 1024 + 256;

// The known-bad versions of part (c) (wrong/hopper_*.cu) include this file with one of these switched off.
#ifndef LAB07_HOPPER_DIAGONAL_TILE
#define LAB07_HOPPER_DIAGONAL_TILE 1  // causal: the tile that holds the diagonal is computed (masked), not skipped
#endif
#ifndef LAB07_HOPPER_RELEASE_AFTER_USE
#define LAB07_HOPPER_RELEASE_AFTER_USE 1  // a K stage is released once the wgmma that read it are done
#endif
#ifndef LAB07_HOPPER_OWN_KERNEL
#define LAB07_HOPPER_OWN_KERNEL 1  // (c) runs its own kernel, not (b)'s handed in again
#endif

struct Params {
    __nv_bfloat16* o;
    float* lse;
    int seq_len;
    float scale_log2;
};

template <bool kCausal>
__global__ void __launch_bounds__(kThreads, 1)
    attention_kernel(const __grid_constant__ gpulab::TensorMap map_q, const __grid_constant__ gpulab::TensorMap map_k,
                     const __grid_constant__ gpulab::TensorMap map_v, Params a) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ std::uint8_t smem_raw[];
    std::uint8_t* const smem =
        reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    std::uint8_t* const sq = smem;                  // (128, 128): two boxes of 64 dims
    std::uint8_t* const sk = sq + kTile;            // kStages × (128 keys, 128 dims)
    std::uint8_t* const sv = sk + kStages * kTile;  // kStages × (128 keys, 128 dims)
    std::uint64_t* const bar = reinterpret_cast<std::uint64_t*>(sv + kStages * kTile);
    std::uint64_t *const q_full = bar, *const k_full = bar + 1, *const k_empty = k_full + kStages,
                         *const v_full = k_empty + kStages, *const v_empty = v_full + kStages;
    const int L = a.seq_len;
    const int q_blocks = (L + kBr - 1) / kBr;
    const int qb = kCausal ? q_blocks - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);  // longest first
    const int q0 = qb * kBr, bh = blockIdx.y;
    const int diagonal = (q0 + kBr - 1) / kBc;  // the last key tile a causal row of this block reaches
    const int tiles = kCausal ? min((L + kBc - 1) / kBc, LAB07_HOPPER_DIAGONAL_TILE ? diagonal + 1 : max(diagonal, 1))
                              : (L + kBc - 1) / kBc;
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        sm90::mbar_init(q_full, 1);
        for (int s = 0; s < kStages; ++s) {
            sm90::mbar_init(&k_full[s], 1), sm90::mbar_init(&k_empty[s], 2);
            sm90::mbar_init(&v_full[s], 1), sm90::mbar_init(&v_empty[s], 2);
        }
        sm90::fence_barrier_init();
    }
    __syncthreads();

    if (wg == 0) {  // the producer: Q once, then K and V tile by tile
        sm90::setmaxnreg_dec<24>();
        if (t == 0) {
            sm90::mbar_arrive_expect_tx(q_full, kTile);
            for (int c = 0; c < 2; ++c) sm90::tma_load_3d(sq + c * kBox, &map_q, q_full, 64 * c, q0, bh);
            int s = 0;
            std::uint32_t phase = 0;
            for (int j = 0; j < tiles; ++j) {
                sm90::mbar_wait(&k_empty[s], phase ^ 1);
                sm90::mbar_arrive_expect_tx(&k_full[s], kTile);
                for (int c = 0; c < 2; ++c) sm90::tma_load_3d(sk + s * kTile + c * kBox, &map_k, &k_full[s], 64 * c, j * kBc, bh);
                sm90::mbar_wait(&v_empty[s], phase ^ 1);
                sm90::mbar_arrive_expect_tx(&v_full[s], kTile);
                for (int c = 0; c < 2; ++c) sm90::tma_load_3d(sv + s * kTile + c * kBox, &map_v, &v_full[s], 64 * c, j * kBc, bh);
                if (++s == kStages) s = 0, phase ^= 1;
            }
        }
        return;
    }

    // A consumer: 64 query rows; this thread holds rows row0 and row0 + 8 (the accumulator layout of wgmma_ops.cuh).
    sm90::setmaxnreg_inc<240>();
    const int c = wg - 1, warp = t / 32, lane = t % 32, g = lane / 4, tq = lane % 4;
    const int row0 = q0 + 64 * c + 16 * warp + g;
    float o[kD / 2], s_acc[kBc / 2];
#pragma unroll
    for (int i = 0; i < kD / 2; ++i) o[i] = 0.0f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    sm90::mbar_wait(q_full, 0);
    int s = 0;
    std::uint32_t phase = 0;
    for (int j = 0; j < tiles; ++j) {
        // S = Q·Kᵀ: Q and K both K-major (rows along d), 16 dims per wgmma, 32 bytes further along a 128-byte row.
        sm90::mbar_wait(&k_full[s], phase);
        if (!LAB07_HOPPER_RELEASE_AFTER_USE && t == 0) sm90::mbar_arrive(&k_empty[s]);
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kD / 16; ++kk) {
            const std::uint64_t dq = sm90::make_smem_desc(sq + (kk / 4) * kBox + c * 64 * 128 + (kk % 4) * 32, 16, 1024);
            const std::uint64_t dk = sm90::make_smem_desc(sk + s * kTile + (kk / 4) * kBox + (kk % 4) * 32, 16, 1024);
            sm90::wgmma_m64n128k16_bf16<0>(s_acc, dq, dk, kk > 0);
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
        if (LAB07_HOPPER_RELEASE_AFTER_USE && t == 0) sm90::mbar_arrive(&k_empty[s]);

        // The online update in base 2 (as (b)); only a tile past L or reaching a row's diagonal has scores to mask.
        const bool edge = (j + 1) * kBc > L || (kCausal && (j + 1) * kBc - 1 > q0 + 64 * c);
        if (edge) {
#pragma unroll
            for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int key = j * kBc + 8 * n + 2 * tq + (e & 1), row = row0 + 8 * (e >> 1);
                    if (key >= L || (kCausal && key > row)) s_acc[4 * n + e] = -INFINITY;
                }
        }
        float rescale[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float tile_max = -INFINITY;
#pragma unroll
            for (int n = 0; n < kBc / 8; ++n) tile_max = fmaxf(tile_max, fmaxf(s_acc[4 * n + 2 * h], s_acc[4 * n + 2 * h + 1]));
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xFFFFFFFFu, tile_max, 1));
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xFFFFFFFFu, tile_max, 2));
            const float m_new = fmaxf(m[h], tile_max * a.scale_log2);
            const float base = m_new == -INFINITY ? 0.0f : m_new;
            rescale[h] = exp2_ftz(m[h] - base);
            m[h] = m_new;
            l[h] *= rescale[h];
#pragma unroll
            for (int n = 0; n < kBc / 8; ++n)
#pragma unroll
                for (int e = 2 * h; e < 2 * h + 2; ++e) {
                    s_acc[4 * n + e] = exp2_ftz(fmaf(s_acc[4 * n + e], a.scale_log2, -base));
                    l[h] += s_acc[4 * n + e];
                }
        }
#pragma unroll
        for (int n = 0; n < kD / 8; ++n) {
            o[4 * n] *= rescale[0], o[4 * n + 1] *= rescale[0];
            o[4 * n + 2] *= rescale[1], o[4 * n + 3] *= rescale[1];
        }
        // P in the A-operand layout of wgmma from registers: keys 16kk … 16kk + 15 are accumulators 8kk … 8kk + 7.
        std::uint32_t p[kBc / 16][4];
#pragma unroll
        for (int kk = 0; kk < kBc / 16; ++kk) {
            p[kk][0] = pack_bf16(s_acc[8 * kk + 0], s_acc[8 * kk + 1]);
            p[kk][1] = pack_bf16(s_acc[8 * kk + 2], s_acc[8 * kk + 3]);
            p[kk][2] = pack_bf16(s_acc[8 * kk + 4], s_acc[8 * kk + 5]);
            p[kk][3] = pack_bf16(s_acc[8 * kk + 6], s_acc[8 * kk + 7]);
        }
        // O += P·V: V is MN-major (rows along d): the two 64-dim boxes kBox apart, 16 keys = 2048 bytes further.
        sm90::mbar_wait(&v_full[s], phase);
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBc / 16; ++kk)
            sm90::wgmma_m64n128k16_bf16_rs<1>(o, p[kk], sm90::make_smem_desc(sv + s * kTile + kk * 2048, kBox, 1024), 1);
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
        if (t == 0) sm90::mbar_arrive(&v_empty[s]);
        if (++s == kStages) s = 0, phase ^= 1;
    }

    // Normalise, write O and the log-sum-exp.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        l[h] += __shfl_xor_sync(0xFFFFFFFFu, l[h], 1);
        l[h] += __shfl_xor_sync(0xFFFFFFFFu, l[h], 2);
        const int row = row0 + 8 * h;
        if (row >= L) continue;
        const float inv = 1.0f / l[h];
        __nv_bfloat16* out = a.o + (std::size_t(bh) * L + row) * kD;
#pragma unroll
        for (int n = 0; n < kD / 8; ++n)
            *reinterpret_cast<std::uint32_t*>(out + 8 * n + 2 * tq) = pack_bf16(o[4 * n + 2 * h] * inv, o[4 * n + 2 * h + 1] * inv);
        if (tq == 0) a.lse[std::size_t(bh) * L + row] = m[h] * 0.6931471805599453f + logf(l[h]);
    }
#else
    gpulab::unused(map_q, map_k, map_v, a);  // the launcher refuses to launch where there is no sm_90a code
#endif
}

template <bool kCausal>
void launch(const AttentionArgs& a, cudaStream_t stream) {
    static_assert(kBr == kBc, "a causal block's diagonal is one key tile");
    static const bool opted_in = [] {
        CUDA_CHECK(cudaFuncSetAttribute(attention_kernel<kCausal>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
        return true;
    }();
    (void)opted_in;
    const std::uint64_t heads = std::uint64_t(a.batch) * a.heads, L = std::uint64_t(a.seq_len);
    const auto map = [&](const __nv_bfloat16* base) {  // [B·H][L][d], boxes of (128 rows, 64 dims)
        return gpulab::make_tensor_map_3d_bf16(base, kD, L, heads, kD * 2, L * kD * 2, 64, 128, 1);
    };
    const Params p{a.o, a.lse, a.seq_len, 1.4426950408889634f / std::sqrt(float(kD))};
    const dim3 grid((a.seq_len + kBr - 1) / kBr, static_cast<unsigned>(heads));
    attention_kernel<kCausal><<<grid, kThreads, kSmem, stream>>>(map(a.q), map(a.k), map(a.v), p);
    LABS_CHECK_LAUNCH();
}

}  // namespace hopper

}  // namespace

void launch_softmax(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream) {
    if (rows < 1 || rows > 65535 || cols < 1)
        throw std::invalid_argument("launch_softmax: 1 … 65535 rows of at least one value, not " + std::to_string(rows) + " × " +
                                    std::to_string(cols));
    const unsigned splits = static_cast<unsigned>((cols + kSoftmaxChunk - 1) / kSoftmaxChunk);
    auto* partial = static_cast<MaxSum*>(ws.take(std::size_t(rows) * splits * sizeof(MaxSum)));
    const dim3 grid(splits, rows);
    const bool vec = cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
    if (vec) {
        softmax_stats_kernel<true><<<grid, kSoftmaxThreads, 0, stream>>>(x, cols, partial);
        LABS_CHECK_LAUNCH();
        softmax_write_kernel<true><<<grid, kSoftmaxThreads, 0, stream>>>(x, y, cols, partial);
    } else {
        softmax_stats_kernel<false><<<grid, kSoftmaxThreads, 0, stream>>>(x, cols, partial);
        LABS_CHECK_LAUNCH();
        softmax_write_kernel<false><<<grid, kSoftmaxThreads, 0, stream>>>(x, y, cols, partial);
    }
    LABS_CHECK_LAUNCH();
    ws.release_all();
}

void launch_attention(const AttentionArgs& a, Arena& ws, cudaStream_t stream) {
    (void)ws;  // no scratch: the scores never leave the registers
    if (a.seq_len < 1 || a.batch < 1 || a.heads < 1) throw std::invalid_argument("launch_attention: empty shape");
    // Two m-tiles per warp (128 query rows per block) let each K/V fragment feed two MMAs: fewer shared-memory
    // reads per FLOP. But they halve the blocks; when that would leave SMs idle (one head, say), 64 rows win.
    static const int sms = [] {
        int device = 0, count = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    const long long wide_blocks = (a.seq_len + 127LL) / 128 * a.batch * a.heads;
    const bool wide = wide_blocks >= 2LL * sms;
    const auto run = [&]<int D, bool kCausal>() {
        wide ? launch_attention_of<D, kCausal, 2>(a, stream) : launch_attention_of<D, kCausal, 1>(a, stream);
    };
    if (a.head_dim == 64) return a.causal ? run.operator()<64, true>() : run.operator()<64, false>();
    if (a.head_dim == 128) return a.causal ? run.operator()<128, true>() : run.operator()<128, false>();
    throw std::invalid_argument("launch_attention: head_dim must be 64 or 128, not " + std::to_string(a.head_dim));
}

void launch_attention_hopper(const AttentionArgs& a, Arena& ws, cudaStream_t stream) {
    (void)ws;
    if (const std::string why = gpulab::sm90a_unavailable(); !why.empty()) throw std::invalid_argument("launch_attention_hopper: " + why);
    if (a.seq_len < 1 || a.batch < 1 || a.heads < 1) throw std::invalid_argument("launch_attention_hopper: empty shape");
    if (a.head_dim != 128) throw std::invalid_argument("launch_attention_hopper: head_dim must be 128, not " + std::to_string(a.head_dim));
    if (!LAB07_HOPPER_OWN_KERNEL) return launch_attention(a, ws, stream);
    a.causal ? hopper::launch<true>(a, stream) : hopper::launch<false>(a, stream);
}
