// Shared by lab 05's known-bad versions: a plain fused chain (one element per iteration of a grid-stride
// loop) with exactly one defect switched on by the including file, which defines before including:
//   kRoundT          false: Z = round(SiLU(G) · U) without rounding T to BF16 first (changes bits)
//   WRONG_FULLY_FUSED (a macro) how (b) runs: one_kernel (the default); two_own_kernels (its own SiLU⊙U
//                    kernel, then its own quantization kernel: two launches); baseline_quantize (its
//                    SiLU⊙U kernel, then the baseline's launch_quantize: a kernel that is not its own)
//   kReleaseInputs   false: chain_all_fused never releases G and U (peak and leftovers grow)
#pragma once

#include <cstdint>

#include "fusion.hpp"
#include "fusion_math.cuh"
#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace wrong {

enum class Fused { one_kernel, two_own_kernels, baseline_quantize };
#ifndef WRONG_FULLY_FUSED
#define WRONG_FULLY_FUSED one_kernel
#endif
inline constexpr Fused kFullyFused = Fused::WRONG_FULLY_FUSED;

__global__ void quantize_kernel(const __nv_bfloat16* z, std::uint8_t* q, std::size_t count, float scale) {
    const float inv_scale = fusion::inverse_scale(scale);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        q[i] = fusion::quantize_step(z[i], inv_scale);
}

template <bool kQuantize, typename Out>
__global__ void chain_kernel(const __nv_bfloat16* g, const __nv_bfloat16* u, Out* out, std::size_t count, float scale) {
    const float inv_scale = fusion::inverse_scale(scale);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        __nv_bfloat16 z;
        if constexpr (kRoundT) z = fusion::mul_step(fusion::silu_step(g[i]), u[i]);
        else z = __float2bfloat16_rn(__fmul_rn(gpulab::silu_f32(__bfloat162float(g[i])), __bfloat162float(u[i])));
        if constexpr (kQuantize) out[i] = fusion::quantize_step(z, inv_scale);
        else out[i] = z;
    }
}

inline unsigned grid(std::size_t count) {
    return static_cast<unsigned>(std::min<std::size_t>(gpulab::ceil_div<std::size_t>(count, 256), 4096));
}

// Z for the two-launch version, grown outside any capture (the correctness checks run first).
inline gpulab::Workspace<__nv_bfloat16> scratch;

}  // namespace wrong

void launch_silu_mul(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* z, std::size_t rows,
                     std::size_t cols, cudaStream_t stream) {
    wrong::chain_kernel<false><<<wrong::grid(rows * cols), 256, 0, stream>>>(g, u, z, rows * cols, 1.0f);
    LABS_CHECK_LAUNCH();
}

void launch_silu_mul_quantize(const __nv_bfloat16* g, const __nv_bfloat16* u, std::uint8_t* q, std::size_t rows,
                              std::size_t cols, float scale, cudaStream_t stream) {
    if (wrong::kFullyFused != wrong::Fused::one_kernel) {
        __nv_bfloat16* z = wrong::scratch.at_least(rows * cols);
        launch_silu_mul(g, u, z, rows, cols, stream);
        if (wrong::kFullyFused == wrong::Fused::baseline_quantize) {
            launch_quantize(z, q, rows * cols, scale, stream);
        } else {
            wrong::quantize_kernel<<<wrong::grid(rows * cols), 256, 0, stream>>>(z, q, rows * cols, scale);
            LABS_CHECK_LAUNCH();
        }
    } else {
        wrong::chain_kernel<true><<<wrong::grid(rows * cols), 256, 0, stream>>>(g, u, q, rows * cols, scale);
        LABS_CHECK_LAUNCH();
    }
}

std::uint8_t* chain_fused_silu_mul(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                                   std::size_t cols, float scale, cudaStream_t stream) {
    auto* z = static_cast<__nv_bfloat16*>(ledger.allocate(rows * cols * sizeof(__nv_bfloat16)));
    launch_silu_mul(g, u, z, rows, cols, stream);
    ledger.release(g);
    ledger.release(u);
    auto* q = static_cast<std::uint8_t*>(ledger.allocate(rows * cols));
    launch_quantize(z, q, rows * cols, scale, stream);
    ledger.release(z);
    return q;
}

std::uint8_t* chain_all_fused(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                              std::size_t cols, float scale, cudaStream_t stream) {
    auto* q = static_cast<std::uint8_t*>(ledger.allocate(rows * cols));
    launch_silu_mul_quantize(g, u, q, rows, cols, scale, stream);
    if (kReleaseInputs) {
        ledger.release(g);
        ledger.release(u);
    }
    return q;
}
