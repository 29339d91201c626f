// Building blocks for GPU checks: correctness results and same-run performance ratios.
#include "grader/gpu_checks.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <random>
#include <optional>
#include <set>
#include <stdexcept>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <chrono>
#include <thread>
#include <type_traits>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "grader/launcher.hpp"
#include "grader/protocol.hpp"
#include "labs/buffer.hpp"
#include "labs/ceilings.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"

namespace gpulab::grader {

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

std::uint64_t secret_draw() {
    static std::mutex mu;
    static std::random_device device;
    std::lock_guard<std::mutex> lock(mu);
    return (std::uint64_t(device()) << 32) ^ device() ^ (std::uint64_t(device()) << 17);
}

std::function<CorrectnessResult(Context&)> observed(std::function<CorrectnessResult(Context&)> check) {
    return [check = std::move(check)](Context& ctx) {
        CorrectnessResult r;
        if (r.skipped = observation_skip(); !r.skipped.empty()) return r;
        return check(ctx);
    };
}

Observation observe_graded(const Enqueue& enqueue) {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Window window;
    {
        GradedCall graded;
        enqueue(stream);
    }
    Observation seen = window.close();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return seen;
}

namespace {

// What the grader's own work launches (not graded), seen in full.
Observation observe_grader(const Enqueue& enqueue) {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Window window;
    enqueue(stream);
    Observation seen = window.close();
    CUDA_CHECK(cudaStreamDestroy(stream));
    return seen;
}

}  // namespace

CorrectnessResult observed_kernel_count(const Observation& seen, std::size_t expected, const std::string& hint) {
    CorrectnessResult r;
    if (const std::string why = observation_skip(); !why.empty()) {
        r.skipped = why;
        return r;
    }
    const std::vector<ObservedKernel> kernels = seen.graded_kernels();
    std::string names;
    nlohmann::json list = nlohmann::json::array();
    for (const ObservedKernel& k : kernels) {
        const std::string n = kernel_name(k.name);
        names += (names.empty() ? "" : ", ") + n;
        list.push_back(n);
    }
    r.passed = kernels.size() == expected;
    r.message = "observed " + std::to_string(kernels.size()) + " kernel" + (kernels.size() == 1 ? "" : "s") +
                (names.empty() ? "" : ": " + names) + "; expected " + std::to_string(expected);
    if (!r.passed) r.hint = hint;
    r.details = {{"kernels", kernels.size()}, {"kernel_names", list}, {"expected_kernels", expected},
                 {"observed", seen.summary()}};
    return r;
}

namespace {

void add_code(KernelCode& total, const KernelCode& k) {
    total.instructions += k.instructions, total.wgmma += k.wgmma, total.mma_sync += k.mma_sync;
    total.tma_load += k.tma_load, total.bulk_copy += k.bulk_copy, total.cp_async += k.cp_async;
    total.float_atomics += k.float_atomics;
    total.gpu_fences += k.gpu_fences, total.dependency_waits += k.dependency_waits, total.dependents_launched += k.dependents_launched;
}

// What kernels holding @p total together lack of @p needs, or hold against it: "no wgmma (warpgroup MMA)", "256
// mma.sync (warp MMA)", ...; empty when they hold what is needed.
std::vector<std::string> code_shortfall(const KernelCode& total, const CodeNeeds& needs) {
    std::vector<std::string> out;
    if (needs.wgmma && total.wgmma == 0) out.push_back("no wgmma (warpgroup MMA)");
    // The copy engine of Hopper's TMA moves a tile by tensor map (cp.async.bulk.tensor) or as contiguous bytes
    // (cp.async.bulk): either is a TMA load.
    if (needs.tma_load && total.tma_load + total.bulk_copy == 0) out.push_back("no TMA load");
    if (needs.no_mma_sync && total.mma_sync > 0) out.push_back(std::to_string(total.mma_sync) + " mma.sync (warp MMA)");
    if (needs.no_cp_async && total.cp_async > 0) out.push_back(std::to_string(total.cp_async) + " cp.async copies");
    if (needs.float_atomics && total.float_atomics == 0) out.push_back("no floating-point atomic add");
    if (needs.no_float_atomics && total.float_atomics > 0)
        out.push_back(std::to_string(total.float_atomics) + " floating-point atomic add" + (total.float_atomics == 1 ? "" : "s"));
    if (needs.gpu_fence && total.gpu_fences == 0) out.push_back("no memory fence at GPU scope");
    if (needs.dependency_wait && total.dependency_waits == 0) out.push_back("no griddepcontrol.wait");
    return out;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string m;
    for (const std::string& x : parts) m += (m.empty() ? "" : ", ") + x;
    return m;
}

}  // namespace

CorrectnessResult kernel_code_verdict(const Context& ctx, const Observation& seen, const CodeNeeds& needs, const std::string& what,
                                      const std::string& hint) {
    CorrectnessResult r;
    if (skip_unobserved(r, what + "'s machine code cannot be read")) return r;
    if (ctx.own_symbols.empty()) {  // started by hand: the observer reads the code of the graded code's modules only
        r.skipped = what + "'s machine code is read only in a run the grader started (it names the graded code's own kernels)";
        return r;
    }
    return kernel_code_verdict(seen.graded_kernels(), [](const std::string& n) { return Observer::instance().kernel_code(n); },
                               needs, what, hint);
}

CorrectnessResult kernel_code_verdict(const std::vector<ObservedKernel>& kernels,
                                      const std::function<std::optional<KernelCode>(const std::string&)>& code_of,
                                      const CodeNeeds& needs, const std::string& what, const std::string& hint) {
    CorrectnessResult r;
    if (kernels.empty()) return fail(r, what + " ran no kernel", hint);
    KernelCode total;
    nlohmann::json list = nlohmann::json::array();
    std::set<std::string> done;
    for (const ObservedKernel& k : kernels) {
        if (!done.insert(k.name).second) continue;
        const std::string n = kernel_name(k.name);
        if (!k.own) return fail(r, what + " ran " + n + ", a kernel its own code does not define", hint);
        const std::optional<KernelCode> code = code_of(k.name);
        if (!code) return fail(r, what + " ran " + n + ", whose code is in no module the driver loaded for it", hint);
        if (!code->known) {
            r.skipped = what + "'s machine code is read for sm_90 only; " + n + " runs sm_" + std::to_string(code->sm) + " code";
            return r;
        }
        list.push_back({{"kernel", n}, {"instructions", code->instructions}, {"wgmma", code->wgmma}, {"mma_sync", code->mma_sync},
                        {"tma_load", code->tma_load}, {"bulk_copy", code->bulk_copy}, {"cp_async", code->cp_async},
                        {"float_atomics", code->float_atomics}, {"gpu_fences", code->gpu_fences},
                        {"dependency_waits", code->dependency_waits}, {"dependents_launched", code->dependents_launched}});
        add_code(total, *code);
    }
    r.details = {{"kernels", list},
                 {"needs", {{"wgmma", needs.wgmma}, {"tma_load", needs.tma_load}, {"no_mma_sync", needs.no_mma_sync},
                            {"no_cp_async", needs.no_cp_async}, {"float_atomics", needs.float_atomics},
                            {"no_float_atomics", needs.no_float_atomics}, {"gpu_fence", needs.gpu_fence},
                            {"dependency_wait", needs.dependency_wait}}}};
    const std::string of = " among " + std::to_string(total.instructions) + " instructions";
    const std::string where = done.size() == 1 ? "its kernel" : "its " + std::to_string(done.size()) + " kernels";
    const std::vector<std::string> missing = code_shortfall(total, needs);
    if (!missing.empty()) return fail(r, what + ": " + where + " hold" + (done.size() == 1 ? "s " : " ") + joined(missing) + of, hint);
    // What was asked about, counted: the Hopper kinds, the atomics, or both.
    const bool hopper = needs.wgmma || needs.tma_load || needs.no_mma_sync || needs.no_cp_async;
    const bool atomics = needs.float_atomics || needs.no_float_atomics;
    const bool ordering = needs.gpu_fence || needs.dependency_wait;
    std::string held;
    if (hopper || (!atomics && !ordering))
        held = std::to_string(total.wgmma) + " wgmma, " + std::to_string(total.tma_load + total.bulk_copy) + " TMA loads, " +
               std::to_string(total.mma_sync) + " mma.sync and " + std::to_string(total.cp_async) + " cp.async";
    if (atomics)
        held += (held.empty() ? "" : "; ") + std::to_string(total.float_atomics) + " floating-point atomic add" +
                (total.float_atomics == 1 ? "" : "s");
    if (ordering)
        held += (held.empty() ? "" : "; ") + std::to_string(total.gpu_fences) + " GPU-scope fence" + (total.gpu_fences == 1 ? "" : "s") +
                ", " + std::to_string(total.dependency_waits) + " griddepcontrol.wait and " + std::to_string(total.dependents_launched) +
                " griddepcontrol.launch_dependents";
    return pass(r, what + ": " + where + " hold" + (done.size() == 1 ? "s " : " ") + held + of);
}

std::vector<std::string> foreign_kernels(const Context& ctx, const Observation& seen) {
    std::vector<std::string> out;
    if (ctx.own_symbols.empty()) return out;  // started by hand: nothing to tell them apart by
    std::vector<std::regex> given;
    for (const std::string& p : ctx.given_kernels) given.emplace_back(p);
    for (const ObservedKernel& k : seen.kernels) {
        if (!k.graded || k.own) continue;
        const std::string n = kernel_name(k.name);
        if (std::any_of(given.begin(), given.end(), [&](const std::regex& g) { return std::regex_search(n, g); })) continue;
        const std::string shown = k.launched_from.empty() || k.launched_from.front() == '(' ? n : n + " (launched from " + k.launched_from + ")";
        if (std::find(out.begin(), out.end(), shown) == out.end()) out.push_back(shown);
    }
    return out;
}

CorrectnessResult require_own_kernels(CorrectnessResult r, const Context& ctx, const std::string& variant,
                                      const Observation& seen) {
    if (const std::string why = observation_skip(); !why.empty()) {
        if (r.passed) r.skipped = "kernel provenance cannot be checked: " + why;
        return r;
    }
    const std::vector<std::string> foreign = foreign_kernels(ctx, seen);
    r.details["observed"] = seen.summary();
    if (foreign.empty()) return r;
    std::string names;
    for (const std::string& n : foreign) names += (names.empty() ? "" : ", ") + n;
    r.passed = false;
    r.message = "the " + variant + " launcher ran kernels your code does not define: " + names +
                " — a graded variant's results must come from your own kernels";
    r.hint = "no library calls and no calls of the lab's given implementations inside a graded launcher";
    r.details["foreign_kernels"] = foreign;
    return r;
}

std::vector<std::string> foreign_kernels(const Context& ctx, const std::string&, const Enqueue& enqueue) {
    if (ctx.own_symbols.empty() || !Observer::instance().running()) return {};
    return foreign_kernels(ctx, observe_graded(enqueue));
}

CorrectnessResult require_own_kernels(CorrectnessResult r, const Context& ctx, const std::string& variant,
                                      const Enqueue& enqueue) {
    if (const std::string why = observation_skip(); !why.empty()) {
        if (r.passed) r.skipped = "kernel provenance cannot be checked: " + why;
        return r;
    }
    return require_own_kernels(std::move(r), ctx, variant, observe_graded(enqueue));
}

namespace {

std::string span_text(double ms) { return strprintf("%.3g ms", ms); }

}  // namespace

void judge_observation(const Context& ctx, const Observation& seen, PerfResult& r,
                       const std::vector<std::pair<std::uint64_t, std::uint64_t>>& trusted_spans) {
    if (const std::string why = observation_skip(); !why.empty()) {
        r.skipped = why;
        return;
    }
    r.details["observed"] = seen.summary();
    const std::vector<std::string> foreign = foreign_kernels(ctx, seen);
    if (!foreign.empty()) {
        std::string names;
        for (const std::string& n : foreign) names += (names.empty() ? "" : ", ") + n;
        r.not_own = "while being timed, your code ran kernels it does not define: " + names;
        r.details["foreign_kernels"] = foreign;
    }
    // Graded work running while the grader's own work runs: left running, it overlaps what is timed next.
    struct Span {
        std::uint64_t start, end;
        std::string what;
    };
    std::vector<Span> graded, grader;
    for (const ObservedKernel& k : seen.kernels)
        (k.graded ? graded : grader)
            .push_back({k.start, k.end, "kernel " + kernel_name(k.name)});
    for (const ObservedCopy& c : seen.copies)
        (c.graded ? graded : grader).push_back({c.start, c.end, std::string(c.is_memset ? "memset" : "copy ") +
                                                                     (c.is_memset ? "" : to_string(c.kind))});
    for (const auto& [a, b] : trusted_spans) grader.push_back({a, b, "the grader's baseline run"});
    std::sort(grader.begin(), grader.end(), [](const Span& x, const Span& y) { return x.start < y.start; });
    for (const Span& g : graded) {
        // The first grader span that overlaps g by more than a microsecond (clocks of two engines).
        const auto it = std::find_if(grader.begin(), grader.end(), [&](const Span& t) {
            return std::min(g.end, t.end) > std::max(g.start, t.start) + 1000;
        });
        if (it == grader.end()) continue;
        r.invalid.push_back("the code under test left work running: its " + g.what + " (" +
                            span_text(double(g.end - g.start) * 1e-6) + ") ran at the same time as the grader's " +
                            it->what + " — work left on another stream, or a thread of its own, overlaps whatever is "
                            "timed next");
        r.details["overlap"] = {{"graded", g.what}, {"grader", it->what}};
        break;
    }
    if (seen.threads_at_begin > 0 && seen.threads_at_end > seen.threads_at_begin)
        r.invalid.push_back(strprintf("the process had %zu threads when the timing began and %zu when it ended: the code "
                                      "under test started a thread while it was timed",
                                      seen.threads_at_begin, seen.threads_at_end));
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

VerifiedCalls::VerifiedCalls(std::uint64_t secret) : draws_(mix64(secret ^ 0xC0FFEEull)) {}

int VerifiedCalls::slot_after(int call) {
    // Call number n = call + 1 replaces a kept one with probability k / n; the first k fill the slots.
    const std::uint64_t n = std::uint64_t(call) + 1;
    if (n <= std::uint64_t(kVerifiedCalls)) return call;
    draws_ = mix64(draws_ + n);
    const std::uint64_t j = draws_ % n;
    return j < std::uint64_t(kVerifiedCalls) ? int(j) : kVerifiedCalls;
}

namespace {

// "38% slower" / "3.1x slower", for messages.
std::string how_much_slower(double ratio) {
    return ratio < 2 ? strprintf("%.0f%% slower", 100 * (ratio - 1)) : strprintf("%.1fx slower", ratio);
}

// Times `baseline` (A) and `work` (B, the graded code) interleaved over the rotating sets. Before every timed
// call of B its set gets fresh inputs and a scrambled output, from a secret seed; after each call a reservoir
// (decided from the same secret, after the call) keeps copies of kVerifiedCalls outputs, which are verified
// after the loop with their inputs restored. Everything runs in a window of the observer.
struct RotationRun {
    AbResult ab;
    std::string wrong;  // "" when every verified call was right
    Observation seen;
    nlohmann::json verified = nlohmann::json::array();
};

RotationRun time_rotation(const SetEnqueue& baseline, const Rotation& work, const std::string& label) {
    const TimingOptions o = grading_timing(label);
    const int sets = std::max(2, work.sets);
    const std::uint64_t secret = secret_draw();
    int calls_a = 0, calls_b = 0;
    const Enqueue a = [&](cudaStream_t s) { baseline(calls_a++ % sets, s); };
    const Enqueue b = [&](cudaStream_t s) {
        GradedCall graded;
        work.run(calls_b++ % sets, s);
    };
    // B's call number k runs on set k % sets; warm-up runs come first.
    const auto set_of = [&](int rep) { return (o.warmup + rep) % sets; };
    const auto seed_of = [&](int rep) { return mix64(secret ^ (0x9E3779B97F4A7C15ull * std::uint64_t(rep + 1))); };
    struct Kept {
        int rep = -1, set = 0;
        std::uint64_t seed = 0;
        DeviceBuffer<unsigned char> copy;
    };
    std::vector<Kept> kept(kVerifiedCalls);
    VerifiedCalls picked(secret);
    TimingHooks hooks;
    hooks.before = [&](std::size_t w, int rep, cudaStream_t s) {
        if (w != 1) return;
        const int set = set_of(rep);
        const std::uint64_t seed = seed_of(rep);
        work.refill(set, seed, s);
        const auto [out, bytes] = work.output(set);
        fill_random_bytes_device(out, bytes, mix64(seed ^ 0xB17E5ull), s);
    };
    hooks.after = [&](std::size_t w, int rep, cudaStream_t s) {
        if (w != 1) return;
        const std::size_t slot = std::size_t(picked.slot_after(rep));
        if (slot == kept.size()) return;
        const int set = set_of(rep);
        const auto [out, bytes] = work.output(set);
        Kept& k = kept[slot];
        if (k.copy.bytes() != bytes) k.copy = DeviceBuffer<unsigned char>(bytes);
        k.rep = rep;
        k.set = set;
        k.seed = seed_of(rep);
        CUDA_CHECK(cudaMemcpyAsync(k.copy.data(), out, bytes, cudaMemcpyDeviceToDevice, s));
    };
    RotationRun run;
    Observer& observer = Observer::instance();
    // The baseline's kernels, seen once in full (its run is the grader's): in the lean timed loop, where the launch
    // calls are not watched one by one (what they cost would be timed), every other kernel is the graded code's.
    {
        const Observation ref = observe_grader([&](cudaStream_t s) { baseline(0, s); });
        std::set<std::string> names;
        for (const ObservedKernel& k : ref.kernels) names.insert(k.name);
        observer.add_grader_kernels(names);
    }
    Window window;
    observer.set_lean(true);
    try {
        run.ab = time_ab(a, b, o, nullptr, nullptr, &hooks);
    } catch (...) {
        observer.set_lean(false);
        throw;
    }
    observer.set_lean(false);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (const Kept& k : kept) {
        if (k.rep < 0) continue;
        work.refill(k.set, k.seed, nullptr);  // the inputs that call saw
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::string why = work.verify(k.set, k.copy.data());
        run.verified.push_back({{"timed_call", k.rep + 1}, {"right", why.empty()}});
        if (!why.empty() && run.wrong.empty())
            run.wrong = "timed run " + std::to_string(k.rep + 1) + " of " + std::to_string(run.ab.b.count) +
                        " produced a wrong result (every timed run gets new inputs and a scrambled output; this one "
                        "was picked afterwards and checked): " + why;
    }
    run.seen = window.close();
    return run;
}

// What every rotation-timed result carries.
// The graded code's own kernels that the timed calls ran, read for what Rotation::code asks: "" when they hold it, or
// when their code cannot be read here (the part's code check says why); else what they lack, for a wrong result.
std::string timed_code_shortfall(const Context& ctx, const Observation& seen, const CodeNeeds& needs) {
    if (!observation_skip().empty() || ctx.own_symbols.empty()) return {};
    KernelCode total;
    std::set<std::string> done;
    std::string names;
    for (const ObservedKernel& k : seen.graded_kernels()) {
        if (!k.own || !done.insert(k.name).second) continue;  // another's kernel in a timed call: judge_observation()
        const std::optional<KernelCode> code = Observer::instance().kernel_code(k.name);
        if (!code || !code->known) return {};
        add_code(total, *code);
        names += (names.empty() ? "" : ", ") + kernel_name(k.name);
    }
    if (done.empty()) return {};
    const std::vector<std::string> missing = code_shortfall(total, needs);
    if (missing.empty()) return {};
    return "the timed calls ran " + names + ", whose machine code holds " + joined(missing) +
           " — not the kernels the part's code check read in the call it observed";
}

void finish_rotation(const Context& ctx, const Baseline& baseline, const RotationRun& run, const Rotation& work, PerfResult& r) {
    r.wrong_result = run.wrong;
    r.details["verified_calls"] = run.verified;
    compare_baseline(ctx, baseline, run.ab.a, r);
    judge_observation(ctx, run.seen, r);
    if (work.code && r.wrong_result.empty()) r.wrong_result = timed_code_shortfall(ctx, run.seen, *work.code);
}

}  // namespace

PerfResult fraction_of_copy_bandwidth(const Context& ctx, const CopyBaseline& copy_baseline, const Rotation& work,
                                      const std::string& label) {
    require_current_baseline(ctx, copy_baseline.baseline);
    const double bytes_moved = copy_baseline.bytes_moved;
    PerfResult r;
    if (const std::string why = observation_skip(); !why.empty()) {
        r.skipped = why;
        r.baseline_compared = true;
        return r;
    }
    const auto copy_bytes = static_cast<std::size_t>(bytes_moved / 2);
    DeviceBuffer<unsigned char> src(copy_bytes), dst(copy_bytes);
    src.zero();
    dst.zero();
    const SetEnqueue copy = [&](int, cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), copy_bytes, cudaMemcpyDeviceToDevice, s));
    };
    const RotationRun run = time_rotation(copy, work, label);
    const AbResult& ab = run.ab;
    r.ratio = ab.a.median_ms / ab.b.median_ms;
    r.time_ms = ab.b.median_ms;
    r.floor.bytes = bytes_moved;
    const double gbps = bytes_moved / (ab.b.median_ms * 1e-3) / 1e9;
    const double copy_gbps = bytes_moved / (ab.a.median_ms * 1e-3) / 1e9;
    r.message = strprintf("%.1f GB/s vs copy %.1f GB/s (interleaved, L2 flushed, median of %d)", gbps, copy_gbps,
                          ab.b.count);
    // The rates only: the bytes moved can be a lab's answer (lab 04's transpose), and the work model holds rates.
    r.details = {{"work", ab.b}, {"copy", ab.a}, {"work_gbps", gbps}, {"copy_gbps", copy_gbps}};
    if (const auto start = ctx.ceiling("d2d_copy_gbps")) r.details["copy_gbps_at_start_of_run"] = *start;
    finish_rotation(ctx, copy_baseline.baseline, run, work, r);
    return r;
}

