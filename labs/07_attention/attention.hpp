/**
 * @file attention.hpp
 * @brief Lab 07 interface: a row softmax whose statistics take one pass (the online (m, ℓ) state), and an
 * attention forward pass that never stores the L × L scores: O = softmax(Q·Kᵀ/√d)·V, FlashAttention-2's loop
 * order, with the log-sum-exp of every row kept for a backward pass (section 5.3.3).
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

/**
 * @brief The only scratch memory a launcher may use: it hands out pieces of one device buffer the grader
 * allocated, and remembers the most it ever handed out (the "extra memory" the checks measure).
 */
class Arena {
public:
    /** @param base device memory @param bytes its size */
    Arena(void* base, std::size_t bytes) : base_(static_cast<unsigned char*>(base)), bytes_(bytes) {}
    /** @brief @p bytes of scratch (256-byte aligned), valid until release_all(); throws std::bad_alloc when the
     *  buffer is exhausted. */
    void* take(std::size_t bytes);
    /** @brief Gives every piece back (the launcher's work on the stream must no longer need them). */
    void release_all() { used_ = 0; }
    /** @brief The most bytes handed out at once since construction. */
    [[nodiscard]] std::size_t peak_bytes() const noexcept { return peak_; }

private:
    unsigned char* base_;
    std::size_t bytes_;
    std::size_t used_ = 0;
    std::size_t peak_ = 0;
};

// ---- (a) softmax over long rows ----------------------------------------------------------------------------

/** @brief y[r][c] = exp(x[r][c] − m_r) / ℓ_r over each of @p rows rows of @p cols FP32 values (row-major);
 *  m_r the row's maximum and ℓ_r = Σ_c exp(x[r][c] − m_r). The given baseline makes three passes (max, sum,
 *  normalise). @param x input @param y output @param rows rows (1 … 65535: a grid's second dimension may
 *  index them) @param cols values per row (≥ 1)
 *  @param ws scratch @param stream stream */
void launch_softmax_three_pass(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream);

/** @brief (a) The same softmax with the statistics in one pass: each thread keeps a running (m, ℓ), merged across
 *  threads, warps and blocks, then one pass writes y; the same shapes (at most 65535 rows). Yours. */
void launch_softmax(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream);

// ---- (b) attention forward ---------------------------------------------------------------------------------

/** @brief One attention call: batch × heads independent heads of seq_len tokens. */
struct AttentionArgs {
    const __nv_bfloat16* q = nullptr;  ///< [batch, heads, seq_len, head_dim]
    const __nv_bfloat16* k = nullptr;  ///< same shape
    const __nv_bfloat16* v = nullptr;  ///< same shape
    __nv_bfloat16* o = nullptr;        ///< same shape: softmax(Q·Kᵀ/√d)·V, rounded to BF16
    float* lse = nullptr;              ///< [batch, heads, seq_len]: m + ln ℓ of every row's scaled scores
    int batch = 1;                     ///< B
    int heads = 1;                     ///< H: heads per batch entry
    int seq_len = 1;                   ///< L ≥ 1
    int head_dim = 128;                ///< d: 64 or 128
    bool causal = false;               ///< query i sees keys 0 … i only
};

/** @brief FLOPs of the call: 4 · B · H · L² · d (two GEMMs), halved when causal. */
[[nodiscard]] double attention_flop(const AttentionArgs& a);

/** @brief The given MATH path: S = Q·Kᵀ/√d and P = softmax(S) in device memory (FP32, from @p ws: 2 · L² · 4
 *  bytes per head at once), O = P·V (cuBLAS). */
void launch_attention_naive(const AttentionArgs& a, Arena& ws, cudaStream_t stream);

/** @brief (b) Attention without L × L buffers: one block owns a tile of query rows and streams K/V tiles through
 *  shared memory with the online update; tensor cores for both products. Yours. */
void launch_attention(const AttentionArgs& a, Arena& ws, cudaStream_t stream);

/**
 * @brief (c) The Hopper forward (compute capability 9.0: H100, H200), FlashAttention-3's structure: Q, K and V tiles
 * copied by TMA (labs/tma.hpp's 3-D tensor maps, one box never crossing a head), S = Q·Kᵀ and O += P·V by wgmma (P
 * from registers), a producer warpgroup and consumer warpgroups with full and empty barriers. The same outputs as
 * launch_attention(): O and the LSE, within the same tolerances. Yours.
 *
 * Requires head_dim 128, 16-byte aligned Q, K, V and O, a GPU of compute capability 9.0 and a build with sm_90a code
 * (gpulab::sm90a_unavailable() says why not); otherwise throws std::invalid_argument. Its checks are SKIPPED, with the
 * reason, where that function gives one.
 */
void launch_attention_hopper(const AttentionArgs& a, Arena& ws, cudaStream_t stream);
