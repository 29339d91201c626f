/**
 * @file ptx.cuh
 * @brief Lab 03: the PTX wrappers of labs/mma.cuh (cp.async, ldmatrix, mma.sync m16n8k16), under the name
 * tiling::ptx that tiling.cu uses. The fragment layouts are described there.
 *
 * FROZEN: do not edit (use them, or WMMA, in tiling.cu). All need compute capability 8.0 or newer.
 */
#pragma once

#include "labs/mma.cuh"

namespace tiling {
namespace ptx = ::gpulab::ptx;  ///< cp_async_16, cp_async_commit, cp_async_wait, ldmatrix_x4(_trans), mma_bf16_16816
}  // namespace tiling