void compare_baseline(const Context& ctx, const Baseline& baseline, const TimingResult& inside, PerfResult& r) {
    require_current_baseline(ctx, baseline);
    const BaselineTiming& alone = ctx.current_baseline();
    r.baseline_compared = true;
    const double drift = alone.median_ms > 0 ? inside.median_ms / alone.median_ms : 0.0;
    r.details["baseline_drift"] = drift;
    r.details["baseline_alone_ms"] = alone.median_ms;
    r.details["baseline_tolerance"] = ctx.baseline_tolerance;
    if (drift > 1 + ctx.baseline_tolerance)
        r.invalid.push_back(strprintf("%s (the baseline) ran %s inside this check than when timed alone before the "
                                      "first check (%.4g ms vs %.4g ms; tolerance %.0f%%): work left running by "
                                      "the code under test, or another process on this GPU?",
                                      alone.what.c_str(), how_much_slower(drift).c_str(), inside.median_ms,
                                      alone.median_ms, 100 * ctx.baseline_tolerance));
}

PerfResult speedup_over(const Context& ctx, const Baseline& baseline, const SetEnqueue& run_baseline,
                        const Rotation& work, double floor_bytes, const std::string& label) {
    require_current_baseline(ctx, baseline);
    PerfResult r;
    if (const std::string why = observation_skip(); !why.empty()) {
        r.skipped = why;
        r.baseline_compared = true;
        return r;
    }
    const RotationRun run = time_rotation(run_baseline, work, label);
    const AbResult& ab = run.ab;
    r.ratio = ab.ratio;
    r.time_ms = ab.b.median_ms;
    r.floor.bytes = floor_bytes;
    r.message = strprintf("%.4g ms vs baseline %.4g ms (interleaved, L2 flushed)", ab.b.median_ms, ab.a.median_ms);
    r.details = {{"work", ab.b}, {"baseline", ab.a}};
    finish_rotation(ctx, baseline, run, work, r);
    return r;
}

