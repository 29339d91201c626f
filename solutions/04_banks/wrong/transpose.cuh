// Shared by the known-bad versions of banks.cu (wrong/expect.json): a correct tiled transpose through any
// layout, and the three launchers over the layouts each version defines (WRONG_LAUNCHERS()). Each version
// gets one thing wrong, elsewhere.
#pragma once

#include "banks.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace wrong {

template <class Layout, class T>
__global__ void tiled(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    __shared__ T tile[Layout::kElements];
    const int r0 = static_cast<int>(blockIdx.y) * banks::kTile, c0 = static_cast<int>(blockIdx.x) * banks::kTile;
    const int x = static_cast<int>(threadIdx.x);
    for (int j = static_cast<int>(threadIdx.y); j < banks::kTile; j += banks::kBlockRows)
        if (r0 + j < rows && c0 + x < cols) tile[Layout::offset(j, x)] = in[std::size_t(r0 + j) * cols + c0 + x];
    __syncthreads();
    for (int j = static_cast<int>(threadIdx.y); j < banks::kTile; j += banks::kBlockRows)
        if (c0 + j < cols && r0 + x < rows) out[std::size_t(c0 + j) * rows + r0 + x] = tile[Layout::offset(x, j)];
}

template <class Layout, class T>
void launch(const T* in, T* out, int rows, int cols, cudaStream_t stream) {
    const dim3 grid(gpulab::ceil_div(cols, banks::kTile), gpulab::ceil_div(rows, banks::kTile));
    tiled<Layout, T><<<grid, dim3(banks::kTile, banks::kBlockRows), 0, stream>>>(in, out, rows, cols);
    LABS_CHECK_LAUNCH();
}

}  // namespace wrong

// The three launchers, each calling FN<Layout>(in, out, rows, cols, stream) with its own layout: what each version
// does to a launch is FN.
#define WRONG_LAUNCHERS_VIA(FN)                                                                                    \
    void launch_transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {           \
        FN<PaddedLayout>(in, out, rows, cols, stream);                                                             \
    }                                                                                                              \
    void launch_transpose_swizzled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {         \
        FN<SwizzledLayout>(in, out, rows, cols, stream);                                                           \
    }                                                                                                              \
    void launch_transpose_swizzled_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols,          \
                                        cudaStream_t stream) {                                                     \
        FN<SwizzledLayoutBf16>(in, out, rows, cols, stream);                                                       \
    }
#define WRONG_LAUNCHERS() WRONG_LAUNCHERS_VIA(wrong::launch)

// The right layouts, for the versions whose fault lies elsewhere.
#define WRONG_RIGHT_PADDED()                                                                                       \
    struct PaddedLayout {                                                                                          \
        static constexpr int kElements = 32 * 33;                                                                  \
        __host__ __device__ static constexpr int offset(int r, int c) { return r * 33 + c; }                       \
    };
#define WRONG_RIGHT_SWIZZLED()                                                                                     \
    struct SwizzledLayout {                                                                                        \
        static constexpr int kElements = 32 * 32;                                                                  \
        __host__ __device__ static constexpr int offset(int r, int c) { return r * 32 + (c ^ r); }                 \
    };
#define WRONG_RIGHT_LAYOUTS()                                                                                      \
    WRONG_RIGHT_PADDED()                                                                                           \
    WRONG_RIGHT_SWIZZLED()                                                                                         \
    struct SwizzledLayoutBf16 : SwizzledLayout {};
