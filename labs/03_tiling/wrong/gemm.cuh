// Shared by lab 03's known-bad versions: one plain 16×16 shared-memory GEMM serves as every variant, with
// exactly one defect switched on by the including file, which defines before including:
//   kDropKTail        true: the K loop stops at the last whole 16-step (a partial last K step is lost)
//   kSiluTwoLaunches  true: "fused" SiLU = the GEMM into a scratch C, then its own SiLU kernel (two launches)
#pragma once

#include <algorithm>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"
#include "tiling.hpp"
#include "tiling_math.cuh"

namespace wrong {

constexpr int kT = 16;

template <bool kSilu>
__global__ void gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K) {
    __shared__ float As[kT][kT], Ws[kT][kT];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kT + ty, col = blockIdx.x * kT + tx;
    const int k_end = kDropKTail ? K / kT * kT : K;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k_end; k0 += kT) {
        As[ty][tx] = row < M && k0 + tx < K ? __bfloat162float(A[static_cast<std::size_t>(row) * K + k0 + tx]) : 0.0f;
        Ws[ty][tx] = k0 + ty < K && col < N ? __bfloat162float(W[static_cast<std::size_t>(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < kT; ++kk) acc += As[ty][kk] * Ws[kk][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[static_cast<std::size_t>(row) * N + col] = kSilu ? tiling::silu_epilogue(acc) : tiling::round_output(acc);
}

template <bool kSilu>
void gemm(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K, cudaStream_t s) {
    const dim3 grid(gpulab::ceil_div(N, kT), gpulab::ceil_div(M, kT));
    gemm_kernel<kSilu><<<grid, dim3(kT, kT), 0, s>>>(A, W, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

__global__ void silu_kernel(const __nv_bfloat16* c, __nv_bfloat16* y, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = tiling::silu_of_output(c[i]);
}

// C for the two-launch version, grown outside any capture (the correctness checks run first).
inline gpulab::Workspace<__nv_bfloat16> scratch;

}  // namespace wrong

template <int BM, int BN, int BK>
void launch_gemm_v1_tiles(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    wrong::gemm<false>(A, W, C, M, N, K, stream);
}

template <int BM, int BN, int BK>
KernelInfo gemm_v1_kernel_info() {
    return {reinterpret_cast<const void*>(&wrong::gemm_kernel<false>), wrong::kT * wrong::kT, 0};
}

// v1, v2 and v3 are all the same plain kernel.
#define WRONG_PLAIN_GEMM(name)                                                                                    \
    void name(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,               \
              cudaStream_t stream) {                                                                              \
        wrong::gemm<false>(A, W, C, M, N, K, stream);                                                             \
    }
WRONG_PLAIN_GEMM(launch_gemm_v1)
WRONG_PLAIN_GEMM(launch_gemm_v2)
WRONG_PLAIN_GEMM(launch_gemm_v3)

void launch_gemm_silu(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K,
                      cudaStream_t stream) {
    if (kSiluTwoLaunches) {
        const std::size_t count = static_cast<std::size_t>(M) * N;
        __nv_bfloat16* c = wrong::scratch.at_least(count);
        launch_gemm_v3(A, W, c, M, N, K, stream);
        wrong::silu_kernel<<<static_cast<unsigned>(std::min<std::size_t>(gpulab::ceil_div<std::size_t>(count, 256), 4096)),
                             256, 0, stream>>>(c, Y, count);
        LABS_CHECK_LAUNCH();
    } else {
        wrong::gemm<true>(A, W, Y, M, N, K, stream);
    }
}
