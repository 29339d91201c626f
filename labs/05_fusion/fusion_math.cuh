/**
 * @file fusion_math.cuh
 * @brief Lab 05: the one definition of each step of the activation chain, shared by every variant.
 *
 * FROZEN: do not edit. Fusion may change where values live, never the arithmetic: every kernel of the
 * lab, separate or fused, computes each element with exactly these functions, so their results are
 * bit-identical. SiLU is the course's one definition (gpulab::silu_f32 in labs/activations.cuh, shared
 * with lab 03's epilogue and the separate launch_silu). The intrinsics with an explicit rounding mode
 * (`__fmul_rn`) keep the compiler from contracting operations differently in different kernels, which
 * would change the last bit.
 */
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "labs/activations.cuh"

namespace fusion {

/** @brief Step 1 for one element: T = round_to_bf16(SiLU(G)) (gpulab::silu_bf16). @param g gate value */
__device__ __forceinline__ __nv_bfloat16 silu_step(__nv_bfloat16 g) { return gpulab::silu_bf16(g); }

/** @brief Step 2 for one element: Z = round_to_bf16(T · U). @param t SiLU output @param u up value */
__device__ __forceinline__ __nv_bfloat16 mul_step(__nv_bfloat16 t, __nv_bfloat16 u) {
    return __float2bfloat16_rn(__fmul_rn(__bfloat162float(t), __bfloat162float(u)));
}

/**
 * @brief Step 3 for one element: Q = E4M3FN(Z / scale), saturating at ±448, computed as Z · (1/scale)
 * (exactly Z / scale for the lab's power-of-two scale).
 * @param z         the BF16 product
 * @param inv_scale 1 / scale, computed once per thread with inverse_scale()
 * @return the FP8 E4M3FN bits
 */
__device__ __forceinline__ std::uint8_t quantize_step(__nv_bfloat16 z, float inv_scale) {
    return __nv_cvt_float_to_fp8(__fmul_rn(__bfloat162float(z), inv_scale), __NV_SATFINITE, __NV_E4M3);
}

/** @brief 1 / scale, correctly rounded; call once per thread, not per element. @param scale the scale */
__device__ __forceinline__ float inverse_scale(float scale) { return __frcp_rn(scale); }

// Two elements at a time: the same arithmetic per element (so the same bits), with the conversions
// done in pairs (one instruction converts two values).

/** @brief silu_step on two elements (gpulab::silu_bf16x2). @param g two gate values */
__device__ __forceinline__ __nv_bfloat162 silu_step2(__nv_bfloat162 g) { return gpulab::silu_bf16x2(g); }

/** @brief mul_step on two elements. @param t two SiLU outputs @param u two up values */
__device__ __forceinline__ __nv_bfloat162 mul_step2(__nv_bfloat162 t, __nv_bfloat162 u) {
    const float2 a = __bfloat1622float2(t), b = __bfloat1622float2(u);
    return __floats2bfloat162_rn(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y));
}

/** @brief quantize_step on two elements; returns two FP8 codes, the first in the low byte.
 *  @param z two BF16 products @param inv_scale 1 / scale */
__device__ __forceinline__ std::uint16_t quantize_step2(__nv_bfloat162 z, float inv_scale) {
    const float2 f = __bfloat1622float2(z);
    return __nv_cvt_float2_to_fp8x2(make_float2(__fmul_rn(f.x, inv_scale), __fmul_rn(f.y, inv_scale)), __NV_SATFINITE,
                                    __NV_E4M3);
}

}  // namespace fusion
