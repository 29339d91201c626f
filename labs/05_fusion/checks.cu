// FROZEN: do not edit. Lab 05's graded checks: bit-identity with the baseline chain and agreement with
// a double-precision CPU reference (fixed shapes plus one drawn from the run's seed), launch counts from
// a captured CUDA graph, peak memory of the host paths against the model, and speed measured in the
// same run.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fusion.hpp"
#include "grader/gpu_checks.hpp"
#include "labs/bf16.hpp"
#include "labs/compare.hpp"
#include "labs/compare_device.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/fusion.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

constexpr float kInputRange = 3.0f;  // G, U uniform in [-3, 3): |Z / scale| reaches past 448 (saturation)

// The FFN width F of the chapter's model (Qwen3-8B: 12288), from the datasets.
std::size_t ffn_width() {
    static const auto width = static_cast<std::size_t>(models::load_model_shape().intermediate_size);
    return width;
}

struct Shape {
    std::size_t rows = 0, cols = 0;
    std::string tag, title;
};

// M = 1 is decode; 7 · 4097 = 28679 elements leaves a tail of 7 after the last 16-byte group; the drawn
// shape changes every run (rows in [1, 64], columns in [1, 16384]).
std::vector<Shape> shapes(const Lab& lab) {
    const std::size_t f = ffn_width();
    const auto rows = static_cast<std::size_t>(draw(lab.seed_for("lab05 drawn rows"), 1, 64));
    const auto cols = static_cast<std::size_t>(draw(lab.seed_for("lab05 drawn cols"), 1, 16384));
    return {{1, f, "m1", "M = 1 (decode)"},
            {7, f, "m7", "M = 7"},
            {1000, f, "m1000", "M = 1000"},
            {1024, f, "m1024", "M = 1024"},
            {8192, f, "m8192", "M = 8192"},
            {7, 4097, "odd_n", "M = 7, N = 4097"},
            {rows, cols, "drawn", "M = " + std::to_string(rows) + ", N = " + std::to_string(cols) + " (drawn)"}};
}

// Inputs of one shape and the baseline chain's outputs, computed once per run.
struct Case {
    std::size_t rows = 0, cols = 0;
    std::vector<std::uint16_t> hg, hu, z_base;
    std::vector<std::uint8_t> q_base;
    DeviceBuffer<bf16> g, u;
    [[nodiscard]] std::size_t count() const { return rows * cols; }
};

// The chain run three ways on one case, each enqueued on a given stream, over its own scratch T and Z and
// an output Q: the baseline's three kernels, (a) SiLU⊙U fused then the quantization, (b) one kernel.
struct ChainPaths {
    const Case& c;
    DeviceBuffer<bf16> t, z;
    DeviceBuffer<std::uint8_t> q;
    explicit ChainPaths(const Case& c_) : c(c_), t(c_.count()), z(c_.count()), q(c_.count()) {}
    void separate(cudaStream_t s) {
        launch_silu(c.g.data(), t.data(), c.count(), s);
        launch_mul(t.data(), c.u.data(), z.data(), c.count(), s);
        launch_quantize(z.data(), q.data(), c.count(), kFusionScale, s);
    }
    void silu_mul(cudaStream_t s) {
        launch_silu_mul(c.g.data(), c.u.data(), z.data(), c.rows, c.cols, s);
        launch_quantize(z.data(), q.data(), c.count(), kFusionScale, s);
    }
    void all_fused(cudaStream_t s) {
        launch_silu_mul_quantize(c.g.data(), c.u.data(), q.data(), c.rows, c.cols, kFusionScale, s);
    }
};

