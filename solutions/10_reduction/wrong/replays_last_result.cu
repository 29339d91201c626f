// Known-bad (wrong/expect.json): (b) remembers the input pointer of its last call and, when the same x comes again,
// copies its previous result into y (with a kernel of its own) instead of computing. Every first call on a buffer is
// right; the timed calls rotate over two buffers whose contents change before every call, so the verified ones are
// wrong (perf.split_*); and the memory it keeps is its own, which the launches check sees it allocate.
#define launch_rmsnorm_split solution_split_unused
#include "../rmsnorm.cu"
#undef launch_rmsnorm_split

namespace {

struct Remembered {
    const __nv_bfloat16* x = nullptr;
    int rows = 0, cols = 0;
    __nv_bfloat16* y = nullptr;  // its own copy of the last result
    float* scale = nullptr;
};
Remembered last[2];
int next_slot = 0;

__global__ void replay_kernel(const __nv_bfloat16* from_y, const float* from_scale, __nv_bfloat16* y, float* scale,
                              std::size_t n, int rows) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        y[i] = from_y[i];
        if (i < std::size_t(rows)) scale[i] = from_scale[i];
    }
}

}  // namespace

void launch_rmsnorm_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                          int cols, float eps, float* workspace, cudaStream_t stream) {
    const std::size_t n = std::size_t(rows) * std::size_t(cols);
    for (Remembered& m : last) {
        if (m.x == x && m.rows == rows && m.cols == cols) {
            replay_kernel<<<264, 256, 0, stream>>>(m.y, m.scale, y, scale, n, rows);
            LABS_CHECK_LAUNCH();
            return;
        }
    }
    solution_split_unused(x, gamma, y, scale, rows, cols, eps, workspace, stream);
    Remembered& m = last[next_slot++ % 2];
    if (m.y != nullptr) {
        CUDA_CHECK(cudaFree(m.y));
        CUDA_CHECK(cudaFree(m.scale));
    }
    CUDA_CHECK(cudaMalloc(&m.y, n * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&m.scale, std::size_t(rows) * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(m.y, y, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(m.scale, scale, std::size_t(rows) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    m.x = x, m.rows = rows, m.cols = cols;
}
