/**
 * @file activations.cuh
 * @brief The one device definition of SiLU that every lab shares, in FP32 and on BF16 values.
 *
 * Labs that fuse an activation into another kernel (lab 03's GEMM epilogue, lab 05's activation chain)
 * must give exactly the bits of the separate kernel (launch_silu, activations.hpp): both compute every
 * element with these functions. The intrinsics with an explicit rounding mode (`__fadd_rn`) keep the
 * compiler from contracting operations differently in different kernels, which would change last bits.
 */
#pragma once

#include <cuda_bf16.h>

namespace gpulab {

/**
 * @brief SiLU in FP32: x · σ(x) = x / (1 + e^(−x)), with the fast hardware exponential and division.
 * Their error (a few FP32 ulps) vanishes in the BF16 rounding that follows; what matters is that every
 * kernel uses this same sequence. @param x input
 */
__device__ __forceinline__ float silu_f32(float x) { return __fdividef(x, __fadd_rn(1.0f, __expf(-x))); }

/** @brief SiLU of one BF16 value, rounded to BF16 (nearest even): round_to_bf16(silu_f32(x)). @param x input */
__device__ __forceinline__ __nv_bfloat16 silu_bf16(__nv_bfloat16 x) {
    return __float2bfloat16_rn(silu_f32(__bfloat162float(x)));
}

/** @brief silu_bf16 on two values at once (one conversion instruction each way), same bits.
 *  @param x two inputs */
__device__ __forceinline__ __nv_bfloat162 silu_bf16x2(__nv_bfloat162 x) {
    const float2 f = __bfloat1622float2(x);
    return __floats2bfloat162_rn(silu_f32(f.x), silu_f32(f.y));
}

}  // namespace gpulab
