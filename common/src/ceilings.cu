// Measuring this GPU's ceilings in one run.
#include "labs/ceilings.hpp"
#include "labs/chase.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "labs/bf16.hpp"
#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/random.hpp"
#include "labs/timing.hpp"

namespace gpulab {
namespace {

__global__ void empty_kernel() {}

// Holds the stream for about `cycles` SM clock cycles, so that the launches queued behind it can be
// timed back to back without the host in the way.
__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

// Eight independent FMA chains per thread: enough instruction-level parallelism to saturate the FMA
// pipes. The final store is practically never taken but keeps the work alive.
__global__ void fma_kernel(float* sink, int iters, float b, float c) {
    float a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = static_cast<float>(threadIdx.x + j);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], b, c);
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += a[j];
    if (s == -1.2345f) sink[0] = s;
}

TimingOptions quick_opts(bool quick, const char* label) {
    TimingOptions o;
    o.flush_l2 = false;
    o.warmup = 2;
    o.min_reps = quick ? 3 : 10;
    o.max_reps = quick ? 10 : 100;
    o.max_rel_ci = 0.01;
    o.label = label;
    return o;
}

double copy_gbps(std::size_t bytes, bool quick) {
    DeviceBuffer<unsigned char> src(bytes), dst(bytes);
    src.zero();
    dst.zero();
    const auto r = time_region(
        [&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        quick_opts(quick, "ceiling: D2D copy"));
    return 2.0 * static_cast<double>(bytes) / (r.median_ms * 1e-3) / 1e9;
}

double gemm_tflops(int m, int n, int k, bool quick) {
    DeviceBuffer<bf16> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n);
    fill_uniform_bf16_device(a.data(), a.size(), 1234, -1.0f, 1.0f);
    fill_uniform_bf16_device(b.data(), b.size(), 5678, -1.0f, 1.0f);
    cublasHandle_t h = nullptr;
    CUBLAS_CHECK(cublasCreate(&h));
    std::unique_ptr<cublasContext, void (*)(cublasHandle_t)> guard(h, [](cublasHandle_t p) { (void)cublasDestroy(p); });
    const float alpha = 1.0f, beta = 0.0f;
    const auto r = time_region(
        [&](cudaStream_t s) {
            CUBLAS_CHECK(cublasSetStream(h, s));
            CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a.data(), CUDA_R_16BF, m,
                                      b.data(), CUDA_R_16BF, k, &beta, c.data(), CUDA_R_16BF, m,
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        },
        quick_opts(quick, "ceiling: cuBLAS BF16 GEMM"));
    return 2.0 * m * double(n) * k / (r.median_ms * 1e-3) / 1e12;
}

double fma_tflops(bool quick) {
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    DeviceBuffer<float> sink(1);
    const int blocks = sms * 8, threads = 256, iters = quick ? 4096 : 16384;
    const auto r = time_region(
        [&](cudaStream_t s) {
            fma_kernel<<<blocks, threads, 0, s>>>(sink.data(), iters, 0.999f, 0.001f);
            LABS_CHECK_LAUNCH();
        },
        quick_opts(quick, "ceiling: FP32 FMA"));
    const double flop = 2.0 * 8.0 * double(blocks) * threads * iters;
    return flop / (r.median_ms * 1e-3) / 1e12;
}

struct LaunchLatency {
    double submit_us = 0;
    double device_us = 0;
};

