// Plausibility floors: a time below what the run's ceilings allow, or a ratio past its bound, is named.
#include "catch_compat.hpp"
#include "grader/plausibility.hpp"

using namespace gpulab::grader;

namespace {

const nlohmann::json kCeilings = {{"d2d_copy_gbps", 4000.0}, {"bf16_gemm_tflops", 800.0}, {"fp32_fma_tflops", 50.0},
                                  {"h2d_pinned_gbps", 50.0}, {"d2h_pinned_gbps", 55.0}};

PerfResult timed(double ms) {
    PerfResult p;
    p.time_ms = ms;
    p.ratio = 1;
    return p;
}

}  // namespace

TEST_CASE("Bytes faster than the copy bandwidth allows are implausible, with the floor named", "[plausibility]") {
    PerfResult p = timed(0.1);
    p.floor.bytes = 1e9;  // 1 GB at 4000 GB/s × 1.15 takes 0.217 ms
    const PlausibilityVerdict v = judge_floor(p, kCeilings);
    CHECK(v.why.find("below the floor") != std::string::npos);
    CHECK(v.why.find("bytes at") != std::string::npos);
    CHECK(v.details["floor_ms"].get<double>() == gpulab::testing::Approx(1e9 / (4000e9 * kCopyHeadroom) * 1e3));
    p.time_ms = 0.25;
    CHECK(judge_floor(p, kCeilings).why.empty());
}

TEST_CASE("The largest part is the floor: tensor FLOPs, FP32 FLOPs, host bytes, a measured bound", "[plausibility]") {
    PerfResult p = timed(1.0);
    p.floor.bytes = 1e6;
    p.floor.flops = 2e12;  // tensor: 2e12 / (800e12 × 1.35) = 1.85 ms
    p.floor.tensor = true;
    CHECK(judge_floor(p, kCeilings).why.find("tensor FLOPs") != std::string::npos);
    p.floor.tensor = false;  // FP32: 2e12 / 57.5e12 = 34.8 ms
    CHECK(judge_floor(p, kCeilings).details["flops"].get<double>() == gpulab::testing::Approx(2e12 / (50e12 * kFmaHeadroom) * 1e3));
    p = timed(1.0);
    p.floor.host_bytes = 64e6;  // at 55 × 1.15 GB/s: 1.01 ms
    CHECK(judge_floor(p, kCeilings).why.find("host link") != std::string::npos);
    p = timed(1.0);
    p.floor.min_ms = 1.2;  // less 10%: 1.08 ms
    p.floor.min_what = "the three-stage model";
    CHECK(judge_floor(p, kCeilings).why.find("the three-stage model") != std::string::npos);
    p.floor.min_ms = 1.1;  // 0.99 ms: within the bound's noise
    CHECK(judge_floor(p, kCeilings).why.empty());
}

TEST_CASE("A ratio past its bound is implausible whatever the time", "[plausibility]") {
    PerfResult p = timed(5.0);
    p.ratio = 1.4;
    p.floor.max_ratio = 1.25;
    p.floor.max_what = "the pipeline cannot beat its own lower bound";
    const PlausibilityVerdict v = judge_floor(p, kCeilings);
    CHECK(v.why.find("past what it can be") != std::string::npos);
    CHECK(v.why.find("lower bound") != std::string::npos);
    p.ratio = 1.2;
    CHECK(judge_floor(p, kCeilings).why.empty());
}

TEST_CASE("Without the ceilings a floor cannot be judged: nothing is called implausible", "[plausibility]") {
    PerfResult p = timed(1e-6);
    p.floor.bytes = 1e12;
    const PlausibilityVerdict v = judge_floor(p, nlohmann::json::object());
    CHECK(v.why.empty());
    CHECK(v.details["not_measured"].size() == 1);
}
