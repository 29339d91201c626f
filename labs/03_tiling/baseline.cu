// FROZEN: do not edit. Lab 03 baseline: the naive GEMM (one thread per output, the loop of section
// 5.2.1) and the cuBLAS baseline with the same signature. (The SiLU epilogue as a separate kernel is the
// course's shared launch_silu, labs/activations.hpp.)
#include <stdexcept>
#include <string>

#include <cublas_v2.h>

#include "labs/cuda_check.hpp"
#include "labs/math.hpp"
#include "tiling.hpp"
#include "tiling_math.cuh"

namespace {

void check_shape(const char* who, int M, int N, int K) {
    if (M < 1 || N < 1 || K < 1)
        throw std::invalid_argument(std::string(who) + ": M, N and K must be at least 1");
}

// Thread (x, y) of block (bx, by) computes C[i, j] with j = 32·bx + x and i = 8·by + y: a warp is 32
// neighbouring columns of one row, so its reads of W[k, j..j+31] are one 64-byte access and its reads of
// A[i, k] one broadcast. Every multiply-add still fetches both operands through the memory pipeline.
constexpr int kNaiveX = 32, kNaiveY = 8;

__global__ void __launch_bounds__(kNaiveX * kNaiveY)
    gemm_naive_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ W,
                      __nv_bfloat16* __restrict__ C, int M, int N, int K) {
    const int j = blockIdx.x * kNaiveX + threadIdx.x;
    const int i = blockIdx.y * kNaiveY + threadIdx.y;
    if (i >= M || j >= N) return;
    const __nv_bfloat16* a = A + static_cast<std::size_t>(i) * K;  // row i of A
    const __nv_bfloat16* w = W + j;                                 // column j of W, stride N
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __bfloat162float(a[k]) * __bfloat162float(w[static_cast<std::size_t>(k) * N]);
    C[static_cast<std::size_t>(i) * N + j] = tiling::round_output(acc);
}

}  // namespace

void launch_gemm_naive(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                       cudaStream_t stream) {
    check_shape("launch_gemm_naive", M, N, K);
    const dim3 block(kNaiveX, kNaiveY);
    const dim3 grid(gpulab::ceil_div(N, kNaiveX), gpulab::ceil_div(M, kNaiveY));
    gemm_naive_kernel<<<grid, block, 0, stream>>>(A, W, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

void launch_gemm_cublas(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream) {
    check_shape("launch_gemm_cublas", M, N, K);
    // One handle for the process, created on first use. It is deliberately never destroyed: at exit the
    // driver reclaims it, and destroying it from a static destructor could run after the CUDA runtime
    // itself has shut down.
    static const cublasHandle_t handle = [] {
        cublasHandle_t h = nullptr;
        CUBLAS_CHECK(cublasCreate(&h));
        return h;
    }();
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    const float alpha = 1.0f, beta = 0.0f;
    // cuBLAS is column-major: a row-major [M, N] matrix is a column-major [N, M] one. So row-major
    // C = A·W is column-major Cᵀ = Wᵀ·Aᵀ, with Wᵀ [N, K] (leading dimension N) and Aᵀ [K, M] (K).
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, W, CUDA_R_16BF, N, A, CUDA_R_16BF, K,
                              &beta, C, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
