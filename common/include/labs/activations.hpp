/**
 * @file activations.hpp
 * @brief Activations as separate kernels: the unfused step that fused versions are compared with.
 */
#pragma once

#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace gpulab {

/**
 * @brief y[i] = round_to_bf16(SiLU(x[i])) for every i < count, with gpulab::silu_bf16
 * (activations.cuh): a plain grid-stride loop, one element per iteration, reading x from and writing y
 * to device memory. Enqueues on @p stream and returns without synchronising.
 * @param x input, @p count BF16 values @param y output, @p count BF16 values (may not alias x)
 * @param count elements (0: nothing is launched) @param stream stream to launch on
 */
void launch_silu(const __nv_bfloat16* x, __nv_bfloat16* y, std::size_t count, cudaStream_t stream);

}  // namespace gpulab
