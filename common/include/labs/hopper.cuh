/**
 * @file hopper.cuh
 * @brief Thin wrappers over the PTX a Hopper (sm_90a) GEMM or attention kernel needs — mbarriers, bulk tensor copies
 * (TMA), warpgroup matrix multiply-accumulate (wgmma) with its fences, shared-memory matrix descriptors and
 * setmaxnreg — so that a lab's kernel reads as a pipeline, not as assembly (lab 03's v4, lab 07's Hopper variant).
 * The host half, the tensor map a TMA copy reads, is labs/tma.hpp.
 *
 * All of it needs sm_90a: compile the kernel's file with the architecture-specific target (the lab's CMake adds
 * `90a-real` wherever the build targets 9.0), and put the kernel's body under
 * `#if defined(__CUDA_ARCH_FEAT_SM90_ALL)`: the file is compiled for the other targets too, where these functions
 * do not exist.
 *
 * The rules they carry (PTX ISA 8.x, "Asynchronous warpgroup level matrix multiply-accumulate" and
 * "mbarrier"):
 * - **wgmma is asynchronous.** wgmma_fence() before the first wgmma that touches accumulators other code wrote;
 *   wgmma_commit() closes a group; wgmma_wait<N>() returns when at most N groups are still in flight. Accumulators
 *   and the shared memory a wgmma reads may be touched again only after the wait that covers it.
 * - **A descriptor, not a pointer.** wgmma reads A and B from shared memory through a 64-bit descriptor: the
 *   start address, the leading and stride byte offsets, and the swizzle mode, which must be the one the tile was
 *   written with (TMA's 128-byte swizzle ↔ SWIZZLE_128B). make_smem_desc() explains the offsets.
 * - **An mbarrier counts arrivals and bytes.** A phase completes when the expected arrivals have arrived and
 *   the bytes announced with mbar_arrive_expect_tx() have landed; waiters name the phase by its parity (0, 1, 0, ...).
 * - **setmaxnreg moves registers between warpgroups** of one block: a producer that only issues copies gives
 *   registers back (setmaxnreg_dec), consumers holding 64 × 256 accumulators take them (setmaxnreg_inc); every warp
 *   of the warpgroup executes it, and the block must have been launched with at most the registers the sum allows.
 */
#pragma once

#include <cstdint>

#include "labs/wgmma_ops.cuh"

namespace gpulab::sm90 {

/** @brief The 32-bit shared-memory address PTX expects, from a generic pointer into shared memory. @param p pointer */
__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarriers ---------------------------------------------------------------------------------------------

/** @brief Initialises an mbarrier in shared memory: a phase completes after @p arrivals arrivals (and the bytes any
 *  arrive_expect_tx announced). One thread initialises; fence_barrier_init() and a __syncthreads() publish it.
 *  @param bar 8-byte aligned shared-memory word @param arrivals arrivals per phase */
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(arrivals) : "memory");
}

/** @brief Makes this thread's mbar_init()s visible to the asynchronous proxy (TMA) before any copy names them. */
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

/** @brief Arrives once and announces @p bytes more that asynchronous copies will deliver to this phase.
 *  @param bar the mbarrier @param bytes transaction bytes */
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes) : "memory");
}

/** @brief Arrives once (release semantics: this thread's earlier memory operations are visible to the waiters).
 *  @param bar the mbarrier */
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(bar)) : "memory");
}

/** @brief True once the phase of parity @p parity has completed (one try, bounded by the hardware's time limit).
 *  @param bar the mbarrier @param parity 0 or 1: the phase waited for */
__device__ __forceinline__ bool mbar_try_wait(std::uint64_t* bar, std::uint32_t parity) {
    std::uint32_t done = 0;
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
    return done != 0;
}

/** @brief Waits until the phase of parity @p parity has completed (acquire: what the arrivers wrote, and the bytes
 *  the copies delivered, are visible after it). @param bar the mbarrier @param parity 0 or 1 */
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
    while (!mbar_try_wait(bar, parity)) {
    }
}

// ---- TMA: bulk tensor copies ---------------------------------------------------------------------------------

