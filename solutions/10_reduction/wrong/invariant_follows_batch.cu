// Known-bad (wrong/expect.json): (c) is (b) — for long rows the segments follow the batch (64 per row of 65536 alone,
// 5 in a batch of 64, one block per row for 1024 rows), so a row's bits change with the rows beside it. Every single run is right and
// repeatable; only the same row placed in batches of different sizes shows it (invariance.invariant).
#define launch_rmsnorm_invariant solution_invariant_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_invariant

void launch_rmsnorm_invariant(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                              int rows, int cols, float eps, float* workspace, cudaStream_t stream) {
    launch_rmsnorm_split(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}
