// Timing protocol on a real device. No absolute times are asserted: only that results are sane and
// that twice the work measures as more time than the work (an ordering, not a number).
#include "catch_compat.hpp"
#include "labs/buffer.hpp"
#include "labs/ceilings.hpp"
#include "labs/timing.hpp"

using namespace gpulab;

namespace {
__global__ void scale_kernel(float* x, std::size_t n, int rounds) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float v = x[i];
        for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.001f;
        x[i] = v;
    }
}
}  // namespace

TEST_CASE("Timing a kernel gives a positive, converging median", "[timing][gpu]") {
    DeviceBuffer<float> x(std::size_t(1) << 24);
    x.zero();
    TimingOptions o;
    o.max_total_ms = 500;
    const auto r = time_region([&](cudaStream_t s) { scale_kernel<<<1024, 256, 0, s>>>(x.data(), x.size(), 4); LABS_CHECK_LAUNCH(); }, o);
    CHECK(r.count >= o.min_reps);
    CHECK(r.median_ms > 0);
    CHECK(r.q1_ms <= r.median_ms);
    CHECK(r.median_ms <= r.q3_ms);
}

TEST_CASE("Interleaved A/B timing orders twice the work after the work", "[timing][gpu]") {
    DeviceBuffer<float> x(std::size_t(1) << 24);
    x.zero();
    const std::size_t n = x.size();
    auto once = [&](cudaStream_t s) { scale_kernel<<<1024, 256, 0, s>>>(x.data(), n, 64); LABS_CHECK_LAUNCH(); };
    auto twice = [&](cudaStream_t s) { once(s); once(s); };
    const auto ab = time_ab(twice, once);
    CHECK(ab.ratio > 1.3);  // twice / once: ~2 expected; the bound only asserts the order
    CHECK(ab.a.count == ab.b.count);
}

TEST_CASE("Quick ceilings are all positive and finite", "[ceilings][gpu]") {
    CeilingOptions o;
    o.quick = true;
    const Ceilings c = measure_ceilings(o);
    for (double v : {c.d2d_copy_gbps, c.bf16_gemm_tflops, c.fp32_fma_tflops, c.launch_submit_us, c.launch_device_us,
                     c.graph_node_us, c.h2d_pinned_gbps, c.d2h_pinned_gbps, c.h2d_pageable_gbps, c.d2h_pageable_gbps}) {
        CHECK(std::isfinite(v));
        CHECK(v > 0);
    }
}
