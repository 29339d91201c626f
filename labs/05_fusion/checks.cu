// FROZEN: do not edit. Lab 05's graded checks: bit-identity with the baseline chain and agreement with
// a double-precision CPU reference, launch counts from a captured CUDA graph, peak memory of the host
// paths against the model, and speed measured in the same run.
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fusion.hpp"
#include "grader/gpu_checks.hpp"
#include "grader/lab.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/models/fusion.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"

using namespace gpulab;
using namespace gpulab::grader;
using bf16 = __nv_bfloat16;

namespace {

constexpr std::size_t kWidth = 12288;  // Qwen3-8B FFN width
constexpr float kInputRange = 3.0f;    // G, U uniform in [-3, 3): |Z / scale| reaches past 448 (saturation)

struct Shape {
    std::size_t rows, cols;
    const char* tag;
    const char* title;
};
// M = 1 is decode; 7 · 4097 = 28679 elements leaves a tail of 7 after the last 16-byte group.
const Shape kShapes[] = {{1, kWidth, "m1", "M = 1 (decode)"},     {7, kWidth, "m7", "M = 7"},
                         {1000, kWidth, "m1000", "M = 1000"},     {1024, kWidth, "m1024", "M = 1024"},
                         {8192, kWidth, "m8192", "M = 8192"},     {7, 4097, "odd_n", "M = 7, N = 4097"}};

// Inputs of one shape and the baseline chain's outputs, computed once per run.
struct Case {
    std::size_t rows = 0, cols = 0;
    DeviceBuffer<std::uint16_t> g, u;
    std::vector<std::uint16_t> hg, hu, z_base;
    std::vector<std::uint8_t> q_base;
    [[nodiscard]] std::size_t count() const { return rows * cols; }
    [[nodiscard]] const bf16* dg() const { return reinterpret_cast<const bf16*>(g.data()); }
    [[nodiscard]] const bf16* du() const { return reinterpret_cast<const bf16*>(u.data()); }
};

// The chain run three ways on one case, each enqueued on a given stream, over its own scratch T and Z and
// an output Q: the baseline's three kernels, (a) SiLU⊙U fused then the quantization, (b) one kernel.
struct ChainPaths {
    const Case& c;
    DeviceBuffer<std::uint16_t> t, z;
    DeviceBuffer<std::uint8_t> q;
    explicit ChainPaths(const Case& c_) : c(c_), t(c_.count()), z(c_.count()), q(c_.count()) {}
    bf16* tz() { return reinterpret_cast<bf16*>(t.data()); }
    bf16* zz() { return reinterpret_cast<bf16*>(z.data()); }
    void separate(cudaStream_t s) {
        launch_silu(c.dg(), tz(), c.count(), s);
        launch_mul(tz(), c.du(), zz(), c.count(), s);
        launch_quantize(zz(), q.data(), c.count(), kFusionScale, s);
    }
    void silu_mul(cudaStream_t s) {
        launch_silu_mul(c.dg(), c.du(), zz(), c.rows, c.cols, s);
        launch_quantize(zz(), q.data(), c.count(), kFusionScale, s);
    }
    void all_fused(cudaStream_t s) { launch_silu_mul_quantize(c.dg(), c.du(), q.data(), c.rows, c.cols, kFusionScale, s); }
};

Case& get_case(Context& ctx, const Shape& s) {
    static std::map<std::string, std::unique_ptr<Case>> cases;
    auto& slot = cases[s.tag];
    if (slot) return *slot;
    auto c = std::make_unique<Case>();
    c->rows = s.rows;
    c->cols = s.cols;
    const std::size_t n = c->count();
    const std::uint64_t seed = ctx.seed_for(std::string("lab05 inputs ") + s.tag);
    c->g = DeviceBuffer<std::uint16_t>(n);
    c->u = DeviceBuffer<std::uint16_t>(n);
    fill_uniform_bf16_device(c->g.data(), n, seed, -kInputRange, kInputRange);
    fill_uniform_bf16_device(c->u.data(), n, seed + 1, -kInputRange, kInputRange);
    c->hg.resize(n);
    c->hu.resize(n);
    fill_uniform_bf16(c->hg, seed, -kInputRange, kInputRange);
    fill_uniform_bf16(c->hu, seed + 1, -kInputRange, kInputRange);
    ChainPaths baseline(*c);
    baseline.separate(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    c->z_base = to_host(baseline.z);
    c->q_base = to_host(baseline.q);
    slot = std::move(c);
    return *slot;
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
    std::vector<double> ref, got_wide;
    std::vector<Raw> got;
    ref.reserve(rows.size() * c.cols);
    got.reserve(rows.size() * c.cols);
    for (std::size_t r : rows) {
        for (std::size_t j = 0; j < c.cols; ++j) {
            const std::size_t i = r * c.cols + j;
            const double g = bf16_bits_to_float(c.hg[i]);
            const double u = bf16_bits_to_float(c.hu[i]);
            double z = models::silu(g) * u;
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

bool inputs_unchanged(const Case& c) { return to_host(c.g) == c.hg && to_host(c.u) == c.hu; }

const char* kBitsHint =
    "compute each element with fusion::silu_step, then fusion::mul_step (T is still rounded to BF16), then "
    "fusion::quantize_step; fusing must not change the arithmetic";

template <typename Raw>
CorrectnessResult judge(const Case& c, const std::vector<Raw>& out, const std::vector<Raw>& base, bool quantize) {
    const TileLayout flat{1, c.count(), 1, 8};  // a flat walk: the tail is the last count % 8 elements
    const CompareReport bits = compare_bits(std::span<const Raw>(out), std::span<const Raw>(base), flat);
    CorrectnessResult r;
    if (!bits.passed()) {
        r = to_result(bits, "bitwise against the baseline chain");
        r.message = "not bit-identical to the baseline chain: " + bits.describe();
        if (r.hint.empty() || bits.unwritten_count == 0) r.hint = bits.hint().empty() ? kBitsHint : bits.hint();
        return r;
    }
    const CompareReport ref = against_reference(c, out, quantize);
    r = to_result(ref, quantize ? "against the CPU reference, one FP8 step" : "against the CPU reference, one BF16 step");
    if (r.passed) r.message = "bit-identical to the baseline chain; " + ref.describe() + " of the CPU reference (" +
                             std::string(quantize ? "one FP8 step" : "one BF16 step") + ")";
    if (r.passed && !inputs_unchanged(c)) {
        r.passed = false;
        r.message = "the inputs G and U were modified";
        r.hint = "write only the output";
    }
    return r;
}

CorrectnessResult check_fused_silu_mul(Context& ctx, const Shape& s) {
    Case& c = get_case(ctx, s);
    DeviceBuffer<std::uint16_t> z(c.count());
    z.poison();
    launch_silu_mul(c.dg(), c.du(), reinterpret_cast<bf16*>(z.data()), c.rows, c.cols, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return judge(c, to_host(z), c.z_base, false);
}

CorrectnessResult check_all_fused(Context& ctx, const Shape& s) {
    Case& c = get_case(ctx, s);
    DeviceBuffer<std::uint8_t> q(c.count());
    q.poison();
    launch_silu_mul_quantize(c.dg(), c.du(), q.data(), c.rows, c.cols, kFusionScale, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return judge(c, to_host(q), c.q_base, true);
}

// Captures `enqueue` into a CUDA graph and counts its kernel nodes; replays it once.
int captured_kernels(const std::function<void(cudaStream_t)>& enqueue) {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    std::string capture_error;
    try {
        enqueue(s);
    } catch (const std::exception& e) {
        capture_error = e.what();
    }
    const cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (!capture_error.empty() || end != cudaSuccess) {
        (void)cudaGetLastError();
        if (graph) (void)cudaGraphDestroy(graph);
        (void)cudaStreamDestroy(s);
        throw std::runtime_error("stream capture failed (" + (capture_error.empty() ? std::string(cudaGetErrorName(end)) : capture_error) +
                                 "): a launcher must only enqueue work on the stream it is given — no synchronisation, "
                                 "no other stream");
    }
    std::size_t n = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
    int kernels = 0;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeKernel) ++kernels;
    }
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaStreamDestroy(s));
    return kernels;
}

const Shape& shape(const char* tag) {
    for (const Shape& s : kShapes)
        if (std::string(s.tag) == tag) return s;
    throw std::logic_error("no shape " + std::string(tag));
}

CorrectnessResult check_launches(Context& ctx, bool all_fused) {
    const Case& c = get_case(ctx, shape("m1024"));
    ChainPaths paths(c);
    const int separate = captured_kernels([&](cudaStream_t s) { paths.separate(s); });
    paths.q.poison();
    const int expected = all_fused ? 1 : 2;
    const int got = captured_kernels([&](cudaStream_t s) { all_fused ? paths.all_fused(s) : paths.silu_mul(s); });
    CorrectnessResult r;
    r.details = {{"kernels_separate", separate}, {"kernels", got}, {"expected", expected}};
    const bool same = to_host(paths.q) == c.q_base;
    r.passed = got == expected && same;
    r.message = "captured graph: " + std::to_string(got) + " kernel node(s), expected " + std::to_string(expected) +
                " (the baseline chain: " + std::to_string(separate) + ")" +
                (same ? "; its replay gives the baseline's Q" : "; its replay does NOT give the baseline's Q");
    if (got != expected) r.hint = all_fused ? "the fully fused chain is one kernel launch" : "SiLU⊙U is one launch, quantization another";
    return r;
}

double model_peak(const models::ChainSplit& split, std::size_t rows) {
    return models::chain_cost(models::swiglu_chain(static_cast<std::int64_t>(rows), kWidth, 2, 1), split).peak_bytes;
}

CorrectnessResult check_memory(Context& ctx, bool all_fused) {
    Case& c = get_case(ctx, shape("m1024"));
    const std::size_t n = c.count();
    auto run = [&](auto path, std::size_t& peak, std::size_t& live_count, std::size_t& live, std::vector<std::uint8_t>& out) {
        MemoryLedger ledger;
        auto* g = static_cast<bf16*>(ledger.allocate(n * 2));
        auto* u = static_cast<bf16*>(ledger.allocate(n * 2));
        CUDA_CHECK(cudaMemcpy(g, c.g.data(), n * 2, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpy(u, c.u.data(), n * 2, cudaMemcpyDeviceToDevice));
        std::uint8_t* q = path(ledger, g, u, c.rows, c.cols, kFusionScale, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        peak = ledger.peak_bytes();
        live_count = ledger.live_count();
        live = ledger.live_bytes();
        if (q != nullptr) {
            out.resize(n);
            CUDA_CHECK(cudaMemcpy(out.data(), q, n, cudaMemcpyDeviceToHost));
        }
        return q != nullptr;
    };
    std::size_t base_peak = 0, base_count = 0, base_live = 0, peak = 0, live_count = 0, live = 0;
    std::vector<std::uint8_t> base_q, q;
    run(&chain_separate, base_peak, base_count, base_live, base_q);
    const bool returned = all_fused ? run(&chain_all_fused, peak, live_count, live, q)
                                    : run(&chain_fused_silu_mul, peak, live_count, live, q);
    const double expected = model_peak(all_fused ? models::all_fused(3) : models::ChainSplit{2, 1}, c.rows);
    const double separate_model = model_peak(models::all_separate(3), c.rows);
    const double mib = 1024.0 * 1024.0;
    char buf[512];
    std::snprintf(buf, sizeof buf, "peak %.1f MiB, model %.1f MiB (separate chain: %.1f MiB, model %.1f MiB); "
                  "left allocated: %zu tensor(s), %.1f MiB", peak / mib, expected / mib, base_peak / mib,
                  separate_model / mib, live_count, live / mib);
    CorrectnessResult r;
    r.details = {{"peak_bytes", peak}, {"model_peak_bytes", expected}, {"separate_peak_bytes", base_peak},
                 {"separate_model_peak_bytes", separate_model}};
    if (!returned) {
        r.message = "the host path returned no Q";
        r.hint = "allocate Q through the ledger, run the chain, release what is used up, return Q";
        return r;
    }
    r.passed = static_cast<double>(peak) == expected && live_count == 1 && live == n && q == c.q_base;
    r.message = std::string(buf) + (q == c.q_base ? "" : "; Q differs from the baseline's");
    if (live_count != 1) r.hint = "release every tensor once used up: only Q may remain";
    else if (static_cast<double>(peak) > expected) r.hint = "release each input as soon as its last step is done, and allocate an output just before its step";
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    for (const Shape& s : kShapes) {
        lab.correctness(std::string("correct.silu_mul.") + s.tag, std::string("(a) SiLU⊙U, ") + s.title, 3,
                        [&s](Context& ctx) { return check_fused_silu_mul(ctx, s); });
    }
    for (const Shape& s : kShapes) {
        lab.correctness(std::string("correct.all_fused.") + s.tag, std::string("(b) SiLU⊙U→FP8, ") + s.title, 3,
                        [&s](Context& ctx) { return check_all_fused(ctx, s); });
    }
    lab.correctness("launches.silu_mul", "(a) chain in 2 kernel launches", 4,
                    [](Context& ctx) { return check_launches(ctx, false); });
    lab.correctness("launches.all_fused", "(b) chain in 1 kernel launch", 4,
                    [](Context& ctx) { return check_launches(ctx, true); });
    lab.correctness("memory.silu_mul", "(a) peak memory, M = 1024", 3, [](Context& ctx) { return check_memory(ctx, false); });
    lab.correctness("memory.all_fused", "(b) peak memory, M = 1024", 3, [](Context& ctx) { return check_memory(ctx, true); });

    // The byte model says 156/60 = 2.6x; the plain baseline makes the reference measure about 5x on an H200.
    // The bars sit below the model so that any correct fused kernel clears them; efficiency is graded below.
    const PerfSpec speedup{.requires_check = "correct.all_fused.m1024", .pass_bar = 1.8, .full_bar = 2.2, .unit = "x baseline"};
    lab.performance("perf.speedup_m1024", "(b) vs 3 kernels, M = 1024", 15, speedup, [](Context& ctx) {
        const Case& c = get_case(ctx, shape("m1024"));
        const std::size_t n = c.count();
        ChainPaths paths(c);
        const Enqueue separate = [&](cudaStream_t s) { paths.separate(s); };
        const Enqueue fused = [&](cudaStream_t s) { paths.all_fused(s); };
        const Enqueue fused2 = [&](cudaStream_t s) { paths.silu_mul(s); };
        const auto chain = models::swiglu_chain(static_cast<std::int64_t>(c.rows), kWidth, 2, 1);
        const double model = models::chain_cost(chain, models::all_separate(3)).total_bytes /
                             models::chain_cost(chain, models::all_fused(3)).total_bytes;
        PerfResult r = speedup_over(separate, fused, 5.0 * double(n), "lab05 all fused vs separate");
        const AbResult two = time_ab(separate, fused2, grading_timing("lab05 fused SiLU*U vs separate"));
        r.details["model_ratio"] = model;
        r.details["fused_silu_mul_speedup"] = two.ratio;
        char buf[160];
        std::snprintf(buf, sizeof buf, "; the model's byte ratio is %.2fx; (a) with the separate quantization: %.2fx",
                      model, two.ratio);
        r.message += buf;
        return r;
    });
    // The reference reaches about 0.93 of copy bandwidth on an H200.
    const PerfSpec bw{.requires_check = "correct.all_fused.m8192", .pass_bar = 0.6, .full_bar = 0.8, .unit = "of copy BW"};
    lab.performance("perf.copy_fraction_m8192", "(b) bandwidth, M = 8192 (vs copy)", 15, bw, [](Context& ctx) {
        Case& c = get_case(ctx, shape("m8192"));
        DeviceBuffer<std::uint8_t> q(c.count());
        const double bytes = 5.0 * double(c.count());  // read G and U (2 B each), write Q (1 B)
        return fraction_of_copy_bandwidth(
            [&](cudaStream_t s) { launch_silu_mul_quantize(c.dg(), c.du(), q.data(), c.rows, c.cols, kFusionScale, s); },
            bytes, "lab05 all fused M=8192");
    });
}
