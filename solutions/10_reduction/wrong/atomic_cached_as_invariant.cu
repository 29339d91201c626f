// Known-bad (wrong/expect.json): (c) merges with atomicAdd, so its bits change from run to run, and hides it behind a
// cache: the first call on an input buffer computes and keeps y and the scales in memory of its own; every later call
// on the same buffer copies them back with a kernel of its own (no cudaMemcpy for the observer to count). The 50 runs
// of determinism.invariant then give one result — the kept one. What gives it away is the memory it keeps (more than
// the 1 MiB of its own a deterministic kernel could need), the allocation the launches check sees, and the atomic add
// in its machine code.
#define launch_rmsnorm_invariant solution_invariant_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_invariant

namespace {

struct Kept {
    const __nv_bfloat16* x = nullptr;
    int rows = 0, cols = 0;
    __nv_bfloat16* y = nullptr;
    float* scale = nullptr;
};
Kept kept;

__global__ void copy_kernel(const __nv_bfloat16* from_y, const float* from_scale, __nv_bfloat16* y, float* scale, std::size_t n,
                            int rows) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        y[i] = from_y[i];
        if (i < std::size_t(rows)) scale[i] = from_scale[i];
    }
}

}  // namespace

void launch_rmsnorm_invariant(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                              int rows, int cols, float eps, float* workspace, cudaStream_t stream) {
    const std::size_t n = std::size_t(rows) * std::size_t(cols);
    if (kept.x == x && kept.rows == rows && kept.cols == cols) {
        copy_kernel<<<264, 256, 0, stream>>>(kept.y, kept.scale, y, scale, n, rows);
        LABS_CHECK_LAUNCH();
        return;
    }
    // Segments fixed by cols, as (c) should be, but merged by atomicAdd in the order the blocks arrive.
    launch_split(x, gamma, y, scale, rows, cols, eps, workspace, stream, cut_into(cols, std::max(2, cols / kMinSegment)), true);
    if (kept.y != nullptr) {
        CUDA_CHECK(cudaFree(kept.y));
        CUDA_CHECK(cudaFree(kept.scale));
    }
    CUDA_CHECK(cudaMalloc(&kept.y, n * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&kept.scale, std::size_t(rows) * sizeof(float)));
    copy_kernel<<<264, 256, 0, stream>>>(y, scale, kept.y, kept.scale, n, rows);
    LABS_CHECK_LAUNCH();
    kept.x = x, kept.rows = rows, kept.cols = cols;
}