AbResult time_host_ab(const std::function<void()>& a, const std::function<void()>& b, int reps) {
    using Clock = std::chrono::steady_clock;
    const auto once = [](const std::function<void()>& f) {
        const Clock::time_point t0 = Clock::now();
        f();
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    };
    (void)once(a);  // warm-up: first-use costs
    (void)once(b);
    std::vector<double> ta, tb;
    for (int i = 0; i < std::max(1, reps); ++i) {
        ta.push_back(once(a));
        tb.push_back(once(b));
    }
    AbResult r;
    r.a = summarize(ta);
    r.b = summarize(tb);
    // A fixed number of runs, no stopping rule: a median converged when it is known as precisely as the timed
    // loops ask of theirs (otherwise `converged` would read false whatever the runs, and every check timed
    // here would carry a fairness note).
    const double rule = grading_timing("host").max_rel_ci;
    r.a.converged = r.a.rel_ci <= rule;
    r.b.converged = r.b.rel_ci <= rule;
    r.ratio = r.b.median_ms > 0 ? r.a.median_ms / r.b.median_ms : 0.0;
    return r;
}

AbResult time_host_ab(const Context& ctx, const std::function<void()>& a, const std::function<void()>& b, int reps,
                      PerfResult& r, bool b_completes) {
    if (const std::string why = observation_skip(); !why.empty()) {
        r.skipped = why;
        return {};
    }
    Observer& observer = Observer::instance();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> a_spans, b_spans;
    const auto timed_a = [&] {
        const std::uint64_t t0 = observer.now();
        a();
        CUDA_CHECK(cudaDeviceSynchronize());  // the grader's path is done; what runs on now is not its
        a_spans.emplace_back(t0, observer.now());
    };
    const auto timed_b = [&] {
        const std::uint64_t t0 = observer.now();
        {
            GradedCall graded;
            b();
        }
        b_spans.emplace_back(t0, observer.now());
    };
    Window window;
    const AbResult ab = time_host_ab(timed_a, timed_b, reps);
    const Observation seen = window.close();
    judge_observation(ctx, seen, r, a_spans);
    if (b_completes) {
        // Each piece of graded work must end before the run of b that enqueued it returned.
        for (const ObservedKernel& k : seen.kernels) {
            if (!k.graded) continue;
            const auto it = std::find_if(b_spans.begin(), b_spans.end(),
                                         [&](const auto& sp) { return k.start >= sp.first && k.start <= sp.second; });
            if (it != b_spans.end() && k.end > it->second + 1000) {
                r.wrong_result = "the graded path returned before its work was done: its kernel " + kernel_name(k.name) +
                                 strprintf(" ended %.3g ms after the call returned", double(k.end - it->second) * 1e-6);
                break;
            }
        }
        for (const ObservedCopy& c : seen.copies) {
            if (!c.graded || !r.wrong_result.empty()) continue;
            const auto it = std::find_if(b_spans.begin(), b_spans.end(),
                                         [&](const auto& sp) { return c.start >= sp.first && c.start <= sp.second; });
            if (it != b_spans.end() && c.end > it->second + 1000)
                r.wrong_result = strprintf("the graded path returned before its work was done: a copy (%s) ended %.3g ms "
                                           "after the call returned",
                                           to_string(c.kind), double(c.end - it->second) * 1e-6);
        }
    }
    return ab;
}

