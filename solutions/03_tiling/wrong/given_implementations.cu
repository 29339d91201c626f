// Known-bad (wrong/expect.json): the "tiled" launchers hand the work to what the lab gives — the naive
// kernel for v1 and v2, cuBLAS (and the separate SiLU) for v3, v4 and the fused epilogue. Right results,
// and v3 and v4 at cuBLAS's speed; the code policy finds the calls in the compiled object before anything runs.
#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "tiling.hpp"

template <int BM, int BN, int BK>
void launch_gemm_v1_tiles(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    launch_gemm_naive(A, W, C, M, N, K, stream);
}

template <int BM, int BN, int BK>
KernelInfo gemm_v1_kernel_info() {
    return {};
}

#define GIVEN_GEMM(name, given)                                                                                    \
    void name(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,               \
              cudaStream_t stream) {                                                                              \
        given(A, W, C, M, N, K, stream);                                                                          \
    }
GIVEN_GEMM(launch_gemm_v1, launch_gemm_naive)
GIVEN_GEMM(launch_gemm_v2, launch_gemm_naive)
GIVEN_GEMM(launch_gemm_v3, launch_gemm_cublas)
GIVEN_GEMM(launch_gemm_v4, launch_gemm_cublas)

template <int kStages, int kConsumers, bool kPersistent>
void launch_gemm_v4_config(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                           cudaStream_t stream) {
    launch_gemm_cublas(A, W, C, M, N, K, stream);
}

void launch_gemm_silu(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K,
                      cudaStream_t stream) {
    static gpulab::Workspace<__nv_bfloat16> c;
    __nv_bfloat16* scratch = c.at_least(static_cast<std::size_t>(M) * N);
    launch_gemm_cublas(A, W, scratch, M, N, K, stream);
    launch_silu(scratch, Y, static_cast<std::size_t>(M) * N, stream);
}
