/**
 * @file rmsnorm_math.cuh
 * @brief Lab 10: the one definition of each step of RMSNorm after the sum of squares, shared by every variant and by
 * the grader's host reference.
 *
 * FROZEN: do not edit. The variants differ only in the order in which they add a row's squares (a square of a BF16
 * value is exact in FP32: 8 significant bits squared are at most 16); from the sum on, every one computes with these
 * functions, so that two results differ exactly when their sums do. The intrinsics with an explicit rounding mode keep
 * the compiler from contracting or approximating differently in different kernels; on the host the same operations
 * in float round the same way.
 */
#pragma once

#include <cuda_bf16.h>

namespace rmsnorm {

/** @brief x² in FP32 (exact for a BF16 x). @param x an input element */
__host__ __device__ __forceinline__ float square(__nv_bfloat16 x) {
    const float f = __bfloat162float(x);
#ifdef __CUDA_ARCH__
    return __fmul_rn(f, f);
#else
    return f * f;
#endif
}

/** @brief The row's scale from its sum of squares: 1 / √(sum / cols + eps), each operation correctly rounded.
 *  @param sum the row's FP32 sum of squares @param cols the row's length @param eps added to the mean square */
__host__ __device__ __forceinline__ float row_scale(float sum, int cols, float eps) {
#ifdef __CUDA_ARCH__
    return __frcp_rn(__fsqrt_rn(__fadd_rn(__fdiv_rn(sum, static_cast<float>(cols)), eps)));
#else
    volatile float mean = sum / static_cast<float>(cols);  // volatile: no host contraction or reassociation either
    volatile float root = __builtin_sqrtf(mean + eps);
    return 1.0f / root;
#endif
}

/** @brief One output element: BF16((x · scale) · gamma), round to nearest even. @param x input element
 *  @param scale the row's scale @param gamma the column's weight */
__host__ __device__ __forceinline__ __nv_bfloat16 normalize(__nv_bfloat16 x, float scale, __nv_bfloat16 gamma) {
#ifdef __CUDA_ARCH__
    return __float2bfloat16_rn(__fmul_rn(__fmul_rn(__bfloat162float(x), scale), __bfloat162float(gamma)));
#else
    volatile float xs = __bfloat162float(x) * scale;
    return __float2bfloat16_rn(xs * __bfloat162float(gamma));
#endif
}

}  // namespace rmsnorm
