// FROZEN: do not edit. Lab 02's graded checks: the residency prediction against the models (on the host) and
// against the CUDA runtime on real kernels; the pointer chase's latencies; the streaming copy's correctness and
// its bandwidth at a quarter of the SM; __launch_bounds__ on the tiled kernel.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/buffer.hpp"
#include "labs/chase.hpp"
#include "labs/compare_device.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/occupancy_probe.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"
#include "labs/timing.hpp"
#include "limiter.hpp"
#include "occupancy.hpp"

using namespace gpulab;
using namespace gpulab::grader;

// baseline.cu: the model's SM limits in the lab's struct.
DeviceLimits device_limits_of(const gpulab::models::SmLimits& sm);

namespace {

// "" when the student's prediction is the model's, else what differs.
std::string compare(const KernelResources& k, const models::SmLimits& sm) {
    const models::Occupancy o = models::occupancy(sm, {k.threads, k.regs_per_thread, k.smem_bytes});
    const Residency r = predict_residency(k, device_limits_of(sm));
    std::string diff;
    const auto field = [&](const char* name, long long mine, long long model) {
        if (mine != model) diff += strprintf("%s%s %lld (model %lld)", diff.empty() ? "" : ", ", name, mine, model);
    };
    field("by_threads", r.by_threads, o.blocks_by_threads);
    field("by_regs", r.by_regs, o.blocks_by_regs);
    field("by_smem", r.by_smem, o.blocks_by_smem);
    field("by_limit", r.by_limit, o.blocks_by_limit);
    field("resident", r.resident, o.resident_blocks);
    if (std::abs(r.occupancy - o.occupancy) > 1e-9) diff += strprintf("%soccupancy %.4f (model %.4f)", diff.empty() ? "" : ", ", r.occupancy, o.occupancy);
    if (r.limiter != limiter_word(o.limiters.front()))
        diff += (diff.empty() ? "" : ", ") + std::string("limiter \"") + r.limiter + "\" (model \"" + limiter_word(o.limiters.front()) + "\")";
    return diff;
}

std::string describe(const KernelResources& k) {
    return strprintf("%d threads, %d registers, %lld B shared memory", k.threads, k.regs_per_thread,
                     static_cast<long long>(k.smem_bytes));
}

CorrectnessResult check_chapter() {
    const models::SmLimits h100 = models::sm_limits(models::load_device("H100"));
    const std::vector<std::pair<std::string, KernelResources>> cases{
        {"section 5.1.5 (128x128 tile)", {256, 128, 2 * 128 * 64 * 2 + 4 * 128 * 128}},
        {"Exercise 5-1 (64x64 tile)", {256, 128, 2 * 64 * 64 * 2 + 4 * 64 * 64}},
        {"Exercise 5-1 at 64 registers", {256, 64, 2 * 64 * 64 * 2 + 4 * 64 * 64}}};
    CorrectnessResult r;
    for (const auto& [name, k] : cases) {
        const std::string diff = compare(k, h100);
        if (!diff.empty()) {
            return fail(std::move(r), name + " on an H100 (" + describe(k) + "): " + diff,
                        "work the case by hand first: each allowance is a floor of what the SM has over what a block takes");
        }
    }
    return pass(std::move(r), "the chapter's three cases on an H100 agree with the model, field by field");
}

constexpr int kPerDevice = 250;

CorrectnessResult check_generated(Context& ctx) {
    CorrectnessResult r;
    int compared = 0;
    for (const std::string& key : models::device_keys()) {
        const models::SmLimits sm = models::sm_limits(models::load_device(key));
        const std::uint64_t seed = ctx.seed_for("lab02 configurations " + key);
        int made = 0;
        for (std::uint64_t i = 0; made < kPerDevice && i < 100 * kPerDevice; ++i) {
            KernelResources k;
            k.threads = static_cast<int>(draw(derive_seed(seed, "threads " + std::to_string(i)), 1, 1024));
            k.regs_per_thread = static_cast<int>(draw(derive_seed(seed, "regs " + std::to_string(i)), 16, 255));
            k.smem_bytes = draw(derive_seed(seed, "smem " + std::to_string(i)), 0, sm.smem_per_block_max_bytes);
            // Only configurations that can be launched: the prediction of one that cannot is not the lesson.
            if (models::occupancy(sm, {k.threads, k.regs_per_thread, k.smem_bytes}).resident_blocks == 0) continue;
            ++made;
            ++compared;
            const std::string diff = compare(k, sm);
            if (!diff.empty()) {
                r.message = strprintf("%s (%s), configuration %d of %d: ", key.c_str(), describe(k).c_str(), made, kPerDevice) + diff;
                r.hint = "compare your formula for the differing field with the handout's; the register rule rounds per "
                         "warp and counts per partition";
                r.details["compared_before_the_difference"] = compared - 1;
                return r;
            }
        }
    }
    r.passed = true;
    r.details["compared"] = compared;
    r.message = strprintf("%d configurations drawn from this run's seed, %d per device file (%zu devices), all agree with "
                          "the model",
                          compared, kPerDevice, models::device_keys().size());
    return r;
}

// ---- (a) on the GPU: the runtime's answer for real kernels ---------------------------------------------------

CorrectnessResult check_runtime(Context&) {
    const DeviceLimits d = this_device_limits();
    const std::vector<OccupancyProbe> probes = occupancy_probes();
    CorrectnessResult r;
    int agreed = 0;
    for (const OccupancyProbe& p : probes) {
        const KernelResources k{p.threads, p.regs_per_thread, p.static_smem_bytes + p.dynamic_smem_bytes};
        const Residency mine = predict_residency(k, d);
        if (mine.resident != p.runtime_blocks) {
            r.message = strprintf("%s at %s: you predict %d resident blocks, the runtime says %d (%d configurations "
                                  "agreed before it)",
                                  p.kernel.c_str(), describe(k).c_str(), mine.resident, p.runtime_blocks, agreed);
            r.hint = "the host checks pass but this does not? Your formula may use a constant of the H100 instead of the "
                     "DeviceLimits it is given";
            r.details = {{"compared", agreed + 1}, {"configurations", probes.size()}};
            return r;
        }
        ++agreed;
    }
    std::set<std::string> kernels;
    for (const OccupancyProbe& p : probes) kernels.insert(p.kernel);
    r.passed = true;
    r.message = strprintf("%d configurations of %zu real kernels (%d register counts, block sizes 32-1024, dynamic shared "
                          "memory up to the opt-in maximum): all agree with cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                          agreed, kernels.size(), distinct_register_counts(probes));
    r.details = {{"compared", agreed}, {"register_counts", distinct_register_counts(probes)}};
    return r;
}

// ---- (b) latency --------------------------------------------------------------------------------------------

constexpr std::size_t kDramChainBytes = std::size_t(1) << 30;  // 20x the L2 of an H100 or H200
constexpr std::size_t kL2ChainBytes = std::size_t(4) << 20;     // 16x an SM's L1, a tenth of the L2
constexpr double kMaxDramNs = 2000;

CorrectnessResult check_latency(Context& ctx) {
    CorrectnessResult r;
    const ChaseChain dram(kDramChainBytes, ctx.seed_for("lab02 dram chain"));
    const ChaseChain l2(kL2ChainBytes, ctx.seed_for("lab02 l2 chain"));
    const ChaseLatency d1 = measure_chase_latency(dram, 20000, 3, &launch_chase, 0);
    const ChaseLatency d2 = measure_chase_latency(dram, 20000, 3, &launch_chase, dram.lines() / 2);
    const ChaseLatency c = measure_chase_latency(l2, 40000, 3, &launch_chase, 0);
    const std::optional<double> grader_ns = ctx.ceiling("dram_latency_ns");
    r.details = {{"dram_ns", {d1.ns_per_load, d2.ns_per_load}}, {"l2_ns", c.ns_per_load}};
    if (grader_ns) r.details["grader_dram_ns"] = *grader_ns;
    r.message = strprintf("DRAM %.0f ns and %.0f ns (two runs, 1 GiB chain), L2 %.0f ns (4 MiB chain, warm)", d1.ns_per_load,
                          d2.ns_per_load, c.ns_per_load) +
                (grader_ns ? strprintf("; the grader's own chase: DRAM %.0f ns", *grader_ns) : std::string());
    if (!d1.walked || !d2.walked || !c.walked)
        return fail_because(r, "a walk did not end where the chain does",
                    "follow exactly `steps` links from `start` (i = words[i]) and write the last index to *end");
    const double dram_ns = (d1.ns_per_load + d2.ns_per_load) / 2;
    if (!(c.ns_per_load > 0) || !(c.ns_per_load < dram_ns))
        return fail_because(r, "the L2 latency is not below the DRAM latency",
                    "one thread, one load at a time: each load's address must be the value the previous load returned");
    if (dram_ns > kMaxDramNs)
        return fail_because(r, strprintf("a DRAM load takes more than %.0f ns", kMaxDramNs),
                    "the loop should hold nothing but the dependent load (no atomics, no waits, no extra work)");
    if (std::abs(d1.ns_per_load - d2.ns_per_load) > 0.1 * dram_ns)
        return fail_because(r, "the two DRAM runs differ by more than 10%", "one thread in one block; nothing else in the loop");
    if (grader_ns && std::abs(dram_ns - *grader_ns) > 0.25 * *grader_ns)
        return fail_because(r, "the DRAM latency is more than 25% from the grader's own pointer chase",
                    "load with __ldcg, one dependent load per step and nothing else in the loop");
    return pass(std::move(r));
}

// ---- (c) streaming --------------------------------------------------------------------------------------------

constexpr int kStreamBlocksPerSm = 2;  // 16 of 64 warp slots on an H100 or H200: a quarter of the SM
constexpr int kLoads[] = {1, 2, 4, 8};

// What the observer saw one launch run: its one kernel's threads, registers and shared memory (static + dynamic),
// and the resident blocks per SM they allow on this GPU by the occupancy model (the runtime's own answer for the
// same resources, check_runtime shows they agree).
struct ObservedLaunch {
    std::string error;  // "" when one kernel of the student's own ran
    std::uint32_t grid = 0, threads = 0, regs = 0, local_bytes = 0;
    std::int64_t smem = 0;
    models::Occupancy occ{};
};

ObservedLaunch observed_launch(const Context& ctx, const std::string& what, const Observation& seen) {
    ObservedLaunch o;
    CorrectnessResult own;
    own.passed = true;
    own = require_own_kernels(std::move(own), ctx, what, seen);
    const std::vector<ObservedKernel> ran = seen.graded_kernels();
    if (!own.passed) return o.error = own.message, o;
    if (ran.size() != 1) return o.error = strprintf("%s: one kernel launch expected, the call ran %zu kernels", what.c_str(), ran.size()), o;
    const ObservedKernel& k = ran[0];
    o.grid = k.grid[0] * k.grid[1] * k.grid[2];
    o.threads = k.block[0] * k.block[1] * k.block[2];
    o.regs = k.registers;
    o.local_bytes = k.local_bytes;
    o.smem = std::int64_t(k.static_smem) + k.dynamic_smem;
    o.occ = models::occupancy(device_sm_limits(), {int(o.threads), int(o.regs), o.smem});
    return o;
}

// Copies `count` vectors with `loads` in flight and checks every copied vector and an untouched guard past them; the
// occupancy is the one the observer saw the launch run at (the launcher's own StreamLaunch is only reported).
CorrectnessResult check_stream(Context& ctx) {
    CorrectnessResult r;
    const std::size_t count = (std::size_t(1) << 22) + 333, guard = 4096;
    DeviceBuffer<uint4> in(count), pristine(count), out(count + guard), poison(count + guard);
    fill_random_bytes_device(in.data(), in.bytes(), ctx.seed_for("lab02 stream input"));
    CUDA_CHECK(cudaMemcpy(pristine.data(), in.data(), in.bytes(), cudaMemcpyDeviceToDevice));
    fill_random_bytes_device(poison.data(), poison.bytes(), ctx.seed_for("lab02 stream poison"));
    const std::size_t ballast = ballast_bytes(kStreamBlocksPerSm);
    nlohmann::json per;
    for (const int loads : kLoads) {
        CUDA_CHECK(cudaMemcpy(out.data(), poison.data(), poison.bytes(), cudaMemcpyDeviceToDevice));
        Window window;
        const StreamLaunch l = as_graded([&] { return launch_streaming(loads, in.data(), out.data(), count, ballast, nullptr); });
        const Observation seen = window.close();
        const ObservedLaunch o = observed_launch(ctx, strprintf("streaming_kernel<%d>", loads), seen);
        if (!o.error.empty()) {
            return fail(std::move(r), o.error,
                        "launch_streaming launches your streaming_kernel<LOADS>, once");
        }
        per[std::to_string(loads)] = {{"blocks_per_sm", o.occ.resident_blocks}, {"occupancy", o.occ.occupancy},
                                      {"regs", o.regs}, {"threads", o.threads}, {"smem_bytes", o.smem}, {"grid", o.grid},
                                      {"reported", {{"blocks_per_sm", l.blocks_per_sm}, {"occupancy", l.occupancy},
                                                    {"regs", l.regs_per_thread}}}};
        // Against a copy of the input taken before any run, and the input itself unchanged: a kernel that wrote
        // its output into `in` as well would otherwise match.
        const DeviceDiff copied = compare_bits_device(out.data(), pristine.data(), count * sizeof(uint4), 1);
        const DeviceDiff input = compare_bits_device(in.data(), pristine.data(), count * sizeof(uint4), 1);
        if (input.count != 0) {
            r.message = strprintf("streaming_kernel<%d> wrote into its input (%zu bytes changed)", loads, input.count);
            r.hint = "in is the caller's: read it, never write it";
            r.details = per;
            return r;
        }
        const DeviceDiff tail = compare_bits_device(out.data() + count, poison.data() + count, guard * sizeof(uint4), 1);
        if (copied.count != 0 || tail.count != 0) {
            r.message = copied.count != 0
                            ? strprintf("streaming_kernel<%d>: %zu of %zu bytes not copied; first at byte %zu", loads,
                                        copied.count, count * sizeof(uint4), *copied.first)
                            : strprintf("streaming_kernel<%d> wrote past the end (%zu bytes of the guard changed)", loads,
                                        tail.count);
            r.hint = "each thread starts at its global index and steps by the whole grid; the last round has fewer "
                     "than LOADS elements left: copy those one at a time";
            r.details = per;
            return r;
        }
        if (o.occ.occupancy > 0.25 + 1e-9) {
            r.message = strprintf("streaming_kernel<%d> ran at occupancy %.2f with the ballast, as observed (%u threads, %u "
                                  "registers, %lld B shared memory per block; a quarter at most expected)",
                                  loads, o.occ.occupancy, o.threads, o.regs, (long long)o.smem);
            r.details = per;
            return r;
        }
    }
    r.passed = true;
    r.details = per;
    r.message = strprintf("1, 2, 4 and 8 loads in flight: all %zu vectors (4 Mi + 333) copied, nothing past them touched; "
                          "%d blocks of %d threads per SM (occupancy %.2f)",
                          count, per["1"]["blocks_per_sm"].get<int>(), kStreamThreads, per["1"]["occupancy"].get<double>());
    return r;
}

constexpr std::size_t kTimedVectors = std::size_t(16) << 20;  // 256 MiB in, 256 MiB out
const double kTimedBytes = 2.0 * double(kTimedVectors) * sizeof(uint4);

struct StreamSets {
    DeviceBuffer<uint4> in[2], out[2], expected;
    std::uint64_t filled_with[2] = {};  // the seed each set's input was last drawn from
    std::size_t ballast = ballast_bytes(kStreamBlocksPerSm);
    explicit StreamSets(std::uint64_t seed) {
        for (int i = 0; i < 2; ++i) {
            in[i] = DeviceBuffer<uint4>(kTimedVectors);
            out[i] = DeviceBuffer<uint4>(kTimedVectors);
            filled_with[i] = seed + std::uint64_t(i);
            fill_random_bytes_device(in[i].data(), in[i].bytes(), filled_with[i]);
        }
        expected = DeviceBuffer<uint4>(kTimedVectors);
    }
    void refill(int i, std::uint64_t seed, cudaStream_t s) {
        filled_with[i] = seed;
        fill_random_bytes_device(in[i].data(), in[i].bytes(), seed, s);
    }
    std::pair<void*, std::size_t> output(int i) { return output_of(out[i]); }
    // Against the input redrawn from its seed, not the input buffer, which the graded kernel could have written.
    std::string verify(int i, const void* got) {
        fill_random_bytes_device(expected.data(), expected.bytes(), filled_with[i]);
        CUDA_CHECK(cudaDeviceSynchronize());
        const DeviceDiff d = compare_bits_device(got, expected.data(), expected.bytes(), 1);
        return d.count == 0 ? std::string() : strprintf("%zu bytes of the copy differ from its input", d.count);
    }
    Rotation rotation(int loads) {
        return rotation_of(*this, [this, loads](int i, cudaStream_t s) {
            (void)launch_streaming(loads, in[i].data(), out[i].data(), kTimedVectors, ballast, s);
        });
    }
};

// The baselines: the copy, and the given kernel with one load in flight per thread.
CopyBaseline copy_baseline_timed() { return copy_baseline(kTimedBytes); }
SetBaseline<StreamSets> one_load_baseline() {
    return baseline_on<StreamSets>(
        "one_load", "the one-load streaming copy", [](Context& ctx) { return StreamSets(ctx.seed_for("lab02 baseline one load")); },
        [](StreamSets& sets, int i, cudaStream_t s) {
            (void)launch_streaming_baseline(sets.in[i].data(), sets.out[i].data(), kTimedVectors, sets.ballast, s);
        });
}

// The student's fastest setting, from a short timing of each (median of a few runs, alone). @p curve gets each
// setting's bandwidth, GB/s (the report page's latency-hiding curve).
int best_loads(StreamSets& sets, nlohmann::json& curve) {
    int best = 1;
    double best_ms = 1e30;
    curve = nlohmann::json::object();
    for (const int loads : kLoads) {
        TimingOptions o;
        o.label = "lab02 pick loads";
        o.min_reps = 5;
        o.max_reps = 10;
        const double ms = time_region([&](cudaStream_t s) { sets.rotation(loads).run(0, s); }, o).median_ms;
        if (ms < best_ms) best_ms = ms, best = loads;
        curve[std::to_string(loads)] = kTimedBytes / (ms * 1e6);
    }
    return best;
}

// The student's fastest setting (best_loads()), timed on sets of its own against the copy (`vs_copy`) or against the
// one-load baseline.
PerfResult perf_stream(Context& ctx, bool vs_copy) {
    StreamSets sets(ctx.seed_for(vs_copy ? "lab02 timed copy" : "lab02 timed baseline"));
    nlohmann::json curve;
    const int loads = best_loads(sets, curve);
    PerfResult r = vs_copy ? fraction_of_copy_bandwidth(ctx, copy_baseline_timed(), sets.rotation(loads), "lab02 streaming vs copy")
                           : speedup_over(ctx, one_load_baseline(), sets, sets.rotation(loads), kTimedBytes,
                                          "lab02 streaming vs one load");
    r.message = (vs_copy ? strprintf("streaming_kernel<%d> (your fastest) at %d blocks of %d threads per SM: ", loads,
                                     kStreamBlocksPerSm, kStreamThreads)
                         : strprintf("streaming_kernel<%d> (your fastest) over the one-load baseline, both at %d blocks "
                                     "per SM: ",
                                     loads, kStreamBlocksPerSm)) +
                r.message;
    r.details["loads"] = loads;
    r.details["gbps_by_loads"] = curve;
    return r;
}

// Runs in a process of its own under ncu: streaming_kernel<1>, <2>, <4> and <8>, in that order, each once over the
// timed size (kTimedVectors each way) at the ballast of the graded runs. The input is zeroed by a memset, not a
// kernel: ncu sees only the four copies.
void profile_streaming() {
    DeviceBuffer<uint4> in(kTimedVectors), out(kTimedVectors);
    in.zero();
    const std::size_t ballast = ballast_bytes(kStreamBlocksPerSm);
    for (const int loads : kLoads) {
        (void)launch_streaming(loads, in.data(), out.data(), kTimedVectors, ballast, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
}

PerfResult perf_stream_copy(Context& ctx) { return perf_stream(ctx, true); }
PerfResult perf_stream_baseline(Context& ctx) { return perf_stream(ctx, false); }

// ---- (d) launch bounds ------------------------------------------------------------------------------------------

// The most registers per thread at which the tiled kernel's block count is set by its shared memory, not its
// registers, on this GPU (a multiple of 8, as the compiler allocates them): what __launch_bounds__ must reach.
int register_budget(const TiledInfo& given) {
    const models::SmLimits sm = device_sm_limits();
    const auto occ = [&](int regs) {
        return models::occupancy(sm, {kTiledThreads, regs, static_cast<std::int64_t>(given.static_smem)});
    };
    int budget = 0;
    for (int regs = 8; regs <= 255; regs += 8)
        if (occ(regs).blocks_by_regs >= occ(regs).blocks_by_smem) budget = regs;
    return budget;
}

CorrectnessResult check_bounds(Context& ctx) {
    CorrectnessResult r;
    const TiledInfo given = tiled_info();
    TiledInfo mine = tiled_bounded_info();  // reported only: the registers, spills and residency are observed below
    const int budget = register_budget(given);
    r.details = {{"given", {{"regs", given.regs_per_thread}, {"blocks_per_sm", given.blocks_per_sm}, {"local_bytes", given.local_bytes}}},
                 {"bounded_reported", {{"regs", mine.regs_per_thread}, {"blocks_per_sm", mine.blocks_per_sm}, {"local_bytes", mine.local_bytes}}},
                 {"register_budget", budget}};
    // Both kernels on the same inputs: the products must be the same, bit for bit (same body, same order of
    // operations; only the registers differ).
    const int n = 1024;
    const std::size_t elems = std::size_t(n) * n;
    DeviceBuffer<float> a(elems), b(elems), c_given(elems), c_mine(elems);
    fill_uniform_device(a.data(), elems, ctx.seed_for("lab02 tiled a"), -1.0f, 1.0f);
    fill_uniform_device(b.data(), elems, ctx.seed_for("lab02 tiled b"), -1.0f, 1.0f);
    fill_random_bytes_device(c_mine.data(), c_mine.bytes(), ctx.seed_for("lab02 tiled poison"));
    launch_tiled(a.data(), b.data(), c_given.data(), n, nullptr);
    if (skip_unobserved(r)) return r;
    // The registers and residency are those of the kernel the launcher really ran (not what an info call reports).
    const Observation seen = observe_call([&] { launch_tiled_bounded(a.data(), b.data(), c_mine.data(), n, nullptr); });
    const ObservedLaunch ran = observed_launch(ctx, "launch_tiled_bounded", seen);
    if (!ran.error.empty()) {
        return fail(std::move(r), ran.error,
                    "launch_tiled_bounded launches your tiled_bounded kernel, once");
    }
    r.details["observed"] = {{"regs", ran.regs}, {"blocks_per_sm", ran.occ.resident_blocks}, {"threads", ran.threads},
                             {"local_bytes", ran.local_bytes}};
    mine.regs_per_thread = int(ran.regs);
    mine.blocks_per_sm = ran.occ.resident_blocks;
    mine.local_bytes = ran.local_bytes;
    const TimingResult t_given = time_region([&](cudaStream_t s) { launch_tiled(a.data(), b.data(), c_given.data(), n, s); });
    const TimingResult t_mine = time_region([&](cudaStream_t s) { launch_tiled_bounded(a.data(), b.data(), c_mine.data(), n, s); });
    r.details["given_ms"] = t_given.median_ms;
    r.details["bounded_ms"] = t_mine.median_ms;
    const DeviceDiff d = compare_bits_device(c_mine.data(), c_given.data(), elems, sizeof(float));
    r.message = strprintf("given: %d registers, %d blocks per SM, %.3f ms; yours: %d registers (%zu B spilled per thread), %d "
                          "blocks per SM, %.3f ms (n = %d); the budget on this GPU: %d registers",
                          given.regs_per_thread, given.blocks_per_sm, t_given.median_ms, mine.regs_per_thread,
                          mine.local_bytes, mine.blocks_per_sm, t_mine.median_ms, n, budget);
    if (d.count != 0) {
        return fail(r, strprintf("%zu of %zu elements of C differ from the given kernel's. ", d.count, elems) + r.message,
                    "tiled_bounded must run tiled_gemm_body(a, b, c, n) and nothing else");
    }
    if (mine.regs_per_thread > budget) {
        return fail(r, "registers still set the block count. " + r.message,
                    "__launch_bounds__(maxThreadsPerBlock, minBlocksPerSM): which minBlocksPerSM makes the compiler fit as "
                    "many blocks in the register file as the shared memory allows?");
    }
    if (mine.blocks_per_sm <= given.blocks_per_sm) {
        r.message = "no more resident blocks than the given kernel. " + r.message;
        return r;
    }
    return pass(std::move(r));
}

}  // namespace

void register_checks(Lab& lab) {
    lab.host_check("predict.chapter", "(a) the chapter's cases, on the host", 4, [](Context&) { return check_chapter(); });
    lab.host_check("predict.generated", "(a) 250 configurations per device file, on the host", 6, check_generated);
    lab.correctness("predict.runtime", "(a) real kernels: the runtime's resident blocks", 10, check_runtime);
    lab.correctness("latency.chase", "(b) pointer chase: DRAM and L2 latency", 12, check_latency);
    lab.correctness("stream.correct", "(c) streaming copy, 1/2/4/8 loads in flight, with the ballast", 8, observed(check_stream));
    lab.profile_target("streaming", &profile_streaming);
    // grader --profile: what more loads in flight change on the SM (the report page shows it; no points).
    lab.profile_evidence({"streaming",
                          "the streaming copy with 1, 2, 4 and 8 loads in flight (in that order; 256 MiB each way, at a "
                          "quarter of the SM): the achieved occupancy stays near 25% for all four, and more loads in "
                          "flight should give more eligible warps per cycle and a higher DRAM throughput",
                          {{"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (% of peak)", ""},
                           {"smsp__warps_eligible.avg.per_cycle_active", "eligible warps per cycle", ""},
                           {"smsp__warps_active.avg.per_cycle_active", "active warps per cycle", ""},
                           {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput (% of peak)", ""}}});
    lab.correctness("bounds.tiled", "(d) __launch_bounds__ on the tiled kernel", 12, check_bounds);

    const PerfSpec copy{.requires_check = "stream.correct", .pass_bar = 0.6, .full_bar = 0.85, .unit = "of copy BW",
                        .baseline = copy_baseline_timed().baseline};
    lab.performance("perf.stream_copy", "(c) streaming at a quarter of the SM vs copy bandwidth", 16, copy, perf_stream_copy);
    const PerfSpec over{.requires_check = "stream.correct", .pass_bar = 1.05, .full_bar = 1.15, .unit = "x one load",
                        .baseline = one_load_baseline().baseline};
    lab.performance("perf.stream_vs_one_load", "(c) the same over one load in flight per thread", 12, over,
                    perf_stream_baseline);
}
