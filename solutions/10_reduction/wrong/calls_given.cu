// Known-bad (wrong/expect.json): (a) hands its work to the lab's given kernel (launch_rmsnorm_baseline). The code
// policy finds the call in the compiled object before anything runs.
#define launch_rmsnorm_rows solution_rows_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_rows

void launch_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                         int cols, float eps, float* workspace, cudaStream_t stream) {
    launch_rmsnorm_baseline(x, gamma, y, scale, rows, cols, eps, workspace, stream);
}
