// FROZEN: do not edit. Lab 07's given code: the workspace, the three-pass softmax, the MATH attention path
// (S and P in device memory, cuBLAS for both products) and the FLOP count.
#include <cmath>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include <cublas_v2.h>

#include "attention.hpp"
#include "labs/cuda_check.hpp"

void* Arena::take(std::size_t bytes) {
    const std::size_t start = (used_ + 255) / 256 * 256;
    if (start + bytes > bytes_) throw std::bad_alloc();
    used_ = start + bytes;
    peak_ = used_ > peak_ ? used_ : peak_;
    return base_ + start;
}

double attention_flop(const AttentionArgs& a) {
    const double full = 4.0 * a.batch * a.heads * double(a.seq_len) * a.seq_len * a.head_dim;
    return a.causal ? full / 2 : full;
}

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kChunk = 16384;  // values of one row per block

__device__ float block_reduce(float v, bool is_max) {
    for (int o = 16; o > 0; o /= 2) {
        const float w = __shfl_xor_sync(0xFFFFFFFFu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    __shared__ float warps[kThreads / 32];
    __syncthreads();
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = v;
    __syncthreads();
    float r = warps[0];
    for (int w = 1; w < kThreads / 32; ++w) r = is_max ? fmaxf(r, warps[w]) : r + warps[w];
    return r;
}

// Pass 1: the maximum of each chunk of each row.
__global__ void chunk_max_kernel(const float* x, std::int64_t cols, float* chunk_max) {
    const std::int64_t first = blockIdx.x * kChunk, last = min(cols, first + kChunk);
    const float* row = x + blockIdx.y * cols;
    float m = -INFINITY;
    for (std::int64_t c = first + threadIdx.x; c < last; c += kThreads) m = fmaxf(m, row[c]);
    m = block_reduce(m, true);
    if (threadIdx.x == 0) chunk_max[blockIdx.y * gridDim.x + blockIdx.x] = m;
}

__device__ float row_max(const float* chunk_max) {
    float m = -INFINITY;
    for (unsigned p = 0; p < gridDim.x; ++p) m = fmaxf(m, chunk_max[blockIdx.y * gridDim.x + p]);
    return m;
}

// Pass 2: Σ e^(x − max) of each chunk.
__global__ void chunk_sum_kernel(const float* x, std::int64_t cols, const float* chunk_max, float* chunk_sum) {
    const float m = row_max(chunk_max);
    const std::int64_t first = blockIdx.x * kChunk, last = min(cols, first + kChunk);
    const float* row = x + blockIdx.y * cols;
    float s = 0.0f;
    for (std::int64_t c = first + threadIdx.x; c < last; c += kThreads) s += expf(row[c] - m);
    s = block_reduce(s, false);
    if (threadIdx.x == 0) chunk_sum[blockIdx.y * gridDim.x + blockIdx.x] = s;
}

// Pass 3: y = e^(x − max) / sum.
__global__ void normalise_kernel(const float* x, float* y, std::int64_t cols, const float* chunk_max, const float* chunk_sum) {
    const float m = row_max(chunk_max);
    float l = 0.0f;
    for (unsigned p = 0; p < gridDim.x; ++p) l += chunk_sum[blockIdx.y * gridDim.x + p];
    const std::int64_t first = blockIdx.x * kChunk, last = min(cols, first + kChunk);
    for (std::int64_t c = first + threadIdx.x; c < last; c += kThreads) y[blockIdx.y * cols + c] = expf(x[blockIdx.y * cols + c] - m) / l;
}

// The MATH path's helpers: causal mask and row softmax of S (L × L per head, in place into P), V to FP32, O to BF16.
__global__ void softmax_rows_kernel(const float* s, float* p, int L, bool causal) {
    const std::size_t row = blockIdx.x;  // over batch · heads · L rows
    const int i = static_cast<int>(row % L);
    const int n = causal ? i + 1 : L;
    const float* in = s + row * L;
    float* out = p + row * L;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < n; c += kThreads) m = fmaxf(m, in[c]);
    m = block_reduce(m, true);
    float l = 0.0f;
    for (int c = threadIdx.x; c < n; c += kThreads) l += expf(in[c] - m);
    l = block_reduce(l, false);
    for (int c = threadIdx.x; c < L; c += kThreads) out[c] = c < n ? expf(in[c] - m) / l : 0.0f;
}

__global__ void to_float_kernel(const __nv_bfloat16* in, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __bfloat162float(in[i]);
}

__global__ void to_bf16_kernel(const float* in, __nv_bfloat16* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16(in[i]);
}

cublasHandle_t cublas() {
    static cublasHandle_t h = [] {
        cublasHandle_t handle = nullptr;
        CUBLAS_CHECK(cublasCreate(&handle));
        return handle;
    }();
    return h;
}

}  // namespace

