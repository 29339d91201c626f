// Known-bad (wrong/expect.json), and honest: right layouts, and launchers that skip shared memory — one
// thread per element, reads coalesced, writes 32 rows apart. Every result is right; the bandwidth checks
// measure what strided writes cost and give it no points.
#include "transpose.cuh"

WRONG_RIGHT_LAYOUTS()

namespace {
template <class T>
__global__ void naive(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    const int r = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (r < rows && c < cols) out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
}
template <class Layout, class T>  // the layout is not used: no shared memory
void launch_naive(const T* in, T* out, int rows, int cols, cudaStream_t stream) {
    const dim3 grid(gpulab::ceil_div(cols, 32), gpulab::ceil_div(rows, 8));
    naive<T><<<grid, dim3(32, 8), 0, stream>>>(in, out, rows, cols);
    LABS_CHECK_LAUNCH();
}
}  // namespace

WRONG_LAUNCHERS_VIA(launch_naive)
