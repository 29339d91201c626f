/**
 * @file tiling_math.cuh
 * @brief Lab 03: the one definition of what a GEMM variant stores — the BF16 rounding of its FP32
 * accumulator, and the SiLU epilogue — shared by every kernel of the lab.
 *
 * FROZEN: do not edit. The fused epilogue (launch_gemm_silu) and the separate one (launch_silu after
 * launch_gemm_v3) must give the same bits, so both compute each element with these functions; SiLU itself
 * is the course's one definition (gpulab::silu_f32 in labs/activations.cuh, which launch_silu uses too).
 */
#pragma once

#include <cuda_bf16.h>

#include "labs/activations.cuh"

namespace tiling {

/** @brief What every variant stores: C = round_to_bf16(acc), round to nearest even. @param acc FP32 sum */
__device__ __forceinline__ __nv_bfloat16 round_output(float acc) { return __float2bfloat16_rn(acc); }

/** @brief Two outputs at once (one conversion instruction), same bits as round_output on each.
 *  @param lo first (lower address) @param hi second */
__device__ __forceinline__ __nv_bfloat162 round_output2(float lo, float hi) { return __floats2bfloat162_rn(lo, hi); }

/** @brief The separate epilogue for one element: Y = round_to_bf16(SiLU(C)) (gpulab::silu_bf16, what
 *  launch_silu computes). @param c a stored output */
__device__ __forceinline__ __nv_bfloat16 silu_of_output(__nv_bfloat16 c) { return gpulab::silu_bf16(c); }

/**
 * @brief The fused epilogue for one accumulator: Y = round_to_bf16(SiLU(round_to_bf16(acc))). The
 * accumulator is still rounded to BF16 before SiLU, exactly as when C goes through device memory
 * (section 5.4.3: fusion must not change the rounding). @param acc FP32 sum of one output
 */
__device__ __forceinline__ __nv_bfloat16 silu_epilogue(float acc) { return silu_of_output(round_output(acc)); }

/** @brief silu_epilogue on two accumulators, same bits. @param lo first (lower address) @param hi second */
__device__ __forceinline__ __nv_bfloat162 silu_epilogue2(float lo, float hi) {
    return gpulab::silu_bf16x2(round_output2(lo, hi));
}

}  // namespace tiling