LaunchLatency launch_latency(int launches) {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    LaunchLatency out;
    for (int i = 0; i < 100; ++i) empty_kernel<<<1, 1, 0, s>>>();  // warm-up
    LABS_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(s));
    // Host: time to enqueue, GPU idle.
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) empty_kernel<<<1, 1, 0, s>>>();
    const auto t1 = std::chrono::steady_clock::now();
    LABS_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(s));
    out.submit_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
    // Device: launches queued behind a spinning kernel run back to back once it ends. Batches of 200, fewer than
    // the stream's queue holds: a longer batch blocks the host once the queue is full, and the rest then run at the
    // host's submit rate (one batch of 2000 gave 1.74-2.60 us from run to run on the H200). The median of 9 batches.
    int dev = 0, khz = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    const int batch = std::min(launches, 200);
    const double hold_ms = out.submit_us * batch * 1e-3 * 1.5 + 2.0;
    std::vector<double> per_launch;
    for (int round = 0; round < 9; ++round) {
        EventTimer timer;
        spin_kernel<<<1, 1, 0, s>>>(static_cast<long long>(hold_ms * khz));
        timer.start(s);
        for (int i = 0; i < batch; ++i) empty_kernel<<<1, 1, 0, s>>>();
        timer.stop(s);
        LABS_CHECK_LAUNCH();
        per_launch.push_back(1e3 * timer.elapsed_ms() / batch);
    }
    std::sort(per_launch.begin(), per_launch.end());
    out.device_us = per_launch[per_launch.size() / 2];
    CUDA_CHECK(cudaStreamDestroy(s));
    return out;
}

double graph_node_us(int nodes) {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; ++i) empty_kernel<<<1, 1, 0, s>>>();
    CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphUpload(exec, s));
    TimingOptions o = quick_opts(false, "ceiling: graph replay");
    o.min_reps = 5;
    o.max_reps = 20;
    const auto r = time_region([&](cudaStream_t st) { CUDA_CHECK(cudaGraphLaunch(exec, st)); }, o, s);
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 1e3 * r.median_ms / nodes;
}

double transfer_gbps(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    // Median of a few synchronous copies timed with events on the legacy default stream.
    std::vector<double> ms;
    EventTimer t;
    for (int i = 0; i < 5; ++i) {
        t.start();
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
        t.stop();
        ms.push_back(t.elapsed_ms());
    }
    return static_cast<double>(bytes) / (summarize(ms).median_ms * 1e-3) / 1e9;
}

std::string size_string(std::size_t bytes) {
    char buf[64];
    if (bytes >= (std::size_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.3g GiB", double(bytes) / (1 << 30));
    else std::snprintf(buf, sizeof buf, "%.3g MiB", double(bytes) / (1 << 20));
    return buf;
}

}  // namespace

double measure_copy_bandwidth_gbps(std::size_t bytes) { return copy_gbps(bytes, false); }

Ceilings measure_ceilings(const CeilingOptions& in) {
    CeilingOptions o = in;
    if (o.quick) {
        o.copy_bytes = std::min<std::size_t>(o.copy_bytes, std::size_t(256) << 20);
        o.transfer_bytes = std::min<std::size_t>(o.transfer_bytes, std::size_t(64) << 20);
        o.gemm_m = o.gemm_n = o.gemm_k = 4096;
        o.launches = 500;
    }
    NvtxRange range("measure_ceilings");
    Ceilings c;
    c.copy_size = size_string(o.copy_bytes);
    c.copy_bytes = static_cast<double>(o.copy_bytes);
    c.d2d_copy_gbps = copy_gbps(o.copy_bytes, o.quick);
    c.gemm_shape = std::to_string(o.gemm_m) + "x" + std::to_string(o.gemm_n) + "x" + std::to_string(o.gemm_k);
    c.bf16_gemm_tflops = gemm_tflops(o.gemm_m, o.gemm_n, o.gemm_k, o.quick);
    c.fp32_fma_tflops = fma_tflops(o.quick);
    const LaunchLatency l = launch_latency(o.launches);
    c.launch_submit_us = l.submit_us;
    c.launch_device_us = l.device_us;
    c.graph_node_us = graph_node_us(o.launches);
    {
        // Latencies: walks far larger than the L2 cache, and a walk that fits in it (chase.hpp).
        const ChaseChain dram(o.quick ? std::size_t(512) << 20 : std::size_t(1) << 30, 0x1a7e);
        const ChaseChain l2(std::size_t(4) << 20, 0x12);
        c.dram_latency_ns = measure_chase_latency(dram, o.quick ? 4000 : 20000, o.quick ? 1 : 3).ns_per_load;
        c.l2_latency_ns = measure_chase_latency(l2, o.quick ? 8000 : 40000, o.quick ? 1 : 3).ns_per_load;
        int dev = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, dev));
    }
    {
        DeviceBuffer<unsigned char> dev(o.transfer_bytes);
        PinnedBuffer<unsigned char> pinned(o.transfer_bytes);
        std::memset(pinned.data(), 1, pinned.bytes());
        std::vector<unsigned char> pageable(o.transfer_bytes, 1);
        c.h2d_pinned_gbps = transfer_gbps(dev.data(), pinned.data(), o.transfer_bytes, cudaMemcpyHostToDevice);
        c.d2h_pinned_gbps = transfer_gbps(pinned.data(), dev.data(), o.transfer_bytes, cudaMemcpyDeviceToHost);
        c.h2d_pageable_gbps = transfer_gbps(dev.data(), pageable.data(), o.transfer_bytes, cudaMemcpyHostToDevice);
        c.d2h_pageable_gbps = transfer_gbps(pageable.data(), dev.data(), o.transfer_bytes, cudaMemcpyDeviceToHost);
    }
    return c;
}