void launch_softmax_three_pass(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream) {
    if (rows < 1 || rows > 65535 || cols < 1)
        throw std::invalid_argument("launch_softmax_three_pass: 1 … 65535 rows of at least one value, not " + std::to_string(rows) + " × " +
                                    std::to_string(cols));
    const unsigned splits = static_cast<unsigned>((cols + kChunk - 1) / kChunk);
    auto* chunk_max = static_cast<float*>(ws.take(std::size_t(rows) * splits * sizeof(float)));
    auto* chunk_sum = static_cast<float*>(ws.take(std::size_t(rows) * splits * sizeof(float)));
    const dim3 grid(splits, rows);
    chunk_max_kernel<<<grid, kThreads, 0, stream>>>(x, cols, chunk_max);
    LABS_CHECK_LAUNCH();
    chunk_sum_kernel<<<grid, kThreads, 0, stream>>>(x, cols, chunk_max, chunk_sum);
    LABS_CHECK_LAUNCH();
    normalise_kernel<<<grid, kThreads, 0, stream>>>(x, y, cols, chunk_max, chunk_sum);
    LABS_CHECK_LAUNCH();
    ws.release_all();
}

void launch_attention_naive(const AttentionArgs& a, Arena& ws, cudaStream_t stream) {
    const int L = a.seq_len, d = a.head_dim, heads = a.batch * a.heads;
    const std::size_t per_head = std::size_t(L) * L, elems = std::size_t(heads) * L * d;
    auto* s = static_cast<float*>(ws.take(per_head * heads * sizeof(float)));
    auto* p = static_cast<float*>(ws.take(per_head * heads * sizeof(float)));
    auto* v32 = static_cast<float*>(ws.take(elems * sizeof(float)));
    auto* o32 = static_cast<float*>(ws.take(elems * sizeof(float)));
    CUBLAS_CHECK(cublasSetStream(cublas(), stream));
    // S[query][key] (row-major) = Q·Kᵀ/√d: column-major C = op(K)ᵀ·Q with C[key][query], one GEMM per head.
    const float scale = 1.0f / std::sqrt(float(d)), one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, L, L, d, &scale, a.k, CUDA_R_16BF, d,
                                            std::int64_t(L) * d, a.q, CUDA_R_16BF, d, std::int64_t(L) * d, &zero, s,
                                            CUDA_R_32F, L, std::int64_t(per_head), heads, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT));
    softmax_rows_kernel<<<unsigned(std::size_t(heads) * L), kThreads, 0, stream>>>(s, p, L, a.causal);
    LABS_CHECK_LAUNCH();
    to_float_kernel<<<1024, 256, 0, stream>>>(a.v, v32, elems);
    LABS_CHECK_LAUNCH();
    // O[query][dim] = P·V: column-major C[dim][query] = V_cm[dim][key] · P_cm[key][query].
    CUBLAS_CHECK(cublasSgemmStridedBatched(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, d, L, L, &one, v32, d, std::int64_t(L) * d,
                                           p, L, std::int64_t(per_head), &zero, o32, d, std::int64_t(L) * d, heads));
    to_bf16_kernel<<<1024, 256, 0, stream>>>(o32, a.o, elems);
    LABS_CHECK_LAUNCH();
    ws.release_all();
}
