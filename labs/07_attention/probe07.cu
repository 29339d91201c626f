// Development harness for lab 07 (wip/lab07 only; delete before landing): the reference kernels against the
// FP64 references on small shapes and against the MATH path on a medium one, and timings at the issue's shape.
// The reference is included as source, so that both block shapes (MT = 1: 64 query rows; MT = 2: 128) can be
// timed and checked:
//   nvcc -O3 -std=c++20 -arch=sm_90 -Ilabs/07_attention -Icommon/include labs/07_attention/probe07.cu \
//        labs/07_attention/baseline.cu labs/07_attention/reference.cpp common/src/cuda_check.cpp \
//        -lcublas -lnvrtc -lcuda -o probe07
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include <cublas_v2.h>

#include "attention.hpp"
#include "labs/cuda_check.hpp"
#include "reference.hpp"
#include "../../solutions/07_attention/attention.cu"

namespace {

int g_mt = 1;  // the block shape the attention calls below use

void attention_mt(const AttentionArgs& a, cudaStream_t s) {
    if (g_mt == 1) {
        Arena none(nullptr, 0);
        return launch_attention(a, none, s);
    }
    if (a.head_dim == 64) return a.causal ? launch_attention_of<64, true, 2>(a, s) : launch_attention_of<64, false, 2>(a, s);
    return a.causal ? launch_attention_of<128, true, 2>(a, s) : launch_attention_of<128, false, 2>(a, s);
}

std::vector<__nv_bfloat16> random_bf16(std::size_t n, std::mt19937& rng) {
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<__nv_bfloat16> v(n);
    for (auto& x : v) x = __float2bfloat16(d(rng));
    return v;
}

template <typename T>
T* to_device(const std::vector<T>& h) {
    T* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

float ms_of(const std::function<void()>& f, int reps = 10) {
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    f();
    cudaEventRecord(a);
    for (int i = 0; i < reps; ++i) f();
    cudaEventRecord(b);
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return ms / reps;
}

}  // namespace

int main() {
    std::mt19937 rng(7);
    void* scratch = nullptr;
    const std::size_t scratch_bytes = std::size_t(20) << 30;
    CUDA_CHECK(cudaMalloc(&scratch, scratch_bytes));
    // Attention vs FP64 on small shapes, both block shapes.
    for (const int mt : {1, 2})
    for (const int d : {64, 128})
        for (const bool causal : {false, true})
            for (const int L : {1, 7, 64, 100, 257}) {
                g_mt = mt;
                const int heads = 3;
                const std::size_t n = std::size_t(heads) * L * d;
                auto q = random_bf16(n, rng), k = random_bf16(n, rng), v = random_bf16(n, rng);
                AttentionArgs a{to_device(q), to_device(k), to_device(v), nullptr, nullptr, 1, heads, L, d, causal};
                CUDA_CHECK(cudaMalloc(&a.o, n * 2));
                CUDA_CHECK(cudaMalloc(&a.lse, std::size_t(heads) * L * 4));
                attention_mt(a, nullptr);
                CUDA_CHECK(cudaDeviceSynchronize());
                std::vector<__nv_bfloat16> o(n);
                std::vector<float> lse(std::size_t(heads) * L);
                CUDA_CHECK(cudaMemcpy(o.data(), a.o, n * 2, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(lse.data(), a.lse, lse.size() * 4, cudaMemcpyDeviceToHost));
                const AttentionReference r = attention_reference(q, k, v, heads, L, d, causal);
                double err = 0, lse_err = 0;
                for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::abs(double(__bfloat162float(o[i])) - r.o[i]));
                for (std::size_t i = 0; i < lse.size(); ++i) lse_err = std::max(lse_err, std::abs(double(lse[i]) - r.lse[i]));
                std::printf("attention MT=%d d=%d causal=%d L=%d: max |O - ref| %.3g, max |lse - ref| %.3g\n", mt, d, causal, L,
                            err, lse_err);
            }
    // Softmax vs FP64.
    for (const std::int64_t cols : {std::int64_t(1), std::int64_t(7), std::int64_t(1000), (std::int64_t(1) << 20) + 3}) {
        const int rows = cols > 100000 ? 3 : 17;
        std::vector<float> x(std::size_t(rows) * cols);
        std::normal_distribution<float> nd(0.0f, 3.0f);
        for (auto& e : x) e = nd(rng);
        if (cols > 2) x[1] = -INFINITY, x[cols + 2] = 1e30f;
        float *dx = to_device(x), *dy = nullptr;
        CUDA_CHECK(cudaMalloc(&dy, x.size() * 4));
        Arena ws(scratch, scratch_bytes);
        launch_softmax(dx, dy, rows, cols, ws, nullptr);
        std::vector<float> y(x.size());
        CUDA_CHECK(cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost));
        const std::vector<double> r = softmax_reference(x, rows, cols);
        double rel = 0;
        for (std::size_t i = 0; i < y.size(); ++i)
            if (r[i] > 1e-30) rel = std::max(rel, std::abs(y[i] - r[i]) / r[i]);
        std::printf("softmax cols=%lld: max relative error %.3g\n", (long long)cols, rel);
        if (cols > 100000) {
            const int big_rows = 64;
            float *bx = nullptr, *by = nullptr;
            CUDA_CHECK(cudaMalloc(&bx, std::size_t(big_rows) * cols * 4));
            CUDA_CHECK(cudaMalloc(&by, std::size_t(big_rows) * cols * 4));
            CUDA_CHECK(cudaMemset(bx, 0, std::size_t(big_rows) * cols * 4));
            const float one = ms_of([&] { Arena w(scratch, scratch_bytes); launch_softmax(bx, by, big_rows, cols, w, nullptr); });
            const float three = ms_of([&] { Arena w(scratch, scratch_bytes); launch_softmax_three_pass(bx, by, big_rows, cols, w, nullptr); });
            const float copy = ms_of([&] { CUDA_CHECK(cudaMemcpyAsync(by, bx, std::size_t(big_rows) * cols * 4, cudaMemcpyDeviceToDevice)); });
            std::printf("softmax 64 x 2^20: online %.3f ms, three-pass %.3f ms (%.2fx), copy %.3f ms; online at %.2f of copy "
                        "bandwidth (12 bytes per value)\n", one, three, three / one, copy, (12.0 / 8.0) * copy / one);
        }
    }
    // The issue's shape: B 1, H 32, L 8192, d 128, causal, against cuBLAS BF16 8192³ and the MATH path at one head.
    {
        const int heads = 32, L = 8192, d = 128;
        const std::size_t n = std::size_t(heads) * L * d;
        auto q = random_bf16(n, rng);
        AttentionArgs a{to_device(q), to_device(q), to_device(q), nullptr, nullptr, 1, heads, L, d, true};
        CUDA_CHECK(cudaMalloc(&a.o, n * 2));
        CUDA_CHECK(cudaMalloc(&a.lse, std::size_t(heads) * L * 4));
        g_mt = 1;
        const float ms = ms_of([&] { attention_mt(a, nullptr); });
        g_mt = 2;
        const float ms2 = ms_of([&] { attention_mt(a, nullptr); });
        g_mt = 1;
        cublasHandle_t h;
        cublasCreate(&h);
        __nv_bfloat16 *ga, *gb, *gc;
        const int N = 8192;
        CUDA_CHECK(cudaMalloc(&ga, std::size_t(N) * N * 2));
        CUDA_CHECK(cudaMalloc(&gb, std::size_t(N) * N * 2));
        CUDA_CHECK(cudaMalloc(&gc, std::size_t(N) * N * 2));
        const float alpha = 1, beta = 0;
        const float gemm = ms_of([&] {
            cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, ga, CUDA_R_16BF, N, gb, CUDA_R_16BF, N, &beta, gc,
                         CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        });
        const double tf = attention_flop(a) / (ms * 1e-3) / 1e12, cublas_tf = 2.0 * N * N * double(N) / (gemm * 1e-3) / 1e12;
        std::printf("attention B1 H32 L8192 d128 causal: %.3f ms, %.1f TFLOP/s; cuBLAS %.1f TFLOP/s; %.3f of cuBLAS\n", ms, tf,
                    cublas_tf, tf / cublas_tf);
        const double tf2 = attention_flop(a) / (ms2 * 1e-3) / 1e12;
        std::printf("  with 128 query rows per block (MT = 2): %.3f ms, %.1f TFLOP/s, %.3f of cuBLAS\n", ms2, tf2, tf2 / cublas_tf);
        AttentionArgs one = a;
        one.heads = 1;
        const float flash1 = ms_of([&] { Arena w(scratch, scratch_bytes); launch_attention(one, w, nullptr); });
        Arena peak(scratch, scratch_bytes);
        const float naive1 = ms_of([&] { Arena w(scratch, scratch_bytes); launch_attention_naive(one, w, nullptr); });
        launch_attention_naive(one, peak, nullptr);
        std::printf("one head L8192 causal: flash %.3f ms, naive %.3f ms (%.1fx), naive scratch %.0f MiB\n", flash1, naive1,
                    naive1 / flash1, peak.peak_bytes() / 1048576.0);
    }
    return 0;
}
