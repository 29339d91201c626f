// Known-bad (wrong/expect.json): (d) is (c) — deterministic, so its runs never differ, and the lesson of (d) (what
// atomics do to the bits) is skipped. Its machine code holds no floating-point atomic add (code.atomic).
#define launch_rmsnorm_atomic solution_atomic_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_atomic

void launch_rmsnorm_atomic(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                           int cols, float eps, float* workspace, cudaStream_t stream) {
    launch_rmsnorm_invariant(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}
