// Known-bad (wrong/expect.json): (c) presented as deterministic, but it merges the partial sums with atomicAdd — the
// segments are fixed by cols, so its launches look like (c)'s, and most runs even agree. Its machine code holds the
// floating-point atomic (code.invariant), and 50 runs on the same inputs or the batch placements see the order change.
#define launch_rmsnorm_invariant solution_invariant_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_invariant

void launch_rmsnorm_invariant(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                              int rows, int cols, float eps, float* workspace, cudaStream_t stream) {
    launch_split(x, gamma, y, scale, rows, cols, eps, workspace, stream, cut_into(cols, std::max(1, cols / kMinSegment)), true);
}