BaselineTiming baseline_alone(const std::string& what, const SetEnqueue& run, int sets, const std::string& label,
                                double hold_us) {
    const int n = std::max(1, sets);
    int calls = 0;
    TimingOptions o = grading_timing(label);
    o.hold_us = hold_us;
    const TimingResult t = time_region([&](cudaStream_t s) { run(calls++ % n, s); }, o);
    BaselineTiming r;
    r.what = what;
    r.median_ms = t.median_ms;
    r.details = t;
    return r;
}

CopyBaseline copy_baseline(double bytes_moved) {
    CopyBaseline b;
    b.bytes_moved = bytes_moved;
    b.baseline.id = "copy";
    b.baseline.what = strprintf("the D2D copy of %.4g MiB", bytes_moved / 2 / double(1 << 20));
    b.baseline.time_alone = [bytes_moved, what = b.baseline.what](Context&) {
        const auto copy_bytes = static_cast<std::size_t>(bytes_moved / 2);
        DeviceBuffer<unsigned char> src(copy_bytes), dst(copy_bytes);
        src.zero();
        dst.zero();
        return baseline_alone(what, [&](int, cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), copy_bytes, cudaMemcpyDeviceToDevice, s));
        }, 1, "baseline alone: D2D copy");
    };
    return b;
}

