// Plausibility floors from the run's ceilings.
#include "grader/plausibility.hpp"

#include <algorithm>

#include "labs/text.hpp"

namespace gpulab::grader {
namespace {

std::string num(double v) { return strprintf("%.3g", v); }

double ceiling(const nlohmann::json& c, const char* name) {
    return c.is_object() && c.contains(name) && c[name].is_number() ? c[name].get<double>() : 0.0;
}

}  // namespace

PlausibilityVerdict judge_floor(const PerfResult& p, const nlohmann::json& ceilings) {
    PlausibilityVerdict v;
    const Floor& f = p.floor;
    if (f.max_ratio > 0 && p.ratio > f.max_ratio) {
        v.why = "the ratio " + num(p.ratio) + " is past what it can be (" + num(f.max_ratio) +
                (f.max_what.empty() ? "" : ": " + f.max_what) + ")";
        v.details = {{"max_ratio", f.max_ratio}, {"ratio", p.ratio}};
        return v;
    }
    if (!p.time_ms) return v;
    struct Part {
        const char* name;
        double ms;
        std::string text;
    };
    std::vector<Part> parts;
    nlohmann::json missing = nlohmann::json::array();
    if (f.bytes > 0) {
        const double gbps = ceiling(ceilings, "d2d_copy_gbps") * kCopyHeadroom;
        if (gbps > 0) parts.push_back({"bytes", f.bytes / (gbps * 1e9) * 1e3, num(f.bytes) + " bytes at " + num(gbps) + " GB/s"});
        else missing.push_back("d2d_copy_gbps");
    }
    if (f.flops > 0) {
        const char* name = f.tensor ? "bf16_gemm_tflops" : "fp32_fma_tflops";
        const double tflops = ceiling(ceilings, name) * (f.tensor ? kTensorHeadroom : kFmaHeadroom);
        if (tflops > 0)
            parts.push_back({"flops", f.flops / (tflops * 1e12) * 1e3,
                             num(f.flops) + (f.tensor ? " tensor" : " FP32") + " FLOPs at " + num(tflops) + " TFLOP/s"});
        else missing.push_back(name);
    }
    if (f.host_bytes > 0) {
        const double gbps = std::max(ceiling(ceilings, "h2d_pinned_gbps"), ceiling(ceilings, "d2h_pinned_gbps")) * kHostHeadroom;
        if (gbps > 0)
            parts.push_back({"host_bytes", f.host_bytes / (gbps * 1e9) * 1e3,
                             num(f.host_bytes) + " bytes over the host link at " + num(gbps) + " GB/s"});
        else missing.push_back("h2d_pinned_gbps");
    }
    if (f.min_ms > 0)
        parts.push_back({"measured_bound", f.min_ms * kMeasuredBoundSlack,
                         (f.min_what.empty() ? std::string("its lower bound") : f.min_what) + " of " + num(f.min_ms) +
                             " ms measured in this run, less 10%"});
    double floor = 0;
    const Part* biggest = nullptr;
    for (const Part& part : parts) {
        v.details[part.name] = part.ms;
        if (part.ms > floor) floor = part.ms, biggest = &part;
    }
    if (!missing.empty()) v.details["not_measured"] = missing;
    v.details["floor_ms"] = floor;
    if (biggest != nullptr && *p.time_ms < floor)
        v.why = num(*p.time_ms) + " ms is below the floor of " + num(floor) + " ms (" + biggest->text + ")";
    return v;
}

}  // namespace gpulab::grader
