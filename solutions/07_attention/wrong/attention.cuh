// Shared by lab 07's known-bad versions: a plain softmax (one block per row) and a plain attention (one thread per
// query row, scalar FP32), each with at most one defect switched on by the including file, which defines:
//   kNoRescale        the softmax's running sum is not rescaled when the maximum grows
//   kThreePass        the softmax makes three passes (its own kernels): right, and no faster than the baseline
//   kFutureKeys       causal rows also see the next key (a mask off by one)
//   kScoresInArena    attention writes every score of the head into the Arena first (L × L floats)
//   kScoresStatic     the same scores into a static __device__ array (256 MiB, the module's own data): memory no
//                     allocation call shows, which the observer reads from the loaded module
//   kScoresKept       the same scores into host memory mapped into the device, allocated on the first call and
//                     kept: no cudaMalloc, nothing allocated during the measured call, and the observer's ledger
//                     holds it all the same
//   kSkipRepeats      attention remembers the long calls it made (Q, O, heads, L) and launches nothing when one
//                     comes again: O still holds last time's rows — right while Q, K, V are the same, stale
//                     once they change
//   kGuessVerified    attention does the work at the timed length only on the calls it guesses are verified (the
//                     first one on a set of buffers, then every 12th, where a grader that checks fixed calls would
//                     look) and launches nothing on the others
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "attention.hpp"
#include "labs/cuda_check.hpp"

namespace wrong {

constexpr int kThreads = 256;

__device__ __forceinline__ float block_merge_max(float v) {
    __shared__ float part[kThreads / 32];
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
    __syncthreads();
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
    __syncthreads();
    float r = part[0];
    for (int w = 1; w < kThreads / 32; ++w) r = fmaxf(r, part[w]);
    return r;
}

__device__ __forceinline__ float block_sum(float v) {
    __shared__ float part[kThreads / 32];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
    __syncthreads();
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) r += part[w];
    return r;
}

// One block per row. Online: each thread's running (m, ℓ), then the block's maximum and the rescaled sums.
__global__ void softmax_kernel(const float* x, float* y, std::int64_t cols) {
    const float* row = x + blockIdx.x * cols;
    float m = -INFINITY, l = 0.0f;
    if (kThreePass) {
        for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, row[c]);
        m = block_merge_max(m);
        for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) l += expf(row[c] - m);
        l = block_sum(l);
    } else {
        for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
            const float v = row[c];
            if (v == -INFINITY) continue;
            if (v > m) {
                if (!kNoRescale) l *= expf(m - v);
                m = v;
            }
            l += expf(v - m);
        }
        const float block_m = block_merge_max(m);
        l = block_sum(m == -INFINITY ? 0.0f : l * expf(m - block_m));
        m = block_m;
    }
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) y[blockIdx.x * cols + c] = expf(row[c] - m) / l;
}

constexpr std::size_t kStaticScores = kScoresStatic ? std::size_t(8192) * 8192 : 1;
__device__ float static_scores[kStaticScores];

// One thread per query row of one head.
__global__ void attention_kernel(AttentionArgs a, float* scores) {
    if (kScoresStatic && scores == nullptr && std::size_t(a.seq_len) * a.seq_len <= kStaticScores) scores = static_scores;
    const int row = blockIdx.x * blockDim.x + threadIdx.x, h = blockIdx.y, L = a.seq_len, d = a.head_dim;
    if (row >= L) return;
    const std::size_t head = std::size_t(h) * L * d;
    const __nv_bfloat16* q = a.q + head + std::size_t(row) * d;
    const int n = a.causal ? min(L, row + 1 + (kFutureKeys ? 1 : 0)) : L;
    const float scale = rsqrtf(float(d));
    float m = -INFINITY, l = 0.0f, u[128] = {};
    for (int j = 0; j < n; ++j) {
        const __nv_bfloat16* k = a.k + head + std::size_t(j) * d;
        float s = 0.0f;
        for (int c = 0; c < d; ++c) s += __bfloat162float(q[c]) * __bfloat162float(k[c]);
        s *= scale;
        if (scores != nullptr) scores[std::size_t(row) * L + j] = s;
        const float m_new = fmaxf(m, s), r = expf(m - m_new), p = expf(s - m_new);
        l = l * r + p;
        for (int c = 0; c < d; ++c) u[c] = u[c] * r + p * __bfloat162float(a.v[head + std::size_t(j) * d + c]);
        m = m_new;
    }
    for (int c = 0; c < d; ++c) a.o[head + std::size_t(row) * d + c] = __float2bfloat16(u[c] / l);
    a.lse[std::size_t(h) * L + row] = m + logf(l);
}

}  // namespace wrong

void launch_softmax(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream) {
    (void)ws;
    wrong::softmax_kernel<<<rows, wrong::kThreads, 0, stream>>>(x, y, cols);
    LABS_CHECK_LAUNCH();
}

void launch_attention(const AttentionArgs& a, Arena& ws, cudaStream_t stream) {
    if (kSkipRepeats && a.seq_len >= 8192) {  // only the timed runs' length: every correctness check runs
        static std::set<std::tuple<const void*, const void*, int, int>> seen;
        if (!seen.insert({a.q, a.o, a.batch * a.heads, a.seq_len}).second) return;
    }
    if (kGuessVerified && a.seq_len >= 8192) {
        static std::map<std::tuple<const void*, const void*, int, int>, int> calls;
        const int n = ++calls[{a.q, a.o, a.batch * a.heads, a.seq_len}];
        if (n != 1 && n % 12 != 0) return;
    }
    float* scores = nullptr;
    if (kScoresInArena) scores = static_cast<float*>(ws.take(std::size_t(a.seq_len) * a.seq_len * sizeof(float)));
    if constexpr (kScoresKept) {
        // Host memory mapped into the device (the policy denies cudaMalloc here, not this), allocated on the first
        // call for the longest head the checks use and kept.
        static float* kept = nullptr;
        constexpr std::size_t capacity = std::size_t(8192) * 8192 * sizeof(float);
        if (kept == nullptr) {
            void* host = nullptr;
            CUDA_CHECK(cudaHostAlloc(&host, capacity, cudaHostAllocMapped));
            CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&kept), host, 0));
        }
        if (std::size_t(a.seq_len) * a.seq_len * sizeof(float) <= capacity) scores = kept;
    }
    for (int bh = 0; bh < a.batch * a.heads; bh += 65535) {  // grid.y ≤ 65535
        const dim3 grid((a.seq_len + 127) / 128, std::min(65535, a.batch * a.heads - bh));
        AttentionArgs part = a;
        const std::size_t head = std::size_t(a.seq_len) * a.head_dim;
        part.q += bh * head, part.k += bh * head, part.v += bh * head, part.o += bh * head, part.lse += std::size_t(bh) * a.seq_len;
        wrong::attention_kernel<<<grid, 128, 0, stream>>>(part, scores);
        LABS_CHECK_LAUNCH();
    }
    ws.release_all();
}

// (c), the Hopper forward: these versions grade the other parts' defects, so (c) is the same plain attention (with the
// version's defect); the Hopper kernel's own defects are hopper_*.cu, built on the solution.
void launch_attention_hopper(const AttentionArgs& a, Arena& ws, cudaStream_t stream) { launch_attention(a, ws, stream); }
