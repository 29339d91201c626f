// Known-bad (wrong/expect.json): (b) cuts a row into segments of ⌊cols / segments⌋ rounded down to 8 elements, so the
// last cols − segments · length elements belong to no segment: their squares are never added and their outputs never
// written. Right wherever the row divides evenly (4096 in 4), wrong on the rows that do not.
#define launch_rmsnorm_split solution_split_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_split

void launch_rmsnorm_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                          int cols, float eps, float* workspace, cudaStream_t stream) {
    const int wanted = static_cast<int>(gpulab::ceil_div(2 * sm_count(), rows));
    const int segments = std::min({wanted, std::max(1, cols / kMinSegment), kMaxSegments});
    if (segments <= 1) {
        launch_rmsnorm_rows(x, gamma, y, scale, rows, cols, eps, workspace, stream);
        return;
    }
    Cut cut;
    cut.segments = segments;
    cut.length = cols / segments / 8 * 8;  // the tail is forgotten
    launch_split(x, gamma, y, scale, rows, cols, eps, workspace, stream, cut, false);
}
