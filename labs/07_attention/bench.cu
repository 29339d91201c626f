// FROZEN: do not edit. Lab 07 experiment (one head unless said otherwise, d = 128, causal):
//   attention/PATH/L      the MATH path (0) and yours (1) at L = 512 … 16384: ms, TFLOP/s, extra memory (the
//                         Arena's peak, MiB) and the model's traffic (MiB: S and P written and read back for
//                         the MATH path; K and V once per 64-row query block, Q and O once, for a blocked one)
//   heads/L               yours at B = 1, H = 32: TFLOP/s, and cuBLAS BF16 8192³ in the same process
//   hopper/CAUSAL/L       your part (c) at B = 1, H = 32, not causal (0) and causal (1): TFLOP/s and cuBLAS's (skipped,
//                         with the reason, where sm_90a code cannot run)
//   softmax/PATH/COLS     the three-pass (0) and yours (1) on 2^26 values in rows of COLS: GB/s at 12 bytes per value
//
//   build/labs/07_attention/lab07_bench --benchmark_format=json > bench.json   (your code)
//   labs/07_attention/figures.py --bench bench.json                            (the pictures)
#include <cmath>
#include <functional>
#include <string>

#include <benchmark/benchmark.h>
#include <cublas_v2.h>

#include "attention.hpp"
#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/random.hpp"
#include "labs/tma.hpp"

namespace {

constexpr int kD = 128;
constexpr double kMiB = 1048576.0;

gpulab::DeviceBuffer<unsigned char>& arena_memory() {
    static gpulab::DeviceBuffer<unsigned char> m(std::size_t(3) << 30);  // the MATH path at L = 16384: 2 GiB of S and P
    return m;
}

struct Head {
    gpulab::DeviceBuffer<__nv_bfloat16> q, k, v, o;
    gpulab::DeviceBuffer<float> lse;
    AttentionArgs a;
    Head(int heads, int L) {
        const std::size_t n = std::size_t(heads) * L * kD;
        q = gpulab::DeviceBuffer<__nv_bfloat16>(n), k = gpulab::DeviceBuffer<__nv_bfloat16>(n);
        v = gpulab::DeviceBuffer<__nv_bfloat16>(n), o = gpulab::DeviceBuffer<__nv_bfloat16>(n);
        lse = gpulab::DeviceBuffer<float>(std::size_t(heads) * L);
        gpulab::fill_uniform_bf16_device(q.data(), n, 1, -2.0f, 2.0f);
        gpulab::fill_uniform_bf16_device(k.data(), n, 2, -2.0f, 2.0f);
        gpulab::fill_uniform_bf16_device(v.data(), n, 3, -2.0f, 2.0f);
        a = AttentionArgs{q.data(), k.data(), v.data(), o.data(), lse.data(), 1, heads, L, kD, true};
    }
};

void attention(benchmark::State& state) {
    const bool mine = state.range(0) == 1;
    const int L = static_cast<int>(state.range(1));
    Head h(1, L);
    Arena peak(arena_memory().data(), arena_memory().size());
    const auto run = [&](cudaStream_t s) {
        Arena ws(arena_memory().data(), arena_memory().size());
        if (mine) launch_attention(h.a, ws, s);
        else launch_attention_naive(h.a, ws, s);
    };
    const double ms = gpulab::bench::time_manual(state, run);
    if (ms < 0) return;
    if (mine) launch_attention(h.a, peak, nullptr);
    else launch_attention_naive(h.a, peak, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double qkvo = 4.0 * L * kD * 2, blocks = std::ceil(L / 64.0);
    gpulab::bench::set_counters(state, {{"ms", ms}, {"L", L}, {"path", state.range(0)},
                                        {"tflops", attention_flop(h.a) / (ms * 1e-3) / 1e12},
                                        {"extra_mib", double(peak.peak_bytes()) / kMiB}});
    // Causal: query block i reads K and V blocks 0 … i, so about half of the L/64 passes' worth.
    state.counters["model_mib"] = mine ? (qkvo + (blocks + 1) / 2 * 2.0 * L * kD * 2) / kMiB
                                       : (qkvo + 2.0 * 2 * double(L) * L * 4) / kMiB;
}

double cublas_tflops() {
    static const double tf = [] {
        constexpr int n = 8192;
        gpulab::DeviceBuffer<__nv_bfloat16> a(std::size_t(n) * n), b(std::size_t(n) * n), c(std::size_t(n) * n);
        gpulab::fill_uniform_bf16_device(a.data(), a.size(), 4, -1.0f, 1.0f);
        gpulab::fill_uniform_bf16_device(b.data(), b.size(), 5, -1.0f, 1.0f);
        cublasHandle_t h = nullptr;
        CUBLAS_CHECK(cublasCreate(&h));
        const float one = 1.0f, zero = 0.0f;
        const auto gemm = [&](cudaStream_t s) {
            CUBLAS_CHECK(cublasSetStream(h, s));
            CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), CUDA_R_16BF, n, b.data(),
                                      CUDA_R_16BF, n, &zero, c.data(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        };
        gpulab::TimingOptions o;
        o.min_reps = 10;
        const double ms = gpulab::time_region(gemm, o).median_ms;
        cublasDestroy(h);
        return 2.0 * n * double(n) * n / (ms * 1e-3) / 1e12;
    }();
    return tf;
}

void heads(benchmark::State& state) {
    const int L = static_cast<int>(state.range(0));
    Head h(32, L);
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        Arena ws(arena_memory().data(), arena_memory().size());
        launch_attention(h.a, ws, s);
    });
    if (ms < 0) return;
    gpulab::bench::set_counters(state, {{"ms", ms}, {"L", L}, {"tflops", attention_flop(h.a) / (ms * 1e-3) / 1e12},
                                        {"cublas_tflops", cublas_tflops()}});
}

