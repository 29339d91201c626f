// FROZEN: do not edit. Lab 10's given RMSNorm: one block of 256 threads per row, each thread adding the squares of its
// elements in order (8 per 16-byte load where the rows are aligned), then a fixed tree across the block. What the split
// variants must beat at small batches (perf.split_*), and what the benchmark draws as "one block per row, given".
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "rmsnorm.hpp"
#include "rmsnorm_math.cuh"

namespace {

constexpr int kThreads = 256;

// The squares of row[j] for the j this thread owns: 8 at a time (one 16-byte load) when rows are 16-byte aligned.
__device__ __forceinline__ float thread_sum(const __nv_bfloat16* row, int cols) {
    float acc = 0.0f;
    if (cols % 8 == 0) {
        for (int j = 8 * static_cast<int>(threadIdx.x); j < cols; j += 8 * kThreads) {
            const uint4 bits = *reinterpret_cast<const uint4*>(row + j);
            const auto* v = reinterpret_cast<const __nv_bfloat16*>(&bits);
            for (int k = 0; k < 8; ++k) acc = __fadd_rn(acc, rmsnorm::square(v[k]));
        }
    } else {
        for (int j = static_cast<int>(threadIdx.x); j < cols; j += kThreads) acc = __fadd_rn(acc, rmsnorm::square(row[j]));
    }
    return acc;
}

__global__ void __launch_bounds__(kThreads) baseline_kernel(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                                                            __nv_bfloat16* y, float* scale, int cols, float eps) {
    __shared__ float partial[kThreads];
    const std::size_t r = blockIdx.x;
    const __nv_bfloat16* row = x + r * cols;
    partial[threadIdx.x] = thread_sum(row, cols);
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] = __fadd_rn(partial[threadIdx.x], partial[threadIdx.x + half]);
        __syncthreads();
    }
    const float s = rmsnorm::row_scale(partial[0], cols, eps);
    if (threadIdx.x == 0) scale[r] = s;
    __nv_bfloat16* out = y + r * cols;
    if (cols % 8 == 0) {
        for (int j = 8 * static_cast<int>(threadIdx.x); j < cols; j += 8 * kThreads) {
            const uint4 xb = *reinterpret_cast<const uint4*>(row + j), gb = *reinterpret_cast<const uint4*>(gamma + j);
            uint4 yb;
            const auto* xv = reinterpret_cast<const __nv_bfloat16*>(&xb);
            const auto* gv = reinterpret_cast<const __nv_bfloat16*>(&gb);
            auto* yv = reinterpret_cast<__nv_bfloat16*>(&yb);
            for (int k = 0; k < 8; ++k) yv[k] = rmsnorm::normalize(xv[k], s, gv[k]);
            *reinterpret_cast<uint4*>(out + j) = yb;
        }
    } else {
        for (int j = static_cast<int>(threadIdx.x); j < cols; j += kThreads) out[j] = rmsnorm::normalize(row[j], s, gamma[j]);
    }
}

}  // namespace

void launch_rmsnorm_baseline(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                             int rows, int cols, float eps, float* workspace, cudaStream_t stream) {
    gpulab::unused(workspace);
    baseline_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, gamma, y, scale, cols, eps);
    LABS_CHECK_LAUNCH();
}