std::vector<std::string> gpu_tenants() {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    const DeviceProbe p = probe_device(dev);
    if (!p.available()) return {};
    const GpuProcesses list = gpu_processes(p.info);
    if (!list.known) return {};
    // In a container NVML may show host process ids: then none is ours by number, and one of them is us.
    const auto self = static_cast<unsigned>(getpid());
    std::vector<GpuProcess> others;
    bool found_self = false;
    for (const GpuProcess& q : list.processes) {
        if (q.pid == self) found_self = true;
        else others.push_back(q);
    }
    if (!found_self && !others.empty()) others.erase(others.begin());
    std::vector<std::string> out;
    for (const GpuProcess& q : others)
        out.push_back(strprintf("another process uses this GPU: pid %u (%s, %.2g GiB of device memory) — its work "
                                "shares the GPU with every timed run",
                                q.pid, q.name.empty() ? "name not visible from here" : q.name.c_str(),
                                static_cast<double>(q.used_bytes) / double(1ull << 30)));
    return out;
}

std::optional<std::uint64_t> gpu_clock_events() {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    const DeviceProbe p = probe_device(dev);
    if (!p.available()) return std::nullopt;
    const ClockEvents e = clock_events(p.info);
    if (!e.known) return std::nullopt;
    return static_cast<std::uint64_t>(e.reasons);
}

std::vector<std::string> gpu_start_checks(const Context& ctx) {
    // A process that just exited (the grader's ceilings measurement) may still be listed for a moment.
    std::vector<std::string> out = gpu_tenants();
    for (int i = 0; i < 5 && !out.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        out = gpu_tenants();
    }
    const auto at_start = ctx.ceiling("d2d_copy_gbps");
    const auto bytes = ctx.ceiling("d2d_copy_bytes");
    if (at_start && bytes && *at_start > 0 && *bytes > 0) {
        const double now = measure_copy_bandwidth_gbps(static_cast<std::size_t>(*bytes));
        if (*at_start / now > 1 + ctx.baseline_tolerance)
            out.push_back(strprintf("before the first check of this lab, a D2D copy ran %s than the grader measured "
                                    "at the start of the run, in a process without graded code (%.0f GB/s vs %.0f "
                                    "GB/s): work started when the graded code was loaded, or another process on "
                                    "this GPU?",
                                    how_much_slower(*at_start / now).c_str(), now, *at_start));
    }
    return out;
}

// ---- hardware counters -----------------------------------------------------------------------------------

namespace {

// Nsight Compute: $LABS_NCU, else `ncu` on PATH, else the toolkit's; "" when none is there.
// A CUDA tool: $VARIABLE when set, else on PATH, else in /usr/local/cuda/bin; "" when not found.
std::string find_tool(const char* name, const char* variable) {
    const auto executable = [](const std::filesystem::path& p) { return access(p.c_str(), X_OK) == 0; };
    if (const char* v = std::getenv(variable); v != nullptr && *v != '\0') return executable(v) ? v : "";
    if (const char* path = std::getenv("PATH"); path != nullptr) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && executable(std::filesystem::path(dir) / name)) return (std::filesystem::path(dir) / name).string();
    }
    const std::string local = std::string("/usr/local/cuda/bin/") + name;
    return executable(local) ? local : "";
}

std::string find_ncu() { return find_tool("ncu", "LABS_NCU"); }

// The parameters of a tool run: the graded run's own (protocol.hpp), with the profile target as its only check —
// so that the run under the tool looks like the graded one: the same program, no arguments, the same inputs.
nlohmann::json tool_params(const std::string& target, bool share_scratch) {
    nlohmann::json p = nlohmann::json::object();
    if (const std::optional<std::string> text = received_run_params(); text && !text->empty()) {
        try {
            p = nlohmann::json::parse(*text);
        } catch (const std::exception&) {
        }
    }
    std::vector<std::string> args = {"--profile-target", target};
    const std::vector<std::string> was = p.value("args", std::vector<std::string>{});
    for (std::size_t i = 0; i + 1 < was.size(); ++i)
        if (was[i] == "--seed") args.insert(args.end(), {"--seed", was[i + 1]});
    p["args"] = args;
    if (const char* tmp = std::getenv("TMPDIR"); share_scratch && tmp != nullptr) p["scratch"] = tmp;
    return p;
}

std::string no_launcher() {
    return "this runner has no tool launcher (it starts tools only through the launcher it forks at start-up, "
           "before its sandbox)";
}


// One CSV line, fields unquoted ("a","b,c" → a | b,c).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (ch == '"') {
            if (quoted && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
            else quoted = !quoted;
        } else if (ch == ',' && !quoted) {
            fields.emplace_back();
        } else if (ch != '\r') {
            fields.back() += ch;
        }
    }
    return fields;
}

// A counter as ncu prints it ("65,601,536", "1.5"); nullopt for "n/a" and the like.
std::optional<double> counter_value(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == nullptr || *end != '\0') return std::nullopt;
    return v;
}

