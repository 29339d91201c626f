/**
 * @file tiling_math.cuh
 * @brief Lab 03: the one definition of what a GEMM variant stores — the BF16 rounding of its FP32
 * accumulator, and the SiLU epilogue — shared by every kernel of the lab.
 *
 * FROZEN: do not edit. The fused epilogue (launch_gemm_silu) and the separate one (launch_silu after
 * launch_gemm_v3) must give the same bits, so both compute each element with these functions. The
 * intrinsics with an explicit rounding mode (`__fadd_rn`) keep the compiler from contracting operations
 * differently in different kernels.
 */
#pragma once

#include <cuda_bf16.h>

namespace tiling {

/** @brief What every variant stores: C = round_to_bf16(acc), round to nearest even. @param acc FP32 sum */
__device__ __forceinline__ __nv_bfloat16 round_output(float acc) { return __float2bfloat16_rn(acc); }

/** @brief Two outputs at once (one conversion instruction), same bits as round_output on each.
 *  @param lo first (lower address) @param hi second */
__device__ __forceinline__ __nv_bfloat162 round_output2(float lo, float hi) { return __floats2bfloat162_rn(lo, hi); }

/**
 * @brief SiLU in FP32: x / (1 + e^(−x)), with the fast hardware exponential and reciprocal. Their error
 * (a few FP32 ulps) vanishes in the BF16 rounding that follows; what matters is that every kernel uses
 * this same sequence. @param x input
 */
__device__ __forceinline__ float silu_f32(float x) { return __fdividef(x, __fadd_rn(1.0f, __expf(-x))); }

/** @brief The separate epilogue for one element: Y = round_to_bf16(SiLU(C)). @param c a stored output */
__device__ __forceinline__ __nv_bfloat16 silu_of_output(__nv_bfloat16 c) {
    return __float2bfloat16_rn(silu_f32(__bfloat162float(c)));
}

/**
 * @brief The fused epilogue for one accumulator: Y = round_to_bf16(SiLU(round_to_bf16(acc))). The
 * accumulator is still rounded to BF16 before SiLU, exactly as when C goes through device memory
 * (section 5.4.3: fusion must not change the rounding). @param acc FP32 sum of one output
 */
__device__ __forceinline__ __nv_bfloat16 silu_epilogue(float acc) { return silu_of_output(round_output(acc)); }

/** @brief silu_epilogue on two accumulators, same bits. @param lo first (lower address) @param hi second */
__device__ __forceinline__ __nv_bfloat162 silu_epilogue2(float lo, float hi) {
    const float2 c = __bfloat1622float2(round_output2(lo, hi));
    return __floats2bfloat162_rn(silu_f32(c.x), silu_f32(c.y));
}

}  // namespace tiling