/**
 * @brief Starts the copy of one box of a 2-D tensor from global to shared memory (cp.async.bulk.tensor), described by
 * a tensor map (labs/tma.hpp; passed to the kernel as a `const __grid_constant__` parameter). Elements outside the
 * tensor arrive as zeros; the box's full size in bytes always counts towards @p bar's transaction bytes. One thread
 * issues it.
 * @param dst shared memory, aligned as the map's swizzle requires (1024 bytes for 128-byte swizzle)
 * @param map the tensor map (its address in the kernel's parameter space) @param bar mbarrier to complete
 * @param inner coordinate along the contiguous dimension (elements) @param outer coordinate along the other
 */
__device__ __forceinline__ void tma_load_2d(void* dst, const void* map, std::uint64_t* bar, int inner, int outer) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::
            "r"(smem_address(dst)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(bar)), "r"(inner), "r"(outer)
        : "memory");
}

/** @brief As tma_load_2d(), for a 3-D tensor (e.g. [heads][rows][dim]: a box never crosses into the next head, and rows
 *  past the head's end arrive as zeros). @param dst shared memory @param map the tensor map @param bar mbarrier
 *  @param c0 coordinate along the contiguous dimension @param c1 along the second @param c2 along the third */
__device__ __forceinline__ void tma_load_3d(void* dst, const void* map, std::uint64_t* bar, int c0, int c1, int c2) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::
            "r"(smem_address(dst)),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(bar)), "r"(c0), "r"(c1), "r"(c2)
        : "memory");
}

// ---- wgmma ---------------------------------------------------------------------------------------------------

/** @brief Orders this warpgroup's register and shared-memory accesses before the wgmma that follow (before the first
 *  wgmma of a batch, and whenever the accumulators were written by other instructions). Whole warpgroup. */
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

/** @brief Closes the group of wgmma issued since the last commit. Whole warpgroup. */
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

/** @brief Waits until at most @p Pending committed wgmma groups are still in flight. Whole warpgroup.
 *  @tparam Pending groups left in flight */
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

/**
 * @brief A shared-memory matrix descriptor for a tile written with 128-byte swizzle (TMA's SWIZZLE_128B): 14 bits of
 * start address, leading and stride byte offsets (in 16-byte units), and the swizzle mode in bits 62–63.
 *
 * With 128-byte swizzle a tile is made of *atoms* of 8 rows of 128 bytes (1024 bytes), the rows being the tile's
 * contiguous dimension. For a **K-major** operand (A of C = A·W: each row of A contiguous along K, 64 BF16 = 128
 * bytes of K per row) the stride byte offset is the distance between atoms along M (1024 for rows packed one after
 * another), and the leading offset is not used (pass 16). Step along K inside the 64-element row by adding
 * 32 bytes (16 BF16) to the start address: the swizzle is applied to the address the hardware forms.
 * For an **MN-major** operand (W: each row of W contiguous along N) one atom holds 8 K-rows of 64 N-columns; the
 * stride byte offset steps 8 rows along K (1024), the leading byte offset steps 64 columns along N (the distance
 * between two 64-column boxes, e.g. 64 · BK · 2 bytes when TMA wrote the tile as boxes of 64 columns × BK rows).
 * Step along K by 16 rows: add 16 · 128 = 2048 bytes.
 * @param p the operand's first element in shared memory @param leading_bytes leading byte offset
 * @param stride_bytes stride byte offset
 */
__device__ __forceinline__ std::uint64_t make_smem_desc(const void* p, std::uint32_t leading_bytes, std::uint32_t stride_bytes) {
    std::uint64_t d = 0;
    d |= (std::uint64_t(smem_address(p)) & 0x3FFFF) >> 4;
    d |= (std::uint64_t(leading_bytes & 0x3FFFF) >> 4) << 16;
    d |= (std::uint64_t(stride_bytes & 0x3FFFF) >> 4) << 32;
    d |= std::uint64_t(1) << 62;  // 128-byte swizzle
    return d;
}

// ---- registers -------------------------------------------------------------------------------------------------

/** @brief Lowers this warpgroup's register limit to @p Regs (a multiple of 8, 24–256). Every warp of the warpgroup.
 *  @tparam Regs registers per thread */
template <int Regs>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}

/** @brief Raises this warpgroup's register limit to @p Regs (registers others gave back). Every warp of the
 *  warpgroup. @tparam Regs registers per thread */
template <int Regs>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

}  // namespace gpulab::sm90
