// Known-bad (wrong/expect.json): v4 runs its own wgmma kernel for its first 30 calls — every correctness check and
// the calls code.v4 observes — and part v3's mma.sync kernel after that, as a submission would that counted its calls
// to show the code check one kernel and be timed on another. The kernels of the timed calls are read too: both
// perf.v4_* checks fail, naming what the timed calls ran.
#define launch_gemm_v4 solution_v4_unused
#include "../tiling.cu"
#undef launch_gemm_v4

void launch_gemm_v4(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    static int calls = 0;
    if (++calls <= 30) solution_v4_unused(A, W, C, M, N, K, stream);
    else launch_gemm_v3(A, W, C, M, N, K, stream);
}
