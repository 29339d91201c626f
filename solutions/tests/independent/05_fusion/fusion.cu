// Lab 05 — fused activation chain, SiLU(G) ⊙ U (→ FP8).
//
// Design: one device routine walks the flat [rows * cols] index space in "octets" (8 BF16 = 16 bytes per
// input), block-tile by block-tile, with every thread holding kDepth octets of G and of U in registers before
// it computes any of them. What happens to a finished BF16 product is decided by a small sink object: the
// BF16 sink stores Z, the E4M3 sink quantises and stores Q. Anything the octet walk cannot cover (a tail of
// fewer than 8 elements, or pointers that are not aligned for vector access) goes through a scalar loop that
// uses the same per-element step functions, so every path gives the same bits as the baseline chain.
#include <cstdint>
#include <cstring>

#include "fusion.hpp"
#include "fusion_math.cuh"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"

namespace {

using bf16 = __nv_bfloat16;

constexpr int kBlockThreads = 256;  // threads per block
constexpr int kDepth = 2;           // octets of each input a thread has in flight per tile
constexpr std::size_t kOctet = 8;   // BF16 values in one 16-byte vector

// ---- bit-level helpers ------------------------------------------------------------------------------

__device__ __forceinline__ __nv_bfloat162 word_to_pair(unsigned w) {
    __nv_bfloat162 p;
    memcpy(&p, &w, sizeof(p));
    return p;
}

__device__ __forceinline__ unsigned pair_to_word(__nv_bfloat162 p) {
    unsigned w;
    memcpy(&w, &p, sizeof(w));
    return w;
}

// Z for two neighbouring elements packed in one 32-bit word each: SiLU (rounded to BF16), then the product
// (rounded to BF16), exactly the baseline's two steps.
__device__ __forceinline__ __nv_bfloat162 gated_pair(unsigned g_word, unsigned u_word) {
    return fusion::mul_step2(fusion::silu_step2(word_to_pair(g_word)), word_to_pair(u_word));
}

// ---- sinks: where a finished product goes -----------------------------------------------------------

// Stores Z as BF16.
struct Bf16Sink {
    bf16* out;

    __device__ __forceinline__ void octet(std::size_t index, const uint4& g, const uint4& u) const {
        uint4 z;
        z.x = pair_to_word(gated_pair(g.x, u.x));
        z.y = pair_to_word(gated_pair(g.y, u.y));
        z.z = pair_to_word(gated_pair(g.z, u.z));
        z.w = pair_to_word(gated_pair(g.w, u.w));
        __stcs(reinterpret_cast<uint4*>(out) + index, z);
    }

    __device__ __forceinline__ void single(std::size_t i, bf16 g, bf16 u) const {
        out[i] = fusion::mul_step(fusion::silu_step(g), u);
    }
};

// Quantises Z to FP8 E4M3FN codes; the reciprocal of the scale is taken once, when the sink is built.
struct E4m3Sink {
    std::uint8_t* out;
    float inv_scale;

    __device__ __forceinline__ unsigned four_codes(unsigned g_lo, unsigned u_lo, unsigned g_hi, unsigned u_hi) const {
        const unsigned lo = fusion::quantize_step2(gated_pair(g_lo, u_lo), inv_scale);
        const unsigned hi = fusion::quantize_step2(gated_pair(g_hi, u_hi), inv_scale);
        return lo | (hi << 16);  // element order = byte order (little-endian)
    }

    __device__ __forceinline__ void octet(std::size_t index, const uint4& g, const uint4& u) const {
        uint2 q;
        q.x = four_codes(g.x, u.x, g.y, u.y);
        q.y = four_codes(g.z, u.z, g.w, u.w);
        __stcs(reinterpret_cast<uint2*>(out) + index, q);
    }

    __device__ __forceinline__ void single(std::size_t i, bf16 g, bf16 u) const {
        out[i] = fusion::quantize_step(fusion::mul_step(fusion::silu_step(g), u), inv_scale);
    }
};

// ---- the walk ----------------------------------------------------------------------------------------

// One block-tile of kDepth * blockDim octets starting at `first`: all loads of the tile first, then the math
// and the stores. kGuarded is only needed for the last, partial tile.
template <bool kGuarded, class Sink>
__device__ __forceinline__ void tile(const uint4* g, const uint4* u, std::size_t first, std::size_t octets,
                                     const Sink& sink) {
    uint4 gv[kDepth], uv[kDepth];
#pragma unroll
    for (int d = 0; d < kDepth; ++d) {
        const std::size_t k = first + threadIdx.x + std::size_t(d) * blockDim.x;
        if (!kGuarded || k < octets) {
            gv[d] = __ldcs(g + k);
            uv[d] = __ldcs(u + k);
        } else {
            gv[d] = uv[d] = make_uint4(0u, 0u, 0u, 0u);
        }
    }
#pragma unroll
    for (int d = 0; d < kDepth; ++d) {
        const std::size_t k = first + threadIdx.x + std::size_t(d) * blockDim.x;
        if (!kGuarded || k < octets) sink.octet(k, gv[d], uv[d]);
    }
}

// Elements [0, vector_end) in octets (vector_end is a multiple of 8, or 0 when the pointers do not allow
// vector access), then [vector_end, count) one by one.
template <class Sink>
__device__ __forceinline__ void fused_walk(const bf16* g, const bf16* u, std::size_t count, std::size_t vector_end,
                                           const Sink& sink) {
    const std::size_t octets = vector_end / kOctet;
    const std::size_t per_tile = std::size_t(blockDim.x) * kDepth;
    const std::size_t stride = std::size_t(gridDim.x) * per_tile;
    const auto* g8 = reinterpret_cast<const uint4*>(g);
    const auto* u8 = reinterpret_cast<const uint4*>(u);

    for (std::size_t first = std::size_t(blockIdx.x) * per_tile; first < octets; first += stride) {
        if (first + per_tile <= octets) tile<false>(g8, u8, first, octets, sink);
        else tile<true>(g8, u8, first, octets, sink);
    }

    // The scalar remainder: fewer than 8 elements when aligned, everything otherwise.
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = vector_end + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += threads)
        sink.single(i, g[i], u[i]);
}

