/**
 * @file bulk.cuh
 * @brief Lab 06 (d): thin wrappers over the PTX of Hopper's transaction barriers (`mbarrier`) and bulk copies
 * (`cp.async.bulk`), so that part (d) is about the protocol — who waits for what, with which phase — and not
 * about inline assembly.
 *
 * FROZEN: do not edit.
 *
 * An mbarrier is a 64-bit word in shared memory that counts arrivals. Each time the expected number of threads
 * has arrived (and, for a transaction barrier, the expected bytes have landed) its *phase* completes and the
 * next one begins; phases alternate between parity 0 and 1, and a waiter names the parity of the phase it
 * waits for. The same words are what `cuda::barrier` and `cuda::pipeline` use underneath (libcu++).
 *
 * Every helper needs sm_90. Compiled for an older GPU, each one traps: call them only where
 * producer_supported() (pipeline.hpp) says so.
 */
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define LAB06_NO_BULK 1  ///< this device pass has no bulk copies: the helpers trap
/// A helper's PTX where the device pass has it (sm_90 and later, and the host pass), a trap where it does not.
#define LAB06_SM90_ONLY(...) __trap()
#else
/// A helper's PTX where the device pass has it (sm_90 and later, and the host pass), a trap where it does not.
#define LAB06_SM90_ONLY(...) __VA_ARGS__
#endif

namespace bulk_detail {
/** @brief The shared-memory address PTX wants for a pointer into shared memory. */
__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
}  // namespace bulk_detail

/** @brief Initialises @p bar (in shared memory) for @p count arrivals per phase; one thread does it, before any
 *  other thread uses the barrier (then mbar_init_fence() and a __syncthreads()). */
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
    LAB06_SM90_ONLY(asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bulk_detail::smem(bar)), "r"(count)
                                 : "memory"));
}

/** @brief Makes the barriers the calling thread initialised visible to the "async proxy" (through which the SM's
 *  Tensor Memory Accelerator, TMA, carries out bulk copies), not only to the block's threads: call it once after
 *  the mbar_init() calls. */
__device__ __forceinline__ void mbar_init_fence() {
    LAB06_SM90_ONLY(asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"));
}

/** @brief One arrival on @p bar (counts towards the current phase; does not wait). */
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
    LAB06_SM90_ONLY(
        asm volatile("{ .reg .b64 state; mbarrier.arrive.shared::cta.b64 state, [%0]; }" ::"r"(bulk_detail::smem(bar))
                     : "memory"));
}

/** @brief One arrival on @p bar that also tells it to expect @p bytes more of transactions in this phase: the
 *  phase completes when the arrivals are in *and* that many bytes of bulk copies signalling @p bar have landed. */
__device__ __forceinline__ void mbar_arrive_expect_bytes(std::uint64_t* bar, unsigned bytes) {
    LAB06_SM90_ONLY(asm volatile(
        "{ .reg .b64 state; mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1; }" ::"r"(bulk_detail::smem(bar)),
        "r"(bytes)
        : "memory"));
}

/** @brief Waits until the phase of @p bar with parity @p parity (0 or 1) has completed. A wait for the parity
 *  of the phase *before* the current one returns at once: that is how a producer's first wait on a fresh
 *  "empty" barrier (parity 1) passes. */
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
    LAB06_SM90_ONLY(
        asm volatile("{ .reg .pred done;\n"
                     "wait: mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                     "@!done bra wait; }" ::"r"(bulk_detail::smem(bar)),
                     "r"(parity)
                     : "memory"));
}

/** @brief One thread starts a bulk copy of @p bytes (a multiple of 16; both addresses 16-byte aligned) from global
 *  memory at @p src to shared memory at @p dst; the SM's TMA unit moves it and, as the bytes land, counts them
 *  against the current phase of @p bar (armed with mbar_arrive_expect_bytes()). */
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
    LAB06_SM90_ONLY(
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         bulk_detail::smem(dst)),
                     "l"(src), "r"(bytes), "r"(bulk_detail::smem(bar))
                     : "memory"));
}