const Case& get_case(Context& ctx, const Shape& s) {
    return cached_case<Case>(s.tag, [&] {
        auto c = std::make_unique<Case>();
        c->rows = s.rows;
        c->cols = s.cols;
        const std::uint64_t seed = ctx.seed_for("lab05 inputs " + s.tag);
        c->hg.resize(c->count());
        c->hu.resize(c->count());
        fill_uniform_bf16(c->hg, seed, -kInputRange, kInputRange);
        fill_uniform_bf16(c->hu, seed + 1, -kInputRange, kInputRange);
        c->g = to_device_bits(c->hg);
        c->u = to_device_bits(c->hu);
        ChainPaths baseline(*c);
        baseline.separate(nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        c->z_base = to_host_bits(baseline.z);
        c->q_base = to_host(baseline.q);
        return c;
    });
}

// Rows checked against the CPU reference: all of them up to 1024 rows, else every 16th and the last.
std::vector<std::size_t> reference_rows(std::size_t rows) {
    std::vector<std::size_t> r;
    for (std::size_t i = 0; i < rows; ++i)
        if (rows <= 1024 || i % 16 == 0 || i == rows - 1) r.push_back(i);
    return r;
}

// Double-precision reference of Z (quantize = false) or of Z / scale clipped to ±448 (quantize = true)
// on the given rows, and the matching elements of the output.
template <typename Raw>
CompareReport against_reference(const Case& c, const std::vector<Raw>& out, bool quantize) {
    const auto rows = reference_rows(c.rows);
    std::vector<double> ref;
    std::vector<Raw> got;
    ref.reserve(rows.size() * c.cols);
    got.reserve(rows.size() * c.cols);
    for (std::size_t r : rows) {
        for (std::size_t j = 0; j < c.cols; ++j) {
            const std::size_t i = r * c.cols + j;
            double z = models::silu(bf16_bits_to_float(c.hg[i])) * bf16_bits_to_float(c.hu[i]);
            if (quantize) z = std::clamp(z / kFusionScale, -448.0, 448.0);
            ref.push_back(z);
            got.push_back(out[i]);
        }
    }
    const TileLayout layout{rows.size(), c.cols, 0, 0};
    if constexpr (sizeof(Raw) == 2) {
        // Two BF16 roundings (T, then Z): within one BF16 step, 2^-7 relative.
        return compare_bf16(got, ref, Tolerance{0.0, std::ldexp(1.0, -7)}, layout);
    } else {
        // Plus one E4M3 rounding: within one FP8 step, 2^-3 relative, or 2^-9 among subnormals.
        return compare_e4m3(got, ref, Tolerance{std::ldexp(1.0, -9), std::ldexp(1.0, -3)}, layout);
    }
}

const char* kBitsHint =
    "compute each element with fusion::silu_step, then fusion::mul_step (T is still rounded to BF16), then "
    "fusion::quantize_step; fusing must not change the arithmetic";

// Bit-identical to the baseline chain first (the lesson), then within a step of the exact value (the
// baseline itself is right), then the inputs untouched.
template <typename Raw>
CorrectnessResult judge(const Case& c, const std::vector<Raw>& out, const std::vector<Raw>& base, bool quantize) {
    const TileLayout flat{1, c.count(), 1, 8};  // a flat walk: the tail is the last count % 8 elements
    const CompareReport bits = compare_bits(std::span<const Raw>(out), std::span<const Raw>(base), flat);
    CorrectnessResult r;
    const char* step = quantize ? "one FP8 step" : "one BF16 step";
    if (!bits.passed()) {
        r = to_result(bits, "bitwise against the baseline chain");
        r.message = "not bit-identical to the baseline chain: " + bits.describe();
        if (r.hint.empty() || bits.unwritten_count == 0) r.hint = bits.hint().empty() ? kBitsHint : bits.hint();
    } else {
        const CompareReport ref = against_reference(c, out, quantize);
        r = to_result(ref, std::string("against the CPU reference, ") + step);
        if (r.passed) r.message = "bit-identical to the baseline chain; " + ref.describe() + " of the CPU reference (" + step + ")";
    }
    return require_unchanged(std::move(r), {input("G", c.g, c.hg), input("U", c.u, c.hu)});
}

CorrectnessResult check_fused_silu_mul(Context& ctx, const Shape& s) {
    const Case& c = get_case(ctx, s);
    const auto launch = [&](bf16* out, cudaStream_t st) { launch_silu_mul(c.g.data(), c.u.data(), out, c.rows, c.cols, st); };
    const auto z = run_on_poisoned<bf16>(c.count(), [&](bf16* out) { launch(out, nullptr); });
    DeviceBuffer<bf16> out(c.count());  // captured, not run
    return require_own_kernels(judge(c, z, c.z_base, false), ctx, "(a) SiLU⊙U",
                               [&](cudaStream_t st) { launch(out.data(), st); });
}

CorrectnessResult check_all_fused(Context& ctx, const Shape& s) {
    const Case& c = get_case(ctx, s);
    const auto launch = [&](std::uint8_t* out, cudaStream_t st) {
        launch_silu_mul_quantize(c.g.data(), c.u.data(), out, c.rows, c.cols, kFusionScale, st);
    };
    const auto q = run_on_poisoned<std::uint8_t>(c.count(), [&](std::uint8_t* out) { launch(out, nullptr); });
    DeviceBuffer<std::uint8_t> out(c.count());  // captured, not run
    return require_own_kernels(judge(c, q, c.q_base, true), ctx, "(b) SiLU⊙U→FP8",
                               [&](cudaStream_t st) { launch(out.data(), st); });
}

// The path captured into a graph must hold 2 (a) or 1 (b) kernel launches, and its replay must give the
// baseline's Q.
CorrectnessResult check_launches(Context& ctx, const Shape& m1024, bool all_fused) {
    const Case& c = get_case(ctx, m1024);
    ChainPaths paths(c);
    const CapturedGraph separate([&](cudaStream_t s) { paths.separate(s); });
    CapturedGraph graph([&](cudaStream_t s) { all_fused ? paths.all_fused(s) : paths.silu_mul(s); });
    CorrectnessResult r = kernel_count_result(graph, all_fused ? 1 : 2,
                                              all_fused ? "the fully fused chain is one kernel launch"
                                                        : "SiLU⊙U is one launch, quantization another");
    paths.q.poison();
    graph.replay();
    const bool same = to_host(paths.q) == c.q_base;
    r.passed = r.passed && same;
    r.message += " (the baseline chain: " + std::to_string(separate.kernels().size()) + ")" +
                 (same ? "; its replay gives the baseline's Q" : "; its replay does NOT give the baseline's Q");
    r.details["kernels_separate"] = separate.kernels().size();
    return r;
}

// A shape on two sets of inputs with different data, for the timing helpers to rotate over; a timed run
// of (b) is verified bit for bit against the baseline chain on its set.
struct TimedSets {
    std::size_t rows, cols;
    DeviceBuffer<bf16> g[2], u[2], t, z;
    DeviceBuffer<std::uint8_t> q[2], q_ref;
    TimedSets(const Shape& s, std::uint64_t seed)
        : rows(s.rows), cols(s.cols), t(count()), z(count()), q_ref(count()) {
        for (int i = 0; i < 2; ++i) {
            g[i] = DeviceBuffer<bf16>(count());
            u[i] = DeviceBuffer<bf16>(count());
            q[i] = DeviceBuffer<std::uint8_t>(count());
            fill(i, seed + 2 * i, nullptr);
        }
    }
    [[nodiscard]] std::size_t count() const { return rows * cols; }
    void fill(int i, std::uint64_t seed, cudaStream_t s) {
        fill_uniform_bf16_device(g[i].data(), count(), seed, -kInputRange, kInputRange, s);
        fill_uniform_bf16_device(u[i].data(), count(), seed + 1, -kInputRange, kInputRange, s);
    }
    void separate(int i, std::uint8_t* out, cudaStream_t s) {
        launch_silu(g[i].data(), t.data(), count(), s);
        launch_mul(t.data(), u[i].data(), z.data(), count(), s);
        launch_quantize(z.data(), out, count(), kFusionScale, s);
    }
    Rotation rotation() {
        Rotation r;
        r.run = [this](int i, cudaStream_t s) {
            launch_silu_mul_quantize(g[i].data(), u[i].data(), q[i].data(), rows, cols, kFusionScale, s);
        };
        r.refill = [this](int i, std::uint64_t seed, cudaStream_t s) { fill(i, seed, s); };
        r.output = [this](int i) { return std::pair<void*, std::size_t>{q[i].data(), q[i].bytes()}; };
        r.verify = [this](int i, const void* out) {
            separate(i, q_ref.data(), nullptr);
            const DeviceDiff d = compare_bits_device(out, q_ref.data(), count(), 1);
            if (d.count == 0) return std::string();
            return "against the baseline chain on its data: " + std::to_string(d.count) + " of " +
                   std::to_string(count()) + " elements differ; first at index " + std::to_string(*d.first);
        };
        return r;
    }
};

double model_peak(const models::ChainSplit& split, std::size_t rows) {
    const auto chain = models::swiglu_chain(static_cast<std::int64_t>(rows), static_cast<std::int64_t>(ffn_width()), 2, 1);
    return models::chain_cost(chain, split).peak_bytes;
}

// A host path run through a fresh ledger on copies of the case's inputs.
struct LedgerRun {
    std::size_t peak = 0, live_count = 0, live = 0;
    std::vector<std::uint8_t> q;
    bool returned = false;
};

template <typename Path>
LedgerRun run_path(const Case& c, Path path) {
    const std::size_t n = c.count();
    MemoryLedger ledger;
    auto* g = static_cast<bf16*>(ledger.allocate(n * sizeof(bf16)));
    auto* u = static_cast<bf16*>(ledger.allocate(n * sizeof(bf16)));
    CUDA_CHECK(cudaMemcpy(g, c.g.data(), n * sizeof(bf16), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(u, c.u.data(), n * sizeof(bf16), cudaMemcpyDeviceToDevice));
    std::uint8_t* q = path(ledger, g, u, c.rows, c.cols, kFusionScale, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    LedgerRun run{ledger.peak_bytes(), ledger.live_count(), ledger.live_bytes(), {}, q != nullptr};
    if (q != nullptr) {
        run.q.resize(n);
        CUDA_CHECK(cudaMemcpy(run.q.data(), q, n, cudaMemcpyDeviceToHost));
    }
    return run;
}

CorrectnessResult check_memory(Context& ctx, const Shape& m1024, bool all_fused) {
    const Case& c = get_case(ctx, m1024);
    const LedgerRun base = run_path(c, &chain_separate);
    const LedgerRun mine = all_fused ? run_path(c, &chain_all_fused) : run_path(c, &chain_fused_silu_mul);
    const double expected = model_peak(all_fused ? models::all_fused(3) : models::ChainSplit{2, 1}, c.rows);
    const double separate_model = model_peak(models::all_separate(3), c.rows);
    CorrectnessResult r;
    r.details = {{"peak_bytes", mine.peak}, {"model_peak_bytes", expected}, {"separate_peak_bytes", base.peak},
                 {"separate_model_peak_bytes", separate_model}};
    if (!mine.returned) {
        r.message = "the host path returned no Q";
        r.hint = "allocate Q through the ledger, run the chain, release what is used up, return Q";
        return r;
    }
    r.passed = static_cast<double>(mine.peak) == expected && mine.live_count == 1 && mine.live == c.count() &&
               mine.q == c.q_base;
    r.message = strprintf("peak %.1f MiB, model %.1f MiB (separate chain: %.1f MiB, model %.1f MiB); left allocated: "
                          "%zu tensor(s), %.1f MiB",
                          mine.peak / kMiB, expected / kMiB, base.peak / kMiB, separate_model / kMiB, mine.live_count,
                          mine.live / kMiB) +
                (mine.q == c.q_base ? "" : "; Q differs from the baseline's");
    if (mine.live_count != 1) r.hint = "release every tensor once used up: only Q may remain";
    else if (static_cast<double>(mine.peak) > expected)
        r.hint = "release each input as soon as its last step is done, and allocate an output just before its step";
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    const std::vector<Shape> all = shapes(lab);
    for (const Shape& s : all)
        lab.correctness("correct.silu_mul." + s.tag, "(a) SiLU⊙U, " + s.title, 3,
                        [s](Context& ctx) { return check_fused_silu_mul(ctx, s); });
    for (const Shape& s : all)
        lab.correctness("correct.all_fused." + s.tag, "(b) SiLU⊙U→FP8, " + s.title, 3,
                        [s](Context& ctx) { return check_all_fused(ctx, s); });
    const Shape m1024 = all[3], m8192 = all[4];
    lab.correctness("launches.silu_mul", "(a) chain in 2 kernel launches", 3,
                    [m1024](Context& ctx) { return check_launches(ctx, m1024, false); });
    lab.correctness("launches.all_fused", "(b) chain in 1 kernel launch", 3,
                    [m1024](Context& ctx) { return check_launches(ctx, m1024, true); });
    lab.correctness("memory.silu_mul", "(a) peak memory, M = 1024", 3,
                    [m1024](Context& ctx) { return check_memory(ctx, m1024, false); });
    lab.correctness("memory.all_fused", "(b) peak memory, M = 1024", 3,
                    [m1024](Context& ctx) { return check_memory(ctx, m1024, true); });

    // The byte model says 156/60 = 2.6x; the plain baseline makes the reference measure about 5x on an H200.
    // The bars sit below the model so that any correct fused kernel clears them; efficiency is graded below.
    lab.reference("separate", [m1024](Context& ctx) {
        TimedSets sets(m1024, ctx.seed_for("lab05 reference m1024"));
        return reference_alone("the three-kernel chain", [&](int i, cudaStream_t s) { sets.separate(i, sets.q_ref.data(), s); },
                               2, "reference alone: lab05 separate chain");
    });
    const PerfSpec speedup{.requires_check = "correct.all_fused.m1024", .pass_bar = 1.8, .full_bar = 2.2, .unit = "x baseline",
                           .reference = "separate"};
    lab.performance("perf.speedup_m1024", "(b) vs 3 kernels, M = 1024", 13, speedup, [m1024](Context& ctx) {
        TimedSets sets(m1024, ctx.seed_for("lab05 timed m1024"));
        const SetEnqueue separate = [&](int i, cudaStream_t s) { sets.separate(i, sets.q_ref.data(), s); };
        const auto chain = models::swiglu_chain(static_cast<std::int64_t>(sets.rows), static_cast<std::int64_t>(sets.cols), 2, 1);
        const double model = models::chain_cost(chain, models::all_separate(3)).total_bytes /
                             models::chain_cost(chain, models::all_fused(3)).total_bytes;
        PerfResult r = speedup_over(ctx, separate, sets.rotation(), 5.0 * double(sets.count()), "lab05 all fused vs separate");
        // Not graded: (a) with the separate quantization, against the same three kernels.
        const Case& c = get_case(ctx, m1024);
        ChainPaths paths(c);
        const AbResult two = time_ab([&](cudaStream_t s) { paths.separate(s); }, [&](cudaStream_t s) { paths.silu_mul(s); },
                                     grading_timing("lab05 fused SiLU*U vs separate"));
        r.details["model_ratio"] = model;
        r.details["fused_silu_mul_speedup"] = two.ratio;
        r.message += strprintf("; the model's byte ratio is %.2fx; (a) with the separate quantization: %.2fx", model,
                               two.ratio);
        return r;
    });
    // The reference reaches about 0.93 of copy bandwidth on an H200.
    const double bytes_m8192 = 5.0 * double(m8192.rows * m8192.cols);  // read G and U (2 B each), write Q (1 B)
    lab.reference("copy", copy_reference(bytes_m8192));
    const PerfSpec bw{.requires_check = "correct.all_fused.m8192", .pass_bar = 0.6, .full_bar = 0.8, .unit = "of copy BW",
                      .reference = "copy"};
    lab.performance("perf.copy_fraction_m8192", "(b) bandwidth, M = 8192 (vs copy)", 13, bw, [m8192, bytes_m8192](Context& ctx) {
        TimedSets sets(m8192, ctx.seed_for("lab05 timed m8192"));
        return fraction_of_copy_bandwidth(ctx, sets.rotation(), bytes_m8192, "lab05 all fused M=8192");
    });
}