// The first line of ncu's log that says why it failed, else a line of the target's output.
std::string first_error(const std::string& log, const std::string& output) {
    for (const std::string* text : {&log, &output}) {
        std::stringstream lines(*text);
        for (std::string line; std::getline(lines, line);)
            if (line.find("==ERROR==") != std::string::npos || line.find("ERR_") != std::string::npos) return line;
    }
    return "";
}

}  // namespace

namespace {

// The launches a tool run logged itself making (authenticated by the launcher), in order.
std::vector<LoggedLaunch> launches_of(const ToolRunResult& done) {
    std::vector<LoggedLaunch> out;
    for (const nlohmann::json& l : done.launches.is_array() ? done.launches : nlohmann::json::array()) {
        LoggedLaunch one;
        one.name = l.value("name", "");
        for (int d = 0; d < 3; ++d) {
            one.grid[d] = l["grid"][d].get<std::uint32_t>();
            one.block[d] = l["block"][d].get<std::uint32_t>();
        }
        one.dynamic_smem = l.value("dynamic_smem", std::size_t(0));
        out.push_back(std::move(one));
    }
    return out;
}

TargetRun target_run(const std::string& target, const ToolRunResult& done) {
    TargetRun t{target, done.status, done.output, launches_of(done), done.launches.is_array(), done.launches_forged};
    return t;
}

}  // namespace

NcuProfile ncu_profile(const std::string& target, const std::vector<std::string>& metrics, int timeout_s) {
    NcuProfile p;
    const std::string ncu = find_ncu();
    if (ncu.empty()) {
        p.skipped = "Nsight Compute (ncu) is not installed here (looked on PATH, in $LABS_NCU and /usr/local/cuda/bin)";
        return p;
    }
    if (!ToolLauncher::available()) {
        p.skipped = no_launcher();
        return p;
    }
    std::string metric_list;
    std::vector<std::string> all = metrics;
    for (const char* launch : {"launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_dynamic",
                               "launch__shared_mem_per_block_static", "launch__registers_per_thread"})
        if (std::find(all.begin(), all.end(), launch) == all.end()) all.push_back(launch);
    for (const std::string& m : all) metric_list += (metric_list.empty() ? "" : ",") + m;
    ToolRun run;
    run.tool = {ncu, "--csv", "--page", "raw", "--clock-control", "none", "--metrics", metric_list, "--log-file",
                "{dir}/ncu.csv"};
    run.params = tool_params(target, false);
    run.read = {"{dir}/ncu.csv"};
    const ToolRunResult done = ToolLauncher::run({run}, timeout_s).front();
    const int rc = done.status;
    const std::string log_text = done.files.empty() ? "" : done.files.front();
    p.target_output = done.output;
    p.launches = launches_of(done);
    p.launches_forged = done.launches_forged;
    std::stringstream lines(log_text);
    std::vector<std::string> header;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("==", 0) == 0 || line.empty()) continue;
        std::vector<std::string> f = csv_fields(line);
        if (header.empty()) {
            if (!f.empty() && f[0] == "ID") header = std::move(f);
            continue;
        }
        if (f.size() != header.size() || !counter_value(f[0])) continue;  // the units row, or noise
        NcuKernel k;
        for (std::size_t i = 0; i < f.size(); ++i) {
            if (header[i] == "Kernel Name") k.name = f[i];
            for (const std::string& m : all)
                if (header[i] == m)
                    if (const auto v = counter_value(f[i])) k.metrics[m] = *v;
        }
        p.kernels.push_back(std::move(k));
    }
    if (!p.kernels.empty()) return p;  // the check judges what the kernels did
    const std::string why = first_error(log_text, p.target_output);
    p.kernels.clear();
    p.skipped = rc == -2 ? "ncu did not finish within " + std::to_string(timeout_s) + " s"
                : rc == -1 ? "ncu could not be started"
                : !why.empty() ? "ncu could not read the counters here: " + why
                               : "ncu profiled no kernel (exit status " + std::to_string(rc) + ")";
    return p;
}

