/**
 * @file mma.cuh
 * @brief Thin wrappers over the three PTX instructions a tensor-core tile needs — asynchronous 16-byte copies
 * into shared memory (cp.async), fragment loads from shared memory (ldmatrix) and the BF16 matrix
 * multiply-accumulate (mma.sync m16n8k16) — so that a lab's kernel reads as tiling, not as assembly (labs 03
 * and 07). All need compute capability 8.0 or newer.
 *
 * Fragment layouts of mma.sync.m16n8k16 with BF16 inputs and FP32 accumulators, for lane l of a warp,
 * g = l / 4 and t = l % 4 (PTX ISA, "Matrix fragments for mma.m16n8k16"):
 * - A (16 × 16, row-major), 4 registers of 2 BF16: a0 = A[g][2t..2t+1], a1 = A[g+8][2t..2t+1],
 *   a2 = A[g][2t+8..2t+9], a3 = A[g+8][2t+8..2t+9];
 * - B (16 × 8, k-major), 2 registers of 2 BF16: b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g];
 * - C and D (16 × 8), 4 floats: d0, d1 = D[g][2t..2t+1], d2, d3 = D[g+8][2t..2t+1].
 *
 * ldmatrix_x4() loads four 8 × 8 BF16 matrices; lanes 8i..8i+7 give the addresses of the 8 rows
 * (16 bytes each) of matrix i, and register i of every lane receives its part of matrix i in exactly the
 * A-fragment layout. ldmatrix_x4_trans() does the same for matrices stored k-major (rows = k), handing
 * each lane the transposed pieces: the B-fragment layout, straight from a row-major W tile.
 */
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "labs/mma.cuh needs compute capability 8.0 or newer (cp.async, ldmatrix, BF16 mma.sync)"
#endif

namespace gpulab::ptx {

/** @brief The 32-bit shared-memory address PTX expects, from a generic pointer into shared memory.
 *  @param p pointer into shared memory */
__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/**
 * @brief Starts an asynchronous 16-byte copy from global to shared memory (cp.async.cg: bypasses L1).
 * When @p valid is false nothing is read and the 16 bytes are zero-filled: out-of-range tiles become
 * zeros that add nothing to the sums. Both addresses must be 16-byte aligned; @p src must be a valid
 * address even when @p valid is false (pass the matrix's base pointer).
 * @param dst shared-memory destination @param src global source @param valid copy (true) or zero-fill
 */
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
    const int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

/** @brief Closes the group of cp.async copies this thread issued since the last commit. */
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/** @brief Waits until at most @p Pending of this thread's committed groups are still in flight (then a
 *  __syncthreads() makes every thread's copies visible to the block). @tparam Pending groups left */
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

/** @brief Four 8 × 8 BF16 matrices from shared memory, A-fragment layout (see the file comment).
 *  @param r the four registers @param row_address this lane's row address (16-byte aligned) */
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_address(row_address)));
}

/** @brief Four 8 × 8 BF16 matrices stored k-major, transposed on the way: B-fragment layout.
 *  @param r the four registers @param row_address this lane's row address (16-byte aligned) */
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row_address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_address(row_address)));
}

/**
 * @brief D += A·B on one 16 × 8 × 16 tile: BF16 inputs, FP32 accumulators (4096 FLOP per warp). It
 * touches registers only, so it is not `volatile`: the compiler may schedule it freely around the loads.
 * @param d accumulators (C in, D out) @param a A fragment @param b0 first B register @param b1 second
 */
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                               std::uint32_t b1) {
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace gpulab::ptx
