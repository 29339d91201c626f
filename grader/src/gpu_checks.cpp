// Building blocks for GPU checks: correctness results and same-run performance ratios.
#include "grader/gpu_checks.hpp"

#include <stdexcept>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device.hpp"
#include "labs/text.hpp"

namespace gpulab::grader {
namespace {

double floor_ms(double bytes) {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    const DeviceProbe p = probe_device(dev);
    const double peak = p.available() ? theoretical_dram_gbps(p.info) : 0.0;
    return peak > 0 ? bytes / (peak * 1e9) * 1e3 : 0.0;
}

}  // namespace

CorrectnessResult to_result(const CompareReport& report, const std::string& what) {
    CorrectnessResult r;
    r.passed = report.passed();
    r.message = report.describe();
    r.hint = report.hint();
    r.details = report;
    r.details["compared"] = what;
    return r;
}

CorrectnessResult require_unchanged(CorrectnessResult r, std::initializer_list<InputCheck> inputs) {
    std::string changed;
    for (const InputCheck& in : inputs) {
        const std::size_t at = in.first_change();
        if (at == static_cast<std::size_t>(-1)) continue;
        changed += (changed.empty() ? "" : ", ") + in.name + " (first at element " + std::to_string(at) + ")";
    }
    if (changed.empty()) return r;
    const std::string before = r.passed ? "" : "; besides, " + r.message;
    r.passed = false;
    r.message = "your code modified its input: " + changed + before;
    r.hint = "a launcher may write only its outputs: the inputs are const, and every check reuses them";
    r.details["inputs_modified"] = changed;
    return r;
}

CorrectnessResult kernel_count_result(const CapturedGraph& graph, std::size_t expected, const std::string& hint) {
    CorrectnessResult r;
    r.passed = graph.kernels().size() == expected;
    r.message = "captured graph: " + graph.describe() + "; expected " + std::to_string(expected);
    if (!r.passed) r.hint = hint;
    nlohmann::json names = nlohmann::json::array();
    for (const KernelNode& k : graph.kernels()) names.push_back(k.name);
    r.details = {{"kernels", graph.kernels().size()}, {"kernel_names", names}, {"expected_kernels", expected},
                 {"graph_nodes", graph.node_count()}};
    return r;
}

TimingOptions grading_timing(const std::string& label) {
    TimingOptions o;
    o.warmup = 3;
    o.min_reps = 15;
    o.max_reps = 300;
    o.max_rel_ci = 0.01;
    o.max_total_ms = 4000;
    o.flush_l2 = true;
    o.label = label;
    return o;
}

PerfResult fraction_of_copy_bandwidth(const Enqueue& work, double bytes_moved, const std::string& label) {
    const auto copy_bytes = static_cast<std::size_t>(bytes_moved / 2);
    DeviceBuffer<unsigned char> src(copy_bytes), dst(copy_bytes);
    src.zero();
    dst.zero();
    const Enqueue copy = [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), copy_bytes, cudaMemcpyDeviceToDevice, s));
    };
    const AbResult ab = time_ab(copy, work, grading_timing(label));
    PerfResult r;
    r.ratio = ab.a.median_ms / ab.b.median_ms;
    r.time_ms = ab.b.median_ms;
    const double f = floor_ms(bytes_moved);
    if (f > 0) r.floor_ms = f;
    const double gbps = bytes_moved / (ab.b.median_ms * 1e-3) / 1e9;
    const double copy_gbps = bytes_moved / (ab.a.median_ms * 1e-3) / 1e9;
    r.message = strprintf("%.1f GB/s vs copy %.1f GB/s (interleaved, L2 flushed, median of %d)", gbps, copy_gbps,
                          ab.b.count);
    r.details = {{"work", ab.b}, {"copy", ab.a}, {"bytes_moved", bytes_moved}, {"work_gbps", gbps}, {"copy_gbps", copy_gbps}};
    return r;
}

PerfResult speedup_over(const Enqueue& baseline, const Enqueue& work, double floor_bytes, const std::string& label) {
    const AbResult ab = time_ab(baseline, work, grading_timing(label));
    PerfResult r;
    r.ratio = ab.ratio;
    r.time_ms = ab.b.median_ms;
    if (floor_bytes > 0) {
        const double f = floor_ms(floor_bytes);
        if (f > 0) r.floor_ms = f;
    }
    r.message = strprintf("%.4g ms vs baseline %.4g ms (interleaved, L2 flushed)", ab.b.median_ms, ab.a.median_ms);
    r.details = {{"work", ab.b}, {"baseline", ab.a}};
    return r;
}

}  // namespace gpulab::grader
