/**
 * @file fusion.hpp
 * @brief Lab 05 interface: the activation chain of a Qwen3-8B FFN, SiLU(G) ⊙ U → FP8, as three
 * separate kernels (the baseline), two (SiLU⊙U fused) or one (fully fused).
 *
 * FROZEN: do not edit. G and U are row-major [rows, cols] BF16 in device memory, rows ≥ 1 and any
 * cols ≥ 1; outputs are row-major [rows, cols] too. Every launcher enqueues on `stream` and returns
 * without synchronising. The chain, element by element (fusion_math.cuh):
 *   T = round_to_bf16(SiLU(G));  Z = round_to_bf16(T · U);  Q = E4M3FN(Z / scale), saturating.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "labs/activations.hpp"

/** @brief Scale of the per-tensor FP8 quantization used by the checks (Z / scale → E4M3FN). */
inline constexpr float kFusionScale = 1.0f / 64.0f;

// ---- The baseline: one kernel per step (baseline.cu) ----------------------------------------------

// Step 1, T = round_to_bf16(SiLU(G)), is the course's shared SiLU kernel (labs/activations.hpp): with
// fusion::silu_step it computes every element with gpulab::silu_bf16.
using gpulab::launch_silu;
/** @brief Z = round_to_bf16(T · U). @param t input @param u input @param z output @param count elements @param stream stream */
void launch_mul(const __nv_bfloat16* t, const __nv_bfloat16* u, __nv_bfloat16* z, std::size_t count,
                cudaStream_t stream);
/** @brief Q = E4M3FN(Z / scale). @param z input @param q output (FP8 bits) @param count elements
 *  @param scale per-tensor scale @param stream stream */
void launch_quantize(const __nv_bfloat16* z, std::uint8_t* q, std::size_t count, float scale, cudaStream_t stream);

// ---- Yours (fusion.cu) -------------------------------------------------------------------------

/**
 * @brief (a) Fused SiLU⊙U: Z = round_to_bf16(round_to_bf16(SiLU(G)) · U) in one kernel, one launch.
 * @param g input G @param u input U @param z output Z @param rows rows (M ≥ 1) @param cols columns (N ≥ 1)
 * @param stream stream to launch on
 */
void launch_silu_mul(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* z, std::size_t rows,
                     std::size_t cols, cudaStream_t stream);

/**
 * @brief (b) Fully fused SiLU⊙U→FP8: Q = E4M3FN(Z / scale) with Z as in (a), in one kernel, one launch.
 * @param g input G @param u input U @param q output Q (FP8 E4M3FN bits) @param rows rows (M ≥ 1)
 * @param cols columns (N ≥ 1) @param scale per-tensor scale @param stream stream to launch on
 */
void launch_silu_mul_quantize(const __nv_bfloat16* g, const __nv_bfloat16* u, std::uint8_t* q, std::size_t rows,
                              std::size_t cols, float scale, cudaStream_t stream);

// ---- Host-side paths: who allocates what, and when it is freed ---------------------------------

/**
 * @brief Device memory with a ledger: what is allocated now and the most ever at once.
 *
 * The host-side paths below allocate every tensor through it and free each input as soon as nothing
 * needs it (the rule: allocate a step's output first, run the step, then free the inputs it used up).
 * The grader compares the peak with the model's.
 */
class MemoryLedger {
public:
    MemoryLedger() = default;
    ~MemoryLedger();
    MemoryLedger(const MemoryLedger&) = delete;
    MemoryLedger& operator=(const MemoryLedger&) = delete;
    /** @brief cudaMalloc of @p bytes, recorded. @param bytes size */
    void* allocate(std::size_t bytes);
    /** @brief Waits for the device, then frees @p p (a pointer from allocate()). @param p pointer */
    void release(void* p);
    /** @brief Bytes allocated now. */
    [[nodiscard]] std::size_t live_bytes() const noexcept { return live_; }
    /** @brief Most bytes ever allocated at once. */
    [[nodiscard]] std::size_t peak_bytes() const noexcept { return peak_; }
    /** @brief Number of allocations not yet released. */
    [[nodiscard]] std::size_t live_count() const noexcept { return sizes_.size(); }

private:
    std::map<void*, std::size_t> sizes_;
    std::size_t live_ = 0;
    std::size_t peak_ = 0;
};

/**
 * @brief The whole chain as three separate steps (baseline.cu). Takes ownership of @p g and @p u
 * (allocated in @p ledger), frees every tensor once used up, and returns Q (owned by @p ledger).
 * @param ledger where tensors live @param g G @param u U @param rows rows @param cols columns
 * @param scale per-tensor scale @param stream stream
 */
std::uint8_t* chain_separate(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                             std::size_t cols, float scale, cudaStream_t stream);

/** @brief Yours: the chain with SiLU⊙U fused, then the baseline quantization. Same contract as
 *  chain_separate(). @param ledger ledger @param g G @param u U @param rows rows @param cols columns
 *  @param scale scale @param stream stream */
std::uint8_t* chain_fused_silu_mul(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                                   std::size_t cols, float scale, cudaStream_t stream);

/** @brief Yours: the fully fused chain. Same contract as chain_separate(). @param ledger ledger
 *  @param g G @param u U @param rows rows @param cols columns @param scale scale @param stream stream */
std::uint8_t* chain_all_fused(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                              std::size_t cols, float scale, cudaStream_t stream);