namespace {

// "void ns::kernel<1, float>(float const*, int)" and "ns::kernel<1,float>" → "kernel": what both spellings share.
std::string base_kernel_name(std::string s) {
    if (s.rfind("void ", 0) == 0) s.erase(0, 5);
    // The anonymous namespace: "(anonymous namespace)" in the C++ runtime's spelling, "<unnamed>" in ncu's.
    for (const std::string anon : {"(anonymous namespace)::", "<unnamed>::"})
        for (std::size_t at = s.find(anon); at != std::string::npos; at = s.find(anon)) s.erase(at, anon.size());
    int depth = 0;
    std::string out;
    for (char c : s) {
        if (c == '(' && depth == 0) break;
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (depth == 0) out += c;
    }
    const auto colons = out.rfind("::");
    if (colons != std::string::npos) out.erase(0, colons + 2);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

}  // namespace

std::string tool_face_mismatch(const std::vector<NcuKernel>& profiled, const Observation& graded) {
    const std::vector<ObservedKernel> seen = graded.graded_kernels();
    if (profiled.size() != seen.size())
        return strprintf("under the profiler %zu kernels ran; in the graded run of the same work %zu", profiled.size(),
                         seen.size());
    const auto metric = [](const NcuKernel& k, const char* m) {
        const auto it = k.metrics.find(m);
        return it == k.metrics.end() ? -1.0 : it->second;
    };
    for (std::size_t i = 0; i < seen.size(); ++i) {
        const NcuKernel& p = profiled[i];
        const ObservedKernel& g = seen[i];
        const std::string name = kernel_name(g.name);
        const std::string where = strprintf("kernel %zu (%s)", i + 1, name.c_str());
        if (base_kernel_name(p.name) != base_kernel_name(name))
            return where + " is " + p.name + " under the profiler";
        const double blocks = double(g.grid[0]) * g.grid[1] * g.grid[2], threads = double(g.block[0]) * g.block[1] * g.block[2];
        if (const double b = metric(p, "launch__grid_size"); b >= 0 && b != blocks)
            return where + strprintf(": %.0f blocks under the profiler, %.0f in the graded run", b, blocks);
        if (const double t = metric(p, "launch__block_size"); t >= 0 && t != threads)
            return where + strprintf(": blocks of %.0f threads under the profiler, %.0f in the graded run", t, threads);
        const double smem = metric(p, "launch__shared_mem_per_block_dynamic");
        if (smem >= 0 && smem != double(g.dynamic_smem))
            return where + strprintf(": %.0f bytes of dynamic shared memory under the profiler, %d in the graded run", smem,
                                     g.dynamic_smem);
        const double st = metric(p, "launch__shared_mem_per_block_static");
        if (st >= 0 && st != double(g.static_smem))
            return where + strprintf(": %.0f bytes of static shared memory under the profiler, %d in the graded run", st,
                                     g.static_smem);
    }
    return "";
}

std::string tool_face_mismatch(const std::vector<LoggedLaunch>& logged, const Observation& graded) {
    const std::vector<ObservedKernel> seen = graded.graded_kernels();
    if (logged.size() != seen.size())
        return strprintf("under the tool %zu kernels ran; in the graded run of the same work %zu", logged.size(), seen.size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
        const LoggedLaunch& l = logged[i];
        const ObservedKernel& g = seen[i];
        const std::string name = kernel_name(g.name);
        const std::string where = strprintf("kernel %zu (%s)", i + 1, name.c_str());
        if (kernel_name(l.name) != name)  // both mangled by the runtime: the template arguments count too
            return where + " is " + kernel_name(l.name) + " under the tool";
        for (int d = 0; d < 3; ++d) {
            if (l.grid[d] != g.grid[d])
                return where + strprintf(": grid %u×%u×%u under the tool, %u×%u×%u in the graded run", l.grid[0], l.grid[1],
                                         l.grid[2], g.grid[0], g.grid[1], g.grid[2]);
            if (l.block[d] != g.block[d])
                return where + strprintf(": block %u×%u×%u under the tool, %u×%u×%u in the graded run", l.block[0],
                                         l.block[1], l.block[2], g.block[0], g.block[1], g.block[2]);
        }
        if (l.dynamic_smem != std::size_t(g.dynamic_smem))
            return where + strprintf(": %zu bytes of dynamic shared memory under the tool, %d in the graded run",
                                     l.dynamic_smem, g.dynamic_smem);
    }
    return "";
}

namespace {

// What differs between a run's launch log and the graded run, or why the log cannot be believed.
std::string logged_face(bool forged, bool recorded, const std::vector<LoggedLaunch>& launches, const Observation& graded) {
    if (forged) return "its output carried a launch log the runner did not write";
    if (!recorded) return "it ended without the runner's record of its launches";
    return tool_face_mismatch(launches, graded);
}

bool mark_tampered(CorrectnessResult& r, const std::string& where, const std::string& face) {
    if (face.empty()) return false;
    r.tampered = where + " the code did not run what it runs when graded: " + face;
    return true;
}

}  // namespace

bool tampered_under(CorrectnessResult& r, const std::string& where, const SanitizerRun& run, const Observation& graded) {
    return mark_tampered(r, where, logged_face(run.launches_forged, true, run.launches, graded));
}

bool tampered_under(CorrectnessResult& r, const std::string& where, const TargetRun& run, const Observation& graded) {
    return mark_tampered(r, where, logged_face(run.launches_forged, run.launches_recorded, run.launches, graded));
}

CorrectnessResult sanitizer_verdict(const std::vector<const SanitizerRun*>& runs, const std::vector<std::string>& tools,
                                    const Observation& graded, const std::string& what, const std::string& hint) {
    CorrectnessResult r;
    std::string found;
    for (std::size_t i = 0; i < runs.size() && i < tools.size(); ++i) {
        const SanitizerRun& run = *runs[i];
        if (!run.skipped.empty()) {
            r.skipped = "not checked: " + run.skipped;
            return r;
        }
        r.details[tools[i]] = {{"errors", run.errors}, {"launches", run.launches.size()}};
        if (tampered_under(r, "under compute-sanitizer --tool " + tools[i], run, graded)) return r;
        if (!run.clean && found.empty())
            found = strprintf("compute-sanitizer --tool %s reports %d error%s on %s:\n%s", tools[i].c_str(), run.errors,
                              run.errors == 1 ? "" : "s", what.c_str(), run.first_report.c_str());
    }
    if (!found.empty()) {
        r.passed = false;
        r.message = found;
        r.hint = hint;
        return r;
    }
    std::string names;
    for (std::size_t i = 0; i < tools.size(); ++i) names += (i == 0 ? "" : i + 1 == tools.size() ? " and " : ", ") + tools[i];
    r.passed = true;
    r.message = names + ": no hazard on " + what;
    return r;
}

namespace {

// What one compute-sanitizer run found, from its output: its summary's count, its first report, its launches.
SanitizerRun read_sanitizer_run(const ToolRunResult& done, int timeout_s) {
    SanitizerRun r;
    const int rc = done.status;
    r.target_output = done.output;
    r.launches = launches_of(done);
    r.launches_forged = done.launches_forged;
    // "========= ERROR SUMMARY: 3 errors" ends memcheck's, synccheck's and initcheck's output; racecheck's ends
    // with "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)".
    static const std::regex summary(R"((?:ERROR SUMMARY:\s*|RACECHECK SUMMARY:\s*\d+\s+hazards?\s+displayed\s+\()(\d+)\s+error)");
    std::string last;
    for (auto it = std::sregex_iterator(r.target_output.begin(), r.target_output.end(), summary); it != std::sregex_iterator(); ++it)
        last = (*it)[1].str();
    if (last.empty()) {
        r.skipped = rc == -2   ? "compute-sanitizer did not finish within " + std::to_string(timeout_s) + " s"
                    : rc == -1 ? "compute-sanitizer could not be started"
                               : "compute-sanitizer printed no summary (exit status " + std::to_string(rc) + ")";
        return r;
    }
    r.errors = std::stoi(last);
    r.clean = r.errors == 0;
    // The first report: from the first "=========" line naming an error or hazard, a few lines.
    std::stringstream lines(r.target_output);
    int taken = 0;
    for (std::string line; std::getline(lines, line) && taken < 6;) {
        const bool starts = line.find("Error") != std::string::npos || line.find("Race") != std::string::npos ||
                            line.find("hazard") != std::string::npos || line.find("Barrier") != std::string::npos;
        if (taken == 0 && !(line.rfind("=========", 0) == 0 && starts && line.find("SUMMARY") == std::string::npos)) continue;
        r.first_report += line + "\n";
        ++taken;
    }
    return r;
}

// The runs of `asks` under compute-sanitizer and the plain runs of `beside`, all started at once.
std::vector<SanitizerRun> sanitize_runs(const std::vector<SanitizeAsk>& asks, int timeout_s,
                                        const std::vector<std::string>& beside) {
    std::vector<SanitizerRun> out(asks.size());
    const auto skip_all = [&](const std::string& why) {
        for (SanitizerRun& r : out) {
            r.skipped = why;
            for (const std::string& t : beside) r.beside.push_back({t, -1, "", {}, false, false});
        }
        return out;
    };
    const std::string sanitizer = find_tool("compute-sanitizer", "LABS_COMPUTE_SANITIZER");
    if (sanitizer.empty())
        return skip_all("compute-sanitizer is not installed here (looked on PATH, in $LABS_COMPUTE_SANITIZER and "
                        "/usr/local/cuda/bin)");
    if (!ToolLauncher::available()) return skip_all(no_launcher());
    std::vector<ToolRun> asked(asks.size() + beside.size());
    for (std::size_t i = 0; i < asks.size(); ++i) {
        asked[i].tool = {sanitizer, "--tool", asks[i].tool, "--print-limit", "20"};
        asked[i].params = tool_params(asks[i].target, false);
    }
    for (std::size_t i = 0; i < beside.size(); ++i) asked[asks.size() + i].params = tool_params(beside[i], false);
    const std::vector<ToolRunResult> all = ToolLauncher::run(asked, timeout_s);
    std::vector<TargetRun> plain;
    for (std::size_t i = 0; i < beside.size(); ++i) plain.push_back(target_run(beside[i], all[asks.size() + i]));
    for (std::size_t i = 0; i < asks.size(); ++i) {
        out[i] = read_sanitizer_run(all[i], timeout_s);
        out[i].beside = plain;
    }
    return out;
}

}  // namespace

SanitizerRun sanitize(const std::string& target, const std::string& tool, int timeout_s,
                      const std::vector<std::string>& beside) {
    return sanitize_runs({{target, tool}}, timeout_s, beside).front();
}

std::vector<SanitizerRun> sanitize_together(const std::vector<SanitizeAsk>& asks, int timeout_s) {
    return sanitize_runs(asks, timeout_s, {});
}

std::vector<TargetRun> run_targets_together(const std::vector<std::string>& targets, int timeout_s) {
    std::vector<TargetRun> runs(targets.size());
    if (!ToolLauncher::available()) {
        for (std::size_t i = 0; i < targets.size(); ++i) runs[i] = {targets[i], -1, no_launcher(), {}, false, false};
        return runs;
    }
    std::vector<ToolRun> asked;
    for (const std::string& t : targets) {
        ToolRun run;
        run.params = tool_params(t, true);  // the same scratch folder: they work on shared files
        // They inherit the environment as it is now (the launcher's is the runner's at start-up).
        for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
            const std::string kv = *e;
            if (const auto eq = kv.find('='); eq != std::string::npos) run.env[kv.substr(0, eq)] = kv.substr(eq + 1);
        }
        asked.push_back(std::move(run));
    }
    const std::vector<ToolRunResult> done = ToolLauncher::run(asked, timeout_s);
    for (std::size_t i = 0; i < targets.size(); ++i) runs[i] = target_run(targets[i], done[i]);
    return runs;
}

