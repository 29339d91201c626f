// Known-bad (wrong/expect.json): (b) is one block per row at every batch size — right, and as fast as (a), but at
// M = 1 a single block streams the whole row: the observed launch runs one block (launches.split), and the small
// batches gain nothing over the given kernel (perf.split_*).
#define launch_rmsnorm_split solution_split_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_split

void launch_rmsnorm_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                          int cols, float eps, float* workspace, cudaStream_t stream) {
    launch_rmsnorm_rows(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}
