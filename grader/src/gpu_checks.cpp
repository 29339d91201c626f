// Building blocks for GPU checks: correctness results and same-run performance ratios.
#include "grader/gpu_checks.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device.hpp"
#include "labs/random.hpp"
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

namespace {

// Who a kernel is, comparable between the host object's symbols and the device's names: the demangled
// name (the device and the host compiler mangle some names differently, e.g. a template in an anonymous
// namespace gets an internal-linkage 'L' on the host only), plus the anonymous namespace's token, which
// names the source file (so a kernel of the same name in another file is someone else's).
std::string kernel_identity(const std::string& mangled) {
    std::string token;
    if (const auto at = mangled.find("_GLOBAL__N__"); at != std::string::npos) {
        std::size_t digits = at;
        while (digits > 0 && std::isdigit(static_cast<unsigned char>(mangled[digits - 1]))) --digits;
        const std::size_t length = digits < at ? std::stoul(mangled.substr(digits, at - digits)) : 0;
        token = mangled.substr(at, length);
    }
    return demangle(mangled) + "|" + token;
}

}  // namespace

std::vector<std::string> foreign_kernels(const Context& ctx, const std::string& variant, const Enqueue& enqueue) {
    static std::map<std::string, std::vector<std::string>> known;
    static std::set<std::string> own;
    if (ctx.own_symbols.empty()) return {};
    if (own.empty())
        for (const std::string& s : ctx.own_symbols) own.insert(kernel_identity(s));
    if (const auto it = known.find(variant); it != known.end()) return it->second;
    const CapturedGraph graph(enqueue);
    std::vector<std::string> foreign;
    for (const KernelNode& k : graph.kernels())
        if (k.mangled.empty() || !own.count(kernel_identity(k.mangled))) foreign.push_back(k.name);
    return known[variant] = foreign;
}

CorrectnessResult require_own_kernels(CorrectnessResult r, const Context& ctx, const std::string& variant,
                                      const Enqueue& enqueue) {
    std::vector<std::string> foreign;
    try {
        foreign = foreign_kernels(ctx, variant, enqueue);
    } catch (const CaptureError& e) {
        r.passed = false;
        r.message = std::string("the launcher could not be captured into a graph: ") + e.what();
        r.hint = "a launcher enqueues its kernels on the stream it is given and returns; one-time setup belongs in "
                 "its first call";
        return r;
    }
    if (foreign.empty()) return r;
    std::string names;
    for (const std::string& n : foreign) names += (names.empty() ? "" : ", ") + n;
    r.passed = false;
    r.message = "the " + variant + " launcher runs kernels your code does not define: " + names +
                " — a graded variant's results must come from your own kernels";
    r.hint = "no library calls and no calls of the lab's given implementations inside a graded launcher";
    r.details["foreign_kernels"] = foreign;
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

namespace {

// Times `baseline` (A) and `work` (B) interleaved over the rotating sets and verifies one timed run of B.
struct RotationRun {
    AbResult ab;
    std::string wrong;  // "" when the verified run was right
};

RotationRun time_rotation(const SetEnqueue& baseline, const Rotation& work, const std::string& label,
                          std::uint64_t seed) {
    const TimingOptions o = grading_timing(label);
    const int sets = std::max(2, work.sets);
    int calls_a = 0, calls_b = 0;
    const Enqueue a = [&](cudaStream_t s) { baseline(calls_a++ % sets, s); };
    const Enqueue b = [&](cudaStream_t s) { work.run(calls_b++ % sets, s); };
    // B's call number k runs on set k % sets; warm-up runs come first.
    const int rep = static_cast<int>(mix64(seed) % static_cast<std::uint64_t>(o.min_reps));
    const int set = (o.warmup + rep) % sets;
    const auto [out, bytes] = work.output(set);
    DeviceBuffer<unsigned char> copy(bytes);
    TimingHooks hooks;
    hooks.before = [&](std::size_t w, int r, cudaStream_t s) {
        if (w != 1 || r != rep) return;
        work.refill(set, mix64(seed ^ 0x5EEDull), s);
        fill_random_bytes_device(out, bytes, mix64(seed ^ 0xB17E5ull), s);
    };
    hooks.after = [&](std::size_t w, int r, cudaStream_t s) {
        if (w == 1 && r == rep) CUDA_CHECK(cudaMemcpyAsync(copy.data(), out, bytes, cudaMemcpyDeviceToDevice, s));
    };
    RotationRun run;
    run.ab = time_ab(a, b, o, nullptr, nullptr, &hooks);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::string why = work.verify(set, copy.data());
    if (!why.empty())
        run.wrong = "timed run " + std::to_string(rep + 1) + " of " + std::to_string(run.ab.b.count) +
                    " produced a wrong result (its inputs had new data and its output random bytes just before): " + why;
    return run;
}

}  // namespace

PerfResult fraction_of_copy_bandwidth(const Rotation& work, double bytes_moved, const std::string& label,
                                      std::uint64_t seed) {
    const auto copy_bytes = static_cast<std::size_t>(bytes_moved / 2);
    DeviceBuffer<unsigned char> src(copy_bytes), dst(copy_bytes);
    src.zero();
    dst.zero();
    const SetEnqueue copy = [&](int, cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), copy_bytes, cudaMemcpyDeviceToDevice, s));
    };
    const RotationRun run = time_rotation(copy, work, label, seed);
    const AbResult& ab = run.ab;
    PerfResult r;
    r.ratio = ab.a.median_ms / ab.b.median_ms;
    r.time_ms = ab.b.median_ms;
    r.wrong_result = run.wrong;
    const double f = floor_ms(bytes_moved);
    if (f > 0) r.floor_ms = f;
    const double gbps = bytes_moved / (ab.b.median_ms * 1e-3) / 1e9;
    const double copy_gbps = bytes_moved / (ab.a.median_ms * 1e-3) / 1e9;
    r.message = strprintf("%.1f GB/s vs copy %.1f GB/s (interleaved, L2 flushed, median of %d)", gbps, copy_gbps,
                          ab.b.count);
    r.details = {{"work", ab.b}, {"copy", ab.a}, {"bytes_moved", bytes_moved}, {"work_gbps", gbps}, {"copy_gbps", copy_gbps}};
    return r;
}

PerfResult speedup_over(const SetEnqueue& baseline, const Rotation& work, double floor_bytes, const std::string& label,
                        std::uint64_t seed) {
    const RotationRun run = time_rotation(baseline, work, label, seed);
    const AbResult& ab = run.ab;
    PerfResult r;
    r.ratio = ab.ratio;
    r.time_ms = ab.b.median_ms;
    r.wrong_result = run.wrong;
    if (floor_bytes > 0) {
        const double f = floor_ms(floor_bytes);
        if (f > 0) r.floor_ms = f;
    }
    r.message = strprintf("%.4g ms vs baseline %.4g ms (interleaved, L2 flushed)", ab.b.median_ms, ab.a.median_ms);
    r.details = {{"work", ab.b}, {"baseline", ab.a}};
    return r;
}

}  // namespace gpulab::grader