// ---- memory that ends at an unmapped page -------------------------------------------------------------------

namespace {

// The driver's virtual memory calls, found through the runtime (the grader does not link the driver library: it
// must load where no driver is installed, to say so).
struct VirtualMemory {
    CUresult (*reserve)(CUdeviceptr*, std::size_t, std::size_t, CUdeviceptr, unsigned long long) = nullptr;
    CUresult (*free_range)(CUdeviceptr, std::size_t) = nullptr;
    CUresult (*create)(CUmemGenericAllocationHandle*, std::size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
    CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
    CUresult (*map)(CUdeviceptr, std::size_t, std::size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
    CUresult (*unmap)(CUdeviceptr, std::size_t) = nullptr;
    CUresult (*set_access)(CUdeviceptr, std::size_t, const CUmemAccessDesc*, std::size_t) = nullptr;
    CUresult (*granularity)(std::size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) = nullptr;
    std::string why_not;
};

const VirtualMemory& virtual_memory() {
    static const VirtualMemory vm = [] {
        VirtualMemory v;
        const auto find = [&](const char* name, auto& fn) {
            void* p = nullptr;
            cudaDriverEntryPointQueryResult found{};
            if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
                found != cudaDriverEntryPointSuccess || p == nullptr) {
                (void)cudaGetLastError();
                if (v.why_not.empty()) v.why_not = std::string("the driver has no ") + name;
                return;
            }
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
        };
        find("cuMemAddressReserve", v.reserve);
        find("cuMemAddressFree", v.free_range);
        find("cuMemCreate", v.create);
        find("cuMemRelease", v.release);
        find("cuMemMap", v.map);
        find("cuMemUnmap", v.unmap);
        find("cuMemSetAccess", v.set_access);
        find("cuMemGetAllocationGranularity", v.granularity);
        return v;
    }();
    return vm;
}

}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes) {
    const VirtualMemory& vm = virtual_memory();
    if (!vm.why_not.empty()) {
        why_not_ = vm.why_not;
        return;
    }
    int device = 0;
    if (bytes == 0 || cudaGetDevice(&device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
        (void)cudaGetLastError();
        why_not_ = bytes == 0 ? "no bytes asked for" : "no CUDA device";
        return;
    }
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    std::size_t granule = 0;
    if (vm.granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || granule == 0) {
        why_not_ = "the driver gave no allocation granularity";
        return;
    }
    mapped_ = (bytes + granule - 1) / granule * granule;
    reserved_ = mapped_ + granule;  // the last granule stays unmapped
    CUdeviceptr base = 0;
    CUmemGenericAllocationHandle handle = 0;
    if (vm.reserve(&base, reserved_, granule, 0, 0) != CUDA_SUCCESS) {
        why_not_ = "the driver reserved no address range";
        return;
    }
    base_ = base;
    if (vm.create(&handle, mapped_, &prop, 0) != CUDA_SUCCESS) {
        why_not_ = "the driver made no physical allocation";
        return;
    }
    handle_ = handle;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (vm.map(base, mapped_, 0, handle, 0) != CUDA_SUCCESS) {
        why_not_ = "the driver mapped no memory";
        return;
    }
    is_mapped_ = true;
    if (vm.set_access(base, mapped_, &access, 1) != CUDA_SUCCESS) {
        why_not_ = "the driver gave no access to the mapped memory";
        return;
    }
    data_ = reinterpret_cast<void*>((base + mapped_ - bytes) & ~CUdeviceptr(255));
}

GuardedBuffer::~GuardedBuffer() {
    const VirtualMemory& vm = virtual_memory();
    if (!vm.why_not.empty()) return;
    if (data_ != nullptr || handle_ != 0) (void)cudaDeviceSynchronize();
    if (is_mapped_) (void)vm.unmap(CUdeviceptr(base_), mapped_);
    if (handle_ != 0) (void)vm.release(CUmemGenericAllocationHandle(handle_));
    if (base_ != 0) (void)vm.free_range(CUdeviceptr(base_), reserved_);
}

void wait_or_hang(cudaStream_t stream, double seconds, const std::string& what) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const cudaError_t e = cudaStreamQuery(stream);
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) CUDA_CHECK(e);
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (waited > seconds)
            throw DeviceHung(what + " did not finish within " + strprintf("%.1f", seconds) +
                             " s: a kernel still running, waiting for work that never comes (a flag that blocks not yet "
                             "resident would set? a wait for a grid that never launched?). Stopped by ending the lab's "
                             "process; the checks after this one did not run");
        std::this_thread::sleep_for(std::chrono::microseconds(waited < 0.01 ? 20 : 500));
    }
}

}  // namespace gpulab::grader