// (a) Z = round_bf16(round_bf16(SiLU(G)) · U).
__global__ void __launch_bounds__(kBlockThreads) swiglu_to_bf16(const bf16* __restrict__ g, const bf16* __restrict__ u,
                                                                bf16* __restrict__ z, std::size_t count,
                                                                std::size_t vector_end) {
    fused_walk(g, u, count, vector_end, Bf16Sink{z});
}

// (b) Q = E4M3FN(Z / scale) with Z as in (a), never leaving registers.
__global__ void __launch_bounds__(kBlockThreads) swiglu_to_e4m3(const bf16* __restrict__ g, const bf16* __restrict__ u,
                                                                std::uint8_t* __restrict__ q, std::size_t count,
                                                                std::size_t vector_end, float scale) {
    const E4m3Sink sink{q, fusion::inverse_scale(scale)};  // once per thread
    fused_walk(g, u, count, vector_end, sink);
}

// ---- host-side launch geometry ----------------------------------------------------------------------

bool aligned_to(const void* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Where the octet walk stops: the largest multiple of 8 ≤ count, or 0 if any pointer cannot be read or
// written in whole vectors (the output needs 8 bytes per octet for FP8, 16 for BF16).
std::size_t vector_extent(std::size_t count, const void* g, const void* u, const void* out, std::uintptr_t out_align) {
    const bool ok = aligned_to(g, 16) && aligned_to(u, 16) && aligned_to(out, out_align);
    return ok ? count - count % kOctet : 0;
}

// Blocks the work can use, capped at one full wave of this kernel (the occupancy API decides how many of
// its blocks fit on each SM).
template <class Kernel>
unsigned blocks_for(Kernel* kernel, std::size_t count, std::size_t vector_end) {
    const std::size_t octet_tiles = gpulab::ceil_div<std::size_t>(vector_end / kOctet, std::size_t(kBlockThreads) * kDepth);
    const std::size_t scalar_blocks = gpulab::ceil_div<std::size_t>(count - vector_end, kBlockThreads);
    const std::size_t wanted = octet_tiles > scalar_blocks ? octet_tiles : scalar_blocks;
    return gpulab::resident_grid(kernel, kBlockThreads, 0, wanted);
}

}  // namespace

void launch_silu_mul(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* z, std::size_t rows,
                     std::size_t cols, cudaStream_t stream) {
    const std::size_t count = rows * cols;
    if (count == 0) return;
    const std::size_t vector_end = vector_extent(count, g, u, z, 16);
    swiglu_to_bf16<<<blocks_for(swiglu_to_bf16, count, vector_end), kBlockThreads, 0, stream>>>(g, u, z, count,
                                                                                               vector_end);
    LABS_CHECK_LAUNCH();
}

void launch_silu_mul_quantize(const __nv_bfloat16* g, const __nv_bfloat16* u, std::uint8_t* q, std::size_t rows,
                              std::size_t cols, float scale, cudaStream_t stream) {
    const std::size_t count = rows * cols;
    if (count == 0) return;
    const std::size_t vector_end = vector_extent(count, g, u, q, 8);
    swiglu_to_e4m3<<<blocks_for(swiglu_to_e4m3, count, vector_end), kBlockThreads, 0, stream>>>(g, u, q, count,
                                                                                               vector_end, scale);
    LABS_CHECK_LAUNCH();
}

// Host paths. The ledger rule: an output is allocated right before the step that writes it, and each input
// is given back as soon as the step that last reads it has been enqueued (release() waits for the device).

std::uint8_t* chain_fused_silu_mul(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                                   std::size_t cols, float scale, cudaStream_t stream) {
    const std::size_t elements = rows * cols;

    // Fused SiLU⊙U: G, U and Z alive together (the peak, 6 bytes per element); G and U are then done.
    auto* z = static_cast<__nv_bfloat16*>(ledger.allocate(elements * sizeof(__nv_bfloat16)));
    launch_silu_mul(g, u, z, rows, cols, stream);
    ledger.release(u);
    ledger.release(g);

    // The given quantisation: Z and Q alive; Z is then done.
    auto* q = static_cast<std::uint8_t*>(ledger.allocate(elements * sizeof(std::uint8_t)));
    launch_quantize(z, q, elements, scale, stream);
    ledger.release(z);
    return q;
}

std::uint8_t* chain_all_fused(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                              std::size_t cols, float scale, cudaStream_t stream) {
    // One step: G, U and Q alive (5 bytes per element), then only Q.
    auto* q = static_cast<std::uint8_t*>(ledger.allocate(rows * cols * sizeof(std::uint8_t)));
    launch_silu_mul_quantize(g, u, q, rows, cols, scale, stream);
    ledger.release(u);
    ledger.release(g);
    return q;
}