void hopper(benchmark::State& state) {
    if (const std::string why = gpulab::sm90a_unavailable(); !why.empty()) {
        state.SkipWithError(("part (c): " + why).c_str());
        return;
    }
    const bool causal = state.range(0) == 1;
    const int L = static_cast<int>(state.range(1));
    Head h(32, L);
    h.a.causal = causal;
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        Arena ws(arena_memory().data(), arena_memory().size());
        launch_attention_hopper(h.a, ws, s);
    });
    if (ms < 0) return;
    gpulab::bench::set_counters(state, {{"ms", ms}, {"L", L}, {"causal", causal ? 1 : 0},
                                        {"tflops", attention_flop(h.a) / (ms * 1e-3) / 1e12}, {"cublas_tflops", cublas_tflops()}});
}

void softmax(benchmark::State& state) {
    const bool mine = state.range(0) == 1;
    const std::int64_t cols = state.range(1);
    const int rows = static_cast<int>((std::int64_t(1) << 26) / cols);
    gpulab::DeviceBuffer<float> x(std::size_t(rows) * cols), y(std::size_t(rows) * cols);
    gpulab::fill_uniform_device(x.data(), x.size(), 6, -8.0f, 8.0f);
    const double ms = gpulab::bench::time_manual(state, [&](cudaStream_t s) {
        Arena ws(arena_memory().data(), arena_memory().size());
        if (mine) launch_softmax(x.data(), y.data(), rows, cols, ws, s);
        else launch_softmax_three_pass(x.data(), y.data(), rows, cols, ws, s);
    });
    if (ms < 0) return;
    gpulab::bench::set_counters(state, {{"ms", ms}, {"cols", double(cols)}, {"path", state.range(0)},
                                        {"GB/s", 12.0 * x.size() / (ms * 1e-3) / 1e9}});
}

}  // namespace

BENCHMARK(attention)->ArgsProduct({{0, 1}, {512, 1024, 2048, 4096, 8192, 16384}})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(heads)->ArgsProduct({{512, 1024, 2048, 4096, 8192, 16384}})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(hopper)->ArgsProduct({{0, 1}, {1024, 2048, 4096, 8192, 16384}})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(softmax)->ArgsProduct({{0, 1}, {4096, 16384, 1 << 20}})->UseManualTime()->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) { return gpulab::bench::run_benchmarks(argc, argv); }
