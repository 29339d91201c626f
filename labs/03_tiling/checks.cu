// FROZEN: do not edit. Lab 03's graded checks: every variant on shapes that are not multiples of any
// tile against a double-precision CPU reference, the Qwen3-8B FFN shape against cuBLAS and sampled rows
// of the CPU reference, the fused epilogue bit-identical to SiLU applied to your v3's output, and speed
// ratios measured in the same run (v1, v2 over the naive baseline; v3 as a fraction of cuBLAS).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "grader/lab.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/models/fusion.hpp"
#include "labs/models/tiling.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"
#include "tiling.hpp"

using namespace gpulab;
using namespace gpulab::grader;
using bf16 = __nv_bfloat16;

namespace {

// A and W are uniform in [-1, 1): an output is a sum of K products with mean 0 and variance 1/9, so at
// K = 4096 its standard deviation is sqrt(4096 / 9) ≈ 21.
constexpr float kInputRange = 1.0f;

// Tolerances, |out − ref| ≤ atol + rtol·|ref| (the handout derives them):
// against the exact product, one BF16 rounding of the output (half a BF16 step: 2^-8 relative) plus the
// FP32 accumulation error (at most K · 2^-24 · 64 = 2^-6 while partial sums stay below 64, three
// standard deviations; in practice ~100× less);
const Tolerance kGemmTol{std::ldexp(1.0, -6), std::ldexp(1.0, -8)};
// against cuBLAS, both sides carry those errors;
const Tolerance kCublasTol{std::ldexp(1.0, -5), std::ldexp(1.0, -7)};
// the fused epilogue against SiLU of the exact product: SiLU passes the GEMM's error on with a slope of
// at most 1.1 (and |x·SiLU'(x)| ≤ 0.28 for x < 0), then rounds once more to BF16.
const Tolerance kSiluTol{std::ldexp(1.0, -5), std::ldexp(1.0, -7)};

struct Shape {
    int m, n, k;
    const char* tag;
    const char* title;
};

// Not multiples of any tile. v1 and v2 take any N: 1001 leaves a tail of 1 in every tile width and
// breaks 16-byte alignment of W's rows; v3 and the fused epilogue need N % 8 == 0 and K % 8 == 0: 1000
// is a multiple of 8 but not of 16. k_tail makes the last K step partial (K = 1001 or 1000).
const Shape kAnyN[] = {{1, 1001, 4096, "m1", "M=1 N=1001"},
                       {7, 1001, 4096, "m7", "M=7 N=1001"},
                       {65, 1001, 4096, "m65", "M=65 N=1001"},
                       {1000, 1001, 4096, "m1000", "M=1000 N=1001"},
                       {65, 1001, 1001, "k_tail", "M=65 N=K=1001"}};
const Shape kN8[] = {{1, 1000, 4096, "m1", "M=1 N=1000"},
                     {7, 1000, 4096, "m7", "M=7 N=1000"},
                     {65, 1000, 4096, "m65", "M=65 N=1000"},
                     {1000, 1000, 4096, "m1000", "M=1000 N=1000"},
                     {65, 1000, 1000, "k_tail", "M=65 N=K=1000"}};
// The Qwen3-8B FFN projection of the chapter's running example (models::running_example_gemm).
const Shape kFull{1024, 12288, 4096, "full", "full shape vs cuBLAS"};

enum class Variant { v1, v2, v3, silu };

using Launcher = void (*)(const bf16*, const bf16*, bf16*, int, int, int, cudaStream_t);

Launcher launcher(Variant v) {
    switch (v) {
        case Variant::v1: return &launch_gemm_v1;
        case Variant::v2: return &launch_gemm_v2;
        case Variant::v3: return &launch_gemm_v3;
        case Variant::silu: return &launch_gemm_silu;
    }
    return nullptr;
}

// Tile sizes of the handout's suggested path: the compare report uses them to say whether errors sit
// in the last partial tile (a missing bounds guard) or on tile borders.
TileLayout layout_for(Variant v, const Shape& s) {
    const std::size_t m = s.m, n = s.n;
    switch (v) {
        case Variant::v1: return {m, n, 64, 64};
        case Variant::v2: return {m, n, 128, 128};
        default: return {m, n, 128, 256};
    }
}

bool is_full(const Shape& s) { return s.m == kFull.m && s.n == kFull.n && s.k == kFull.k; }

// Rows of the full shape compared with the CPU reference (a row costs K·N = 50M multiply-adds): the
// first and last, both sides of tile borders, and two chosen by the seed.
std::vector<std::size_t> sampled_rows(Context& ctx) {
    std::vector<std::size_t> rows{0, 1, 63, 64, 127, 128, 1023};
    const std::uint64_t seed = ctx.seed_for("lab03 sampled rows");
    rows.push_back(static_cast<std::size_t>(random_bits(seed, 0) % kFull.m));
    rows.push_back(static_cast<std::size_t>(random_bits(seed, 1) % kFull.m));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

// Exact A·W on the given rows, in double precision (products of two BF16 values are exact in double;
// the sums of 4096 of them lose nothing that matters at BF16 resolution). Rows are split over threads.
std::vector<double> cpu_reference(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& w, int n,
                                  int k, const std::vector<std::size_t>& rows) {
    std::vector<double> out(rows.size() * n, 0.0);
    const auto work = [&](std::size_t first, std::size_t last) {
        for (std::size_t ri = first; ri < last; ++ri) {
            double* o = &out[ri * n];
            const std::uint16_t* arow = &a[rows[ri] * k];
            for (int kk = 0; kk < k; ++kk) {
                const double av = bf16_bits_to_float(arow[kk]);
                if (av == 0.0) continue;
                const std::uint16_t* wk = &w[static_cast<std::size_t>(kk) * n];
                for (int j = 0; j < n; ++j) o[j] += av * static_cast<double>(bf16_bits_to_float(wk[j]));
            }
        }
    };
    const std::size_t threads =
        std::max<std::size_t>(1, std::min<std::size_t>({rows.size(), std::thread::hardware_concurrency(), 16}));
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back(work, rows.size() * t / threads, rows.size() * (t + 1) / threads);
    for (auto& th : pool) th.join();
    return out;
}

// Inputs of one shape, the exact product on the reference rows, and (full shape) cuBLAS's C.
struct Case {
    Shape shape{};
    std::vector<std::uint16_t> ha, hw;
    DeviceBuffer<std::uint16_t> a, w;
    std::vector<std::size_t> ref_rows;
    std::vector<double> ref;               // ref_rows.size() × N
    std::vector<std::uint16_t> cublas;     // M × N, full shape only
    [[nodiscard]] const bf16* da() const { return reinterpret_cast<const bf16*>(a.data()); }
    [[nodiscard]] const bf16* dw() const { return reinterpret_cast<const bf16*>(w.data()); }
    [[nodiscard]] std::size_t outputs() const { return std::size_t(shape.m) * shape.n; }
};

Case& get_case(Context& ctx, const Shape& s) {
    static std::map<std::string, std::unique_ptr<Case>> cases;
    const std::string key = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    auto& slot = cases[key];
    if (slot) return *slot;
    auto c = std::make_unique<Case>();
    c->shape = s;
    c->ha.resize(std::size_t(s.m) * s.k);
    c->hw.resize(std::size_t(s.k) * s.n);
    fill_uniform_bf16(c->ha, ctx.seed_for("lab03 A " + key), -kInputRange, kInputRange);
    fill_uniform_bf16(c->hw, ctx.seed_for("lab03 W " + key), -kInputRange, kInputRange);
    c->a = to_device(c->ha);
    c->w = to_device(c->hw);
    if (is_full(s)) {
        c->ref_rows = sampled_rows(ctx);
        DeviceBuffer<std::uint16_t> out(c->outputs());
        out.poison();
        launch_gemm_cublas(c->da(), c->dw(), reinterpret_cast<bf16*>(out.data()), s.m, s.n, s.k, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        c->cublas = to_host(out);
    } else {
        for (int r = 0; r < s.m; ++r) c->ref_rows.push_back(static_cast<std::size_t>(r));
    }
    c->ref = cpu_reference(c->ha, c->hw, s.n, s.k, c->ref_rows);
    slot = std::move(c);
    return *slot;
}

std::vector<std::uint16_t> run(const Case& c, Launcher f) {
    DeviceBuffer<std::uint16_t> out(c.outputs());
    out.poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    f(c.da(), c.dw(), reinterpret_cast<bf16*>(out.data()), c.shape.m, c.shape.n, c.shape.k, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return to_host(out);
}

// The output on the reference rows against the exact product (or SiLU of it).
CompareReport against_reference(const Case& c, const std::vector<std::uint16_t>& out, bool silu, Tolerance tol,
                                TileLayout tiles) {
    const std::size_t n = c.shape.n;
    std::vector<std::uint16_t> got;
    got.reserve(c.ref_rows.size() * n);
    for (std::size_t r : c.ref_rows) got.insert(got.end(), out.begin() + r * n, out.begin() + (r + 1) * n);
    std::vector<double> ref = c.ref;
    if (silu)
        for (double& v : ref) v = models::silu(v);
    // Every row: the tile analysis applies. Sampled rows: rows of the layout are not rows of C.
    const TileLayout layout = c.ref_rows.size() == std::size_t(c.shape.m) ? tiles : TileLayout{c.ref_rows.size(), n, 0, 0};
    return compare_bf16(got, ref, tol, layout);
}

std::string fmt_tol(const Tolerance& t) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "atol 2^%d, rtol 2^%d", static_cast<int>(std::lround(std::log2(t.atol))),
                  static_cast<int>(std::lround(std::log2(t.rtol))));
    return buf;
}

bool inputs_unchanged(const Case& c) { return to_host(c.a) == c.ha && to_host(c.w) == c.hw; }

CorrectnessResult finish(CorrectnessResult r, const Case& c) {
    if (r.passed && !inputs_unchanged(c)) {
        r.passed = false;
        r.message = "the inputs A and W were modified";
        r.hint = "write only the output";
    }
    return r;
}

CorrectnessResult check_gemm(Context& ctx, const Shape& s, Variant v) {
    const Case& c = get_case(ctx, s);
    const std::vector<std::uint16_t> out = run(c, launcher(v));
    const TileLayout tiles = layout_for(v, s);
    std::string prefix;
    if (is_full(s)) {
        std::vector<double> cublas(c.cublas.size());
        std::transform(c.cublas.begin(), c.cublas.end(), cublas.begin(),
                       [](std::uint16_t b) { return static_cast<double>(bf16_bits_to_float(b)); });
        const CompareReport vs = compare_bf16(out, cublas, kCublasTol, tiles);
        if (!vs.passed()) {
            CorrectnessResult r = to_result(vs, "against cuBLAS");
            r.message = "differs from cuBLAS (" + fmt_tol(kCublasTol) + "): " + vs.describe();
            return r;
        }
        prefix = "matches cuBLAS on all " + std::to_string(out.size()) + " outputs (" + fmt_tol(kCublasTol) + "); ";
    }
    const CompareReport rep = against_reference(c, out, false, kGemmTol, tiles);
    CorrectnessResult r = to_result(rep, "against the double-precision CPU reference");
    const std::string rows = c.ref_rows.size() == std::size_t(s.m) ? "every row" : std::to_string(c.ref_rows.size()) + " sampled rows";
    r.message = prefix + rows + " against the CPU reference (" + fmt_tol(kGemmTol) + "): " + rep.describe();
    return finish(r, c);
}

CorrectnessResult check_silu(Context& ctx, const Shape& s) {
    const Case& c = get_case(ctx, s);
    const std::vector<std::uint16_t> y = run(c, &launch_gemm_silu);
    const TileLayout tiles = layout_for(Variant::silu, s);
    const CompareReport rep = against_reference(c, y, true, kSiluTol, tiles);
    const std::string rows = c.ref_rows.size() == std::size_t(s.m) ? "every row" : std::to_string(c.ref_rows.size()) + " sampled rows";
    CorrectnessResult r = to_result(rep, "against SiLU of the CPU reference");
    r.message = rows + " against SiLU(A·W) of the CPU reference (" + fmt_tol(kSiluTol) + "): " + rep.describe();
    if (!r.passed) return r;
    // Fusion must not change a bit: Y == launch_silu(launch_gemm_v3(A, W)).
    DeviceBuffer<std::uint16_t> c3(c.outputs()), y3(c.outputs());
    c3.poison();
    y3.poison();
    launch_gemm_v3(c.da(), c.dw(), reinterpret_cast<bf16*>(c3.data()), s.m, s.n, s.k, nullptr);
    launch_silu(reinterpret_cast<const bf16*>(c3.data()), reinterpret_cast<bf16*>(y3.data()), c.outputs(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::uint16_t> separate = to_host(y3);
    const CompareReport bits = compare_bits(std::span<const std::uint16_t>(y), std::span<const std::uint16_t>(separate), tiles);
    if (!bits.passed()) {
        r.passed = false;
        r.message = "close to SiLU(A·W), but not bit-identical to launch_silu applied to your launch_gemm_v3's C: " +
                    bits.describe();
        r.hint = "compute exactly v3's sums (same kernel, same K order), then store tiling::silu_epilogue(acc): the "
                 "accumulator is rounded to BF16 before SiLU, as when C goes through memory";
        return r;
    }
    r.message += "; bit-identical to launch_silu after launch_gemm_v3";
    return finish(r, c);
}

const char* variant_name(Variant v) {
    switch (v) {
        case Variant::v1: return "v1";
        case Variant::v2: return "v2";
        case Variant::v3: return "v3";
        case Variant::silu: return "silu";
    }
    return "";
}

std::string check_id(Variant v, const Shape& s) { return std::string("correct.") + variant_name(v) + "." + s.tag; }

double tflops(double ms) { return models::gemm_flop({kFull.m, kFull.k, kFull.n}) / (ms * 1e-3) / 1e12; }

// t(baseline) / t(variant) on the full shape, timed interleaved with the L2 flushed before each run.
PerfResult timed_ratio(Context& ctx, Launcher baseline, const char* baseline_name, Launcher variant, const char* label) {
    const Case& c = get_case(ctx, kFull);
    DeviceBuffer<std::uint16_t> out(c.outputs());
    auto* dc = reinterpret_cast<bf16*>(out.data());
    const Enqueue base = [&](cudaStream_t s) { baseline(c.da(), c.dw(), dc, c.shape.m, c.shape.n, c.shape.k, s); };
    const Enqueue work = [&](cudaStream_t s) { variant(c.da(), c.dw(), dc, c.shape.m, c.shape.n, c.shape.k, s); };
    // The floor: A and W read once and C written once (128 MiB) at the theoretical DRAM bandwidth.
    const double once = models::gemm_once_bytes({kFull.m, kFull.k, kFull.n});
    PerfResult r = speedup_over(base, work, once, label);
    const double t_work = r.details["work"]["median_ms"].get<double>();
    const double t_base = r.details["baseline"]["median_ms"].get<double>();
    r.details["tflops"] = tflops(t_work);
    r.details[std::string(baseline_name) + "_tflops"] = tflops(t_base);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.1f µs (%.1f TFLOP/s) vs %s %.1f µs (%.1f TFLOP/s), interleaved, L2 flushed",
                  t_work * 1e3, tflops(t_work), baseline_name, t_base * 1e3, tflops(t_base));
    r.message = buf;
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    const struct {
        Variant v;
        const char* title;
        const Shape* shapes;
    } variants[] = {{Variant::v1, "v1 smem tiles", kAnyN},
                    {Variant::v2, "v2 register tiles", kAnyN},
                    {Variant::v3, "v3 tensor cores", kN8},
                    {Variant::silu, "fused SiLU", kN8}};
    for (const auto& var : variants) {
        const Variant v = var.v;
        for (int i = 0; i < 5; ++i) {
            const Shape& s = var.shapes[i];
            lab.correctness(check_id(v, s), std::string(var.title) + ", " + s.title, 2, [v, &s](Context& ctx) {
                return v == Variant::silu ? check_silu(ctx, s) : check_gemm(ctx, s, v);
            });
        }
        lab.correctness(check_id(v, kFull), std::string(var.title) + ", " + kFull.title, 2, [v](Context& ctx) {
            return v == Variant::silu ? check_silu(ctx, kFull) : check_gemm(ctx, kFull, v);
        });
    }

    // Bars, set from the reference on an H200 (handout's results table, docs/performance-log.md): it
    // measures v1 2.4x and v2 6.7x over naive, v3 0.57 of cuBLAS. Each full bar sits well below that, so a
    // correct kernel of the handout's design clears it; each pass bar marks a real step (v1: tiles reuse
    // what the naive kernel fetches twice; v2: register tiles clearly beyond v1; v3: tensor cores
    // clearly beyond CUDA cores, which top out near 0.08 of cuBLAS BF16).
    const PerfSpec v1{.requires_check = check_id(Variant::v1, kFull), .pass_bar = 1.2, .full_bar = 1.5, .unit = "x naive"};
    lab.performance("perf.v1_speedup", "v1 speed-up over naive", 9, v1, [](Context& ctx) {
        return timed_ratio(ctx, &launch_gemm_naive, "naive", &launch_gemm_v1, "lab03 v1 vs naive");
    });
    const PerfSpec v2{.requires_check = check_id(Variant::v2, kFull), .pass_bar = 2.5, .full_bar = 4.0, .unit = "x naive"};
    lab.performance("perf.v2_speedup", "v2 speed-up over naive", 9, v2, [](Context& ctx) {
        return timed_ratio(ctx, &launch_gemm_naive, "naive", &launch_gemm_v2, "lab03 v2 vs naive");
    });
    const PerfSpec v3{.requires_check = check_id(Variant::v3, kFull), .pass_bar = 0.2, .full_bar = 0.4, .unit = "of cuBLAS"};
    lab.performance("perf.v3_cublas_fraction", "v3 fraction of cuBLAS", 17, v3, [](Context& ctx) {
        return timed_ratio(ctx, &launch_gemm_cublas, "cuBLAS", &launch_gemm_v3, "lab03 v3 vs cuBLAS");
    });
}