void to_json(nlohmann::json& j, const Ceilings& c) {
    j = nlohmann::json{{"d2d_copy_gbps", c.d2d_copy_gbps},
                       {"bf16_gemm_tflops", c.bf16_gemm_tflops},
                       {"fp32_fma_tflops", c.fp32_fma_tflops},
                       {"launch_submit_us", c.launch_submit_us},
                       {"launch_device_us", c.launch_device_us},
                       {"graph_node_us", c.graph_node_us},
                       {"h2d_pinned_gbps", c.h2d_pinned_gbps},
                       {"d2h_pinned_gbps", c.d2h_pinned_gbps},
                       {"h2d_pageable_gbps", c.h2d_pageable_gbps},
                       {"d2h_pageable_gbps", c.d2h_pageable_gbps},
                       {"dram_latency_ns", c.dram_latency_ns},
                       {"l2_latency_ns", c.l2_latency_ns},
                       {"sm_count", c.sm_count},
                       {"gemm_shape", c.gemm_shape},
                       {"copy_size", c.copy_size},
                       {"d2d_copy_bytes", c.copy_bytes}};
}

std::string format_ceilings(const Ceilings& c) {
    char buf[2048];
    std::snprintf(buf, sizeof buf,
                  "  D2D copy (read+write, %s)          %9.1f GB/s\n"
                  "  cuBLAS BF16 GEMM (%s, random)  %9.1f TFLOP/s\n"
                  "  FP32 FMA                              %9.2f TFLOP/s\n"
                  "  empty launch, host submit             %9.2f us\n"
                  "  empty launch, device back to back     %9.2f us\n"
                  "  graph node (empty kernel)             %9.2f us\n"
                  "  H2D pinned                            %9.1f GB/s\n"
                  "  D2H pinned                            %9.1f GB/s\n"
                  "  H2D pageable                          %9.1f GB/s\n"
                  "  D2H pageable                          %9.1f GB/s\n"
                  "  DRAM latency (pointer chase, 1 GiB)   %9.0f ns\n"
                  "  L2 latency (pointer chase, 4 MiB)     %9.0f ns\n"
                  "  SMs                                   %9d\n",
                  c.copy_size.c_str(), c.d2d_copy_gbps, c.gemm_shape.c_str(), c.bf16_gemm_tflops,
                  c.fp32_fma_tflops, c.launch_submit_us, c.launch_device_us, c.graph_node_us,
                  c.h2d_pinned_gbps, c.d2h_pinned_gbps, c.h2d_pageable_gbps, c.d2h_pageable_gbps, c.dram_latency_ns,
                  c.l2_latency_ns, c.sm_count);
    return buf;
}

}  // namespace gpulab
