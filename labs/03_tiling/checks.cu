// FROZEN: do not edit. Lab 03's graded checks: every variant on shapes that are not multiples of any
// tile (a fixed list plus two shapes drawn from the run's seed) against the expected values, computed in
// double precision on the CPU; the running example's shape (Qwen3-8B FFN, from the datasets) against cuBLAS
// and against the expected values on sampled rows; the fused epilogue bit-identical to SiLU applied to your
// v3's output and launched as one kernel; and speed ratios measured in the same run (v1, v2 over the naive
// baseline; v3 and v4 as fractions of cuBLAS, v4 also at the FFN's down projection). Part v4 (Hopper) is also
// run under compute-sanitizer, and SKIPPED with the reason on a GPU that is not of compute capability 9.0.
#include <algorithm>
#include <cmath>
#include <future>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/bf16.hpp"
#include "labs/compare.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/fusion.hpp"
#include "labs/models/tiling.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"
#include "labs/tma.hpp"
#include "tiling.hpp"

using namespace gpulab;
using namespace gpulab::grader;

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

using Launcher = void (*)(const bf16*, const bf16*, bf16*, int, int, int, cudaStream_t);

struct Shape {
    models::GemmShape g;  // M, K, N in the models' order
    std::string tag, title;
    [[nodiscard]] int m() const { return static_cast<int>(g.m); }
    [[nodiscard]] int n() const { return static_cast<int>(g.n); }
    [[nodiscard]] int k() const { return static_cast<int>(g.k); }
    [[nodiscard]] std::size_t outputs() const { return static_cast<std::size_t>(g.m * g.n); }
};

Shape shape(std::int64_t m, std::int64_t k, std::int64_t n, std::string tag, std::string title = "") {
    if (title.empty()) title = "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
    return {models::GemmShape{.m = m, .k = k, .n = n}, std::move(tag), std::move(title)};
}

// The Qwen3-8B FFN projection of the chapter's running example: 1024 × 4096 × 12288.
const Shape& full_shape() {
    static const Shape s{models::running_example_gemm(models::load_model_shape()), "full", "full shape vs cuBLAS"};
    return s;
}

// Shapes that are not multiples of any tile, and two drawn from the run's seed (a decode-sized M and a
// larger one). v1 and v2 take any N: 1001 leaves a tail of 1 in every tile width and breaks 16-byte
// alignment of W's rows; v3 and the fused epilogue need N % 8 == 0 and K % 8 == 0: 1000 is a multiple of
// 8 but not of 16. k_tail makes the last K step partial. Then the full shape.
std::vector<Shape> shapes(const Lab& lab, bool multiple_of_8) {
    const std::int64_t n = multiple_of_8 ? 1000 : 1001, step = multiple_of_8 ? 8 : 1;
    const std::string list = multiple_of_8 ? "n8" : "any";
    std::vector<Shape> out{shape(1, 4096, n, "m1"), shape(7, 4096, n, "m7"), shape(65, 4096, n, "m65"),
                           shape(1000, 4096, n, "m1000"), shape(65, n, n, "k_tail")};
    for (const auto& [tag, lo, hi] : {std::tuple{"drawn_small", 2, 16}, std::tuple{"drawn", 17, 300}}) {
        const std::string salt = "lab03 " + list + " " + tag;
        const std::int64_t m = draw(lab.seed_for(salt + " m"), lo, hi);
        const std::int64_t dn = draw(lab.seed_for(salt + " n"), 1, 2048, step);
        const std::int64_t dk = draw(lab.seed_for(salt + " k"), 1, 2048, step);
        Shape s = shape(m, dk, dn, tag);
        s.title += " (drawn)";
        out.push_back(std::move(s));
    }
    out.push_back(full_shape());
    return out;
}

bool is_full(const Shape& s) { return s.tag == "full"; }

// Rows of the full shape compared with the expected values from the CPU (a row costs K·N = 50M multiply-adds): the
// first and last, both sides of tile borders, and two chosen by the seed.
std::vector<std::size_t> sampled_rows(Context& ctx, std::size_t m) {
    std::vector<std::size_t> rows{0, 1, 63, 64, 127, 128, m - 1};
    const std::uint64_t seed = ctx.seed_for("lab03 sampled rows");
    rows.push_back(static_cast<std::size_t>(random_bits(seed, 0) % m));
    rows.push_back(static_cast<std::size_t>(random_bits(seed, 1) % m));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

// Exact A·W on the given rows, in double precision (products of two BF16 values are exact in double;
// the sums of 4096 of them lose nothing that matters at BF16 resolution). Rows are split over threads.
std::vector<double> cpu_expected(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& w,
                                  const Shape& s, const std::vector<std::size_t>& rows) {
    const std::size_t n = s.g.n, k = s.g.k;
    std::vector<double> out(rows.size() * n, 0.0);
    const auto work = [&](std::size_t first, std::size_t last) {
        for (std::size_t ri = first; ri < last; ++ri) {
            double* o = &out[ri * n];
            const std::uint16_t* arow = &a[rows[ri] * k];
            for (std::size_t kk = 0; kk < k; ++kk) {
                const double av = bf16_bits_to_float(arow[kk]);
                if (av == 0.0) continue;
                const std::uint16_t* wk = &w[kk * n];
                for (std::size_t j = 0; j < n; ++j) o[j] += av * static_cast<double>(bf16_bits_to_float(wk[j]));
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

// Inputs of one shape, the exact product on the checked rows, and (full shape) cuBLAS's C.
struct Case {
    Shape shape;
    std::vector<std::uint16_t> ha, hw;
    DeviceBuffer<bf16> a, w;
    std::vector<std::size_t> ref_rows;
    std::vector<double> ref;             // ref_rows.size() × N
    std::vector<std::uint16_t> cublas;   // M × N, full shape only
    [[nodiscard]] bool every_row() const { return ref_rows.size() == static_cast<std::size_t>(shape.g.m); }
    // A graded launcher on a poisoned output, observed: @p seen receives what the call really ran.
    [[nodiscard]] std::vector<std::uint16_t> run(Launcher f, Observation& seen) const {
        return run_on_poisoned<bf16>(
            shape.outputs(), [&](bf16* out) { f(a.data(), w.data(), out, shape.m(), shape.n(), shape.k(), nullptr); },
            seen);
    }
    // cuBLAS's C, the grader's own expected output: never inside a GradedCall, so none of it counts as graded.
    [[nodiscard]] std::vector<std::uint16_t> expected_run(Launcher f) const {
        DeviceBuffer<bf16> out(shape.outputs());
        out.poison();
        f(a.data(), w.data(), out.data(), shape.m(), shape.n(), shape.k(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        return to_host_bits(out);
    }
};

const Case& get_case(Context& ctx, const Shape& s) {
    const std::string key = s.title + " " + std::to_string(s.g.m) + "x" + std::to_string(s.g.n) + "x" + std::to_string(s.g.k);
    return cached_case<Case>(key, [&] {
        auto c = std::make_unique<Case>();
        c->shape = s;
        c->ha.resize(static_cast<std::size_t>(s.g.m * s.g.k));
        c->hw.resize(static_cast<std::size_t>(s.g.k * s.g.n));
        fill_uniform_bf16(c->ha, ctx.seed_for("lab03 A " + key), -kInputRange, kInputRange);
        fill_uniform_bf16(c->hw, ctx.seed_for("lab03 W " + key), -kInputRange, kInputRange);
        c->a = to_device_bits(c->ha);
        c->w = to_device_bits(c->hw);
        if (is_full(s)) {
            c->ref_rows = sampled_rows(ctx, static_cast<std::size_t>(s.g.m));
            c->cublas = c->expected_run(&launch_gemm_cublas);
        } else {
            for (std::int64_t r = 0; r < s.g.m; ++r) c->ref_rows.push_back(static_cast<std::size_t>(r));
        }
        c->ref = cpu_expected(c->ha, c->hw, s, c->ref_rows);
        return c;
    });
}

// Tile sizes of the handout's suggested path: the compare report uses them to say whether errors sit
// in the last partial tile (a missing bounds guard) or on tile borders. Sampled rows are not rows of C:
// no tile analysis then.
TileLayout layout_for(const Case& c, std::size_t tile_rows, std::size_t tile_cols) {
    if (!c.every_row()) return {c.ref_rows.size(), static_cast<std::size_t>(c.shape.g.n), 0, 0};
    return {static_cast<std::size_t>(c.shape.g.m), static_cast<std::size_t>(c.shape.g.n), tile_rows, tile_cols};
}

std::string fmt_tol(const Tolerance& t) {
    return strprintf("atol 2^%d, rtol 2^%d", static_cast<int>(std::lround(std::log2(t.atol))),
                     static_cast<int>(std::lround(std::log2(t.rtol))));
}

// The output on the checked rows (every row, or the sampled rows of the full shape) against the exact
// product (or SiLU of it), with the rows, the tolerance and what was found in the message.
CorrectnessResult vs_expected(const Case& c, const std::vector<std::uint16_t>& out, bool silu, TileLayout tiles) {
    const Tolerance tol = silu ? kSiluTol : kGemmTol;
    const std::size_t n = c.shape.g.n;
    std::vector<std::uint16_t> got;
    got.reserve(c.ref_rows.size() * n);
    for (std::size_t row : c.ref_rows) got.insert(got.end(), out.begin() + row * n, out.begin() + (row + 1) * n);
    std::vector<double> ref = c.ref;
    if (silu)
        for (double& v : ref) v = models::silu(v);
    const CompareReport rep = compare_bf16(got, ref, tol, tiles);
    CorrectnessResult r = to_result(rep, silu ? "against SiLU of the expected values (FP64, CPU)" : "against the expected values (FP64, CPU)");
    r.message = (c.every_row() ? std::string("every row") : std::to_string(c.ref_rows.size()) + " sampled rows") +
                (silu ? " against SiLU(A·W) of the expected values (FP64, CPU; " : " against the expected values (FP64, CPU; ") + fmt_tol(tol) +
                "): " + rep.describe();
    return r;
}

// Every check of a variant ends here: the kernels its observed call ran (the call whose output was
// compared, at this shape) must be the student's own, and the inputs unchanged.
CorrectnessResult own_work(CorrectnessResult r, Context& ctx, const Case& c, const std::string& variant,
                           const Observation& seen) {
    r = require_own_kernels(std::move(r), ctx, variant, seen);
    return require_unchanged(std::move(r), {input("A", c.a, c.ha), input("W", c.w, c.hw)});
}

CorrectnessResult check_gemm(Context& ctx, const Shape& s, const std::string& variant, Launcher f, TileLayout tile) {
    const Case& c = get_case(ctx, s);
    Observation seen;
    const std::vector<std::uint16_t> out = c.run(f, seen);
    const TileLayout tiles = layout_for(c, tile.tile_rows, tile.tile_cols);
    std::string prefix;
    if (is_full(s)) {
        // Every element against cuBLAS: the usual verdict in one pass, the report (where the bad elements sit) only
        // when some are wrong.
        if (!bf16_within(out, c.cublas, kCublasTol)) {
            std::vector<double> cublas(c.cublas.size());
            std::transform(c.cublas.begin(), c.cublas.end(), cublas.begin(),
                           [](std::uint16_t b) { return static_cast<double>(bf16_bits_to_float(b)); });
            const TileLayout all_rows{static_cast<std::size_t>(s.g.m), static_cast<std::size_t>(s.g.n), tile.tile_rows,
                                      tile.tile_cols};
            const CompareReport vs = compare_bf16(out, cublas, kCublasTol, all_rows);
            if (!vs.passed()) {
                CorrectnessResult r = to_result(vs, "against cuBLAS");
                r.message = "differs from cuBLAS (" + fmt_tol(kCublasTol) + "): " + vs.describe();
                return own_work(std::move(r), ctx, c, variant, seen);
            }
        }
        prefix = "matches cuBLAS on all " + std::to_string(out.size()) + " outputs (" + fmt_tol(kCublasTol) + "); ";
    }
    CorrectnessResult r = vs_expected(c, out, false, tiles);
    r.message = prefix + r.message;
    return own_work(std::move(r), ctx, c, variant, seen);
}

CorrectnessResult check_silu(Context& ctx, const Shape& s) {
    const Case& c = get_case(ctx, s);
    Observation seen;
    const std::vector<std::uint16_t> y = c.run(&launch_gemm_silu, seen);
    const TileLayout tiles = layout_for(c, 128, 256);
    CorrectnessResult r = vs_expected(c, y, true, tiles);
    if (r.passed) {
        // Fusion must not change a bit: Y == launch_silu(launch_gemm_v3(A, W)). Your v3 runs as graded code;
        // the given SiLU kernel is the grader's.
        DeviceBuffer<bf16> c3(s.outputs()), out(s.outputs());
        c3.poison();
        out.poison();
        CUDA_CHECK(cudaDeviceSynchronize());
        {
            GradedCall graded;
            launch_gemm_v3(c.a.data(), c.w.data(), c3.data(), s.m(), s.n(), s.k(), nullptr);
        }
        launch_silu(c3.data(), out.data(), s.outputs(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<std::uint16_t> separate = to_host_bits(out);
        const CompareReport bits =
            compare_bits(std::span<const std::uint16_t>(y), std::span<const std::uint16_t>(separate), tiles);
        if (!bits.passed()) {
            r.passed = false;
            r.message = "close to SiLU(A·W), but not bit-identical to launch_silu applied to your launch_gemm_v3's C: " +
                        bits.describe();
            r.hint = "compute exactly v3's sums (same kernel, same K order), then store tiling::silu_epilogue(acc): the "
                     "accumulator is rounded to BF16 before SiLU, as when C goes through memory";
        } else {
            r.message += "; bit-identical to launch_silu after launch_gemm_v3";
        }
    }
    return own_work(std::move(r), ctx, c, "silu", seen);
}

// The fused epilogue, one real call observed (after one unobserved call: one-time setup is allowed there):
// exactly one kernel ran (graph launches' kernels counted), its Y is right, and C never went through memory —
// the call allocated nothing the size of C, and the graded code holds no memory (device, managed, mapped host,
// or its module's static __device__ data) the size of C. Run at the full shape, where C is 24 MiB: no honest
// kernel of the handout's design holds anything near that.
CorrectnessResult check_silu_launches(Context& ctx, const Shape& s) {
    const Case& c = get_case(ctx, s);
    if (CorrectnessResult r; skip_unobserved(r)) return r;
    {
        Observation setup;
        (void)c.run(&launch_gemm_silu, setup);
    }
    Observation seen;
    const std::vector<std::uint16_t> y = c.run(&launch_gemm_silu, seen);
    CorrectnessResult r = observed_kernel_count(seen, 1, "fuse the epilogue into your v3 kernel: one launch, C never stored");
    const CorrectnessResult out = vs_expected(c, y, true, layout_for(c, 128, 256));
    r.passed = r.passed && out.passed;
    r.message += "; its output: " + out.message;
    // C through memory: what the call allocated, and what the graded code holds (all kinds, static data apart).
    const std::uint64_t c_bytes = s.outputs() * sizeof(bf16);
    const Observation::Held during = seen.graded_memory();
    const MemoryHeld held = Observer::instance().memory_held();
    const auto kind = [&](const char* k) {
        const auto it = held.by_kind.find(k);
        return it == held.by_kind.end() ? std::uint64_t(0) : it->second;
    };
    const std::uint64_t static_bytes = kind("device_static"), dynamic_bytes = held.total - static_bytes;
    const auto mib = [](std::uint64_t b) { return strprintf("%.1f MiB", double(b) / double(1 << 20)); };
    std::string memory;
    if (during.peak >= c_bytes)
        memory = "the call allocated " + mib(during.peak) + " while it ran";
    else if (static_bytes >= c_bytes)
        memory = "your code's static __device__ data is " + mib(static_bytes);
    else if (dynamic_bytes >= c_bytes)
        memory = "your code holds " + mib(dynamic_bytes) + " of memory it allocated (device, managed or host)";
    r.details["memory"] = {{"c_bytes", c_bytes},          {"allocated_during_call", during.peak},
                           {"static_bytes", static_bytes}, {"held_bytes", dynamic_bytes},
                           {"held_by_kind", held.by_kind}};
    if (!memory.empty()) {
        if (r.passed) r.hint = "the fused kernel keeps each tile's sums in registers and stores only Y: no buffer for C";
        r.passed = false;
        r.message += "; C went through memory: " + memory + ", at least the size of C (" + mib(c_bytes) + ")";
    }
    return require_own_kernels(std::move(r), ctx, "silu", seen);
}

double tflops(const Shape& s, double ms) { return models::gemm_flop(s.g) / (ms * 1e-3) / 1e12; }

// The chapter's FFN down projection, [1024, 12288] · [12288, 4096]: the same FLOPs as the full shape with K three
// times longer and a third of the tiles (one wave of 128 × 256 tiles on 132 SMs). Part v4 is timed at both.
const Shape& down_shape() {
    static const Shape s = [] {
        const Shape& up = full_shape();
        return shape(up.g.m, up.g.n, up.g.k, "down", "FFN down projection vs cuBLAS");
    }();
    return s;
}

// Why part v4 cannot be graded here ("" when it can): your v4 needs a GPU of compute capability 9.0 and sm_90a code.
std::string v4_unavailable() { return gpulab::sm90a_unavailable(); }

// The full shape on two sets of inputs with different data, for the timing helpers to rotate over; a
// timed run is verified against cuBLAS on its set.
struct TimedSets {
    Shape s;
    DeviceBuffer<bf16> a[2], w[2], c[2], base_out;
    explicit TimedSets(std::uint64_t seed, const Shape& shape_ = full_shape()) : s(shape_), base_out(s.outputs()) {
        for (int i = 0; i < 2; ++i) {
            a[i] = DeviceBuffer<bf16>(static_cast<std::size_t>(s.g.m * s.g.k));
            w[i] = DeviceBuffer<bf16>(static_cast<std::size_t>(s.g.k * s.g.n));
            c[i] = DeviceBuffer<bf16>(s.outputs());
            refill(i, seed + 2 * i, nullptr);
        }
    }
    void refill(int i, std::uint64_t seed, cudaStream_t st) {
        fill_uniform_bf16_device(a[i].data(), a[i].size(), seed, -kInputRange, kInputRange, st);
        fill_uniform_bf16_device(w[i].data(), w[i].size(), seed + 1, -kInputRange, kInputRange, st);
    }
    void run(Launcher f, int i, bf16* out, cudaStream_t st) { f(a[i].data(), w[i].data(), out, s.m(), s.n(), s.k(), st); }
    std::pair<void*, std::size_t> output(int i) { return output_of(c[i]); }
    std::string verify(int i, const void* out) {
        DeviceBuffer<bf16> ref(s.outputs());
        run(&launch_gemm_cublas, i, ref.data(), nullptr);
        std::vector<std::uint16_t> got(s.outputs());
        CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
        const std::vector<std::uint16_t> ref_bits = to_host_bits(ref);
        // 12.6 M elements: the usual verdict in one pass (about 25 ms), the full report only for a wrong call.
        if (bf16_within(got, ref_bits, kCublasTol)) return "";
        std::vector<double> cublas(ref_bits.size());
        for (std::size_t k = 0; k < ref_bits.size(); ++k) cublas[k] = bf16_bits_to_float(ref_bits[k]);
        const CompareReport rep = compare_bf16(got, cublas, kCublasTol);
        return rep.passed() ? "" : "against cuBLAS on its data: " + rep.describe();
    }
};

// A given GEMM a timed check divides by, on one shape (the full one unless said): declared once, timed alone by the
// runner and interleaved with the variant inside the check.
struct GivenGemm {
    SetBaseline<TimedSets> baseline;
    const char* name;
    const Shape* shape;
};
GivenGemm given_gemm(const char* id, Launcher f, const char* name, const Shape& s = full_shape()) {
    return {baseline_on<TimedSets>(
                id, std::string("the ") + name + " GEMM" + (&s == &full_shape() ? "" : " at " + s.title),
                [salt = std::string("lab03 baseline ") + id, &s](Context& ctx) { return TimedSets(ctx.seed_for(salt), s); },
                [f](TimedSets& sets, int i, cudaStream_t st) { sets.run(f, i, sets.base_out.data(), st); }),
            name, &s};
}

// What part v4's kernels must hold: in the calls code.v4 observes, and in every timed call.
constexpr CodeNeeds kV4Code{.wgmma = true, .tma_load = true, .no_mma_sync = true, .no_cp_async = true};

// t(baseline) / t(variant) on the given GEMM's shape, timed interleaved with the L2 flushed before each run.
PerfResult timed_ratio(Context& ctx, const GivenGemm& given, Launcher variant, const char* label, bool tensor_cores,
                       bool hopper = false) {
    if (hopper) {
        if (std::string why = v4_unavailable(); !why.empty()) {
            PerfResult r;
            r.skipped = "part v4: " + why;
            return r;
        }
    }
    TimedSets sets(ctx.seed_for(std::string("lab03 timed ") + label), *given.shape);
    Rotation work = rotation_of(sets, [&](int i, cudaStream_t st) { sets.run(variant, i, sets.c[i].data(), st); });
    if (hopper) work.code = kV4Code;  // every timed call on the kernels code.v4 read, not others
    // Floors: A and W read once and C written once (128 MiB) at the copy rate, and the FLOPs. v3 may use the
    // tensor cores (cuBLAS's measured BF16 rate plus headroom: about 1.4x cuBLAS at most); v1 and v2 are the
    // handout's CUDA-core kernels (multiply-adds from shared memory and registers), bound by the FP32 FMA
    // rate: about 1.5 ms on an H200, where the solution's v2 takes 3.3 ms.
    PerfResult r = speedup_over(ctx, given.baseline, sets, work, models::gemm_once_bytes(sets.s.g), label);
    r.floor.flops = models::gemm_flop(sets.s.g);
    r.floor.tensor = tensor_cores;
    if (!r.skipped.empty()) return r;
    const double t_work = r.details["work"]["median_ms"].get<double>();
    const double t_base = r.details["baseline"]["median_ms"].get<double>();
    r.details["tflops"] = tflops(sets.s, t_work);
    r.details[std::string(given.name) + "_tflops"] = tflops(sets.s, t_base);
    r.details["shape"] = {{"m", sets.s.m()}, {"n", sets.s.n()}, {"k", sets.s.k()}};
    const std::string where = sets.s.tag == "full" ? std::string()
                                                    : strprintf("M×N×K = %d×%d×%d: ", sets.s.m(), sets.s.n(), sets.s.k());
    r.message = strprintf("%s%.1f µs (%.1f TFLOP/s) vs %s %.1f µs (%.1f TFLOP/s), interleaved, L2 flushed", where.c_str(),
                          t_work * 1e3, tflops(sets.s, t_work), given.name, t_base * 1e3, tflops(sets.s, t_base));
    return r;
}

// ---- part v4 (Hopper) ---------------------------------------------------------------------------------------

CorrectnessResult skipped_v4(const std::string& why) {
    CorrectnessResult r;
    r.skipped = "part v4: " + why;
    return r;
}

// The small run the sanitizer watches: two tiles' rows and columns, every edge ragged (M, N and K not multiples of
// any tile), and a K long enough to wrap the stage ring more than once.
const Shape& hazard_shape() {
    static const Shape s = shape(130, 520, 264, "hazards");
    return s;
}

void v4_small_run() {
    const Shape& s = hazard_shape();
    DeviceBuffer<bf16> a(static_cast<std::size_t>(s.g.m * s.g.k)), w(static_cast<std::size_t>(s.g.k * s.g.n)), c(s.outputs());
    fill_uniform_bf16_device(a.data(), a.size(), 11, -kInputRange, kInputRange);
    fill_uniform_bf16_device(w.data(), w.size(), 12, -kInputRange, kInputRange);
    launch_gemm_v4(a.data(), w.data(), c.data(), s.m(), s.n(), s.k(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// The two tools' runs of your v4 (racecheck and synccheck, together), started in the background by the first correct.v4
// check so that they overlap the other correctness checks (about a second and a half of the lab's grading time), and
// waited for by hazards.v4 — or run there when nothing started them. What they report is read only if v4 is right.
std::shared_future<std::vector<SanitizerRun>>& v4_tool_runs() {
    static std::shared_future<std::vector<SanitizerRun>> runs;
    return runs;
}
void start_v4_tool_runs() {
    if (v4_tool_runs().valid()) return;
    v4_tool_runs() = std::async(std::launch::async, [] {
                         return sanitize_together({{"v4_small", "racecheck"}, {"v4_small", "synccheck"}}, 180);
                     }).share();
}

// Your v4 on the small ragged run under racecheck and synccheck (both started together), once it computes the right
// values there; what ran under the tools must be what runs when graded.
CorrectnessResult check_v4_hazards(Context& ctx) {
    if (v4_tool_runs().valid()) v4_tool_runs().wait();  // first, whatever follows: no tool run outlives this check
    if (std::string why = v4_unavailable(); !why.empty()) return skipped_v4(why);
    const Case& c = get_case(ctx, hazard_shape());
    Observation first;
    CorrectnessResult r = vs_expected(c, c.run(&launch_gemm_v4, first), false, layout_for(c, 128, 256));
    if (!r.passed) {
        r.message = "not run under the sanitizer: v4 is wrong on " + hazard_shape().title + " (" + r.message + ")";
        r.hint = "make v4 correct first (its correct.v4.* checks)";
        return r;
    }
    r = CorrectnessResult{};
    if (skip_unobserved(r, "not checked: the graded run of the same work cannot be observed")) return r;
    const Observation graded = observe_call([] { v4_small_run(); });
    start_v4_tool_runs();
    const std::vector<SanitizerRun> runs = v4_tool_runs().get();
    return sanitizer_verdict({&runs[0], &runs[1]}, {"racecheck", "synccheck"}, graded, hazard_shape().title,
                             "every wait names the phase it waits for (parity), a stage is refilled only after both consumers "
                             "released it (empty), and the accumulators are read only after wgmma_wait<0>()");
}

// What your v4's kernels hold, read in the machine code the driver loaded for them — not asked of your code, and not
// inferred from a speed a faster mma.sync kernel might also reach: wgmma and TMA loads, and no mma.sync or
// cp.async, in the kernels one call ran at each timed shape (inputs drawn from the run's seed).
CorrectnessResult check_v4_code(Context& ctx) {
    if (std::string why = v4_unavailable(); !why.empty()) return skipped_v4(why);
    const CodeNeeds needs = kV4Code;
    const std::string hint =
        "part v4 is the Hopper path: its tiles arrive by TMA (sm90::tma_load_2d) and its products are wgmma "
        "(gpulab::sm90::wgmma_* in labs/wgmma_ops.cuh); a kernel that multiplies with mma.sync is part v3's";
    CorrectnessResult r;
    for (const Shape* s : {&full_shape(), &down_shape()}) {
        DeviceBuffer<bf16> a(static_cast<std::size_t>(s->g.m * s->g.k)), w(static_cast<std::size_t>(s->g.k * s->g.n)), c(s->outputs());
        fill_uniform_bf16_device(a.data(), a.size(), ctx.seed_for("lab03 code A " + s->tag), -kInputRange, kInputRange);
        fill_uniform_bf16_device(w.data(), w.size(), ctx.seed_for("lab03 code W " + s->tag), -kInputRange, kInputRange);
        const Observation seen =
            observe_graded([&](cudaStream_t st) { launch_gemm_v4(a.data(), w.data(), c.data(), s->m(), s->n(), s->k(), st); });
        const std::string at = strprintf("at %lld × %lld × %lld", static_cast<long long>(s->g.m), static_cast<long long>(s->g.n),
                                         static_cast<long long>(s->g.k));
        CorrectnessResult one = kernel_code_verdict(ctx, seen, needs, "v4 " + at, hint);
        if (!one.passed || !one.skipped.empty()) return one;
        r.details[s->tag] = one.details;
        r.message += (r.message.empty() ? "" : "; ") + one.message;
    }
    return pass(r);
}

// Runs in a process of its own under ncu: your v1, v2 and v3, in that order, each once at the full shape. A and W are
// zeroed by a memset, not a kernel: ncu sees only the three GEMMs.
void profile_gemms() {
    const Shape& s = full_shape();
    DeviceBuffer<bf16> a(static_cast<std::size_t>(s.g.m * s.g.k)), w(static_cast<std::size_t>(s.g.k * s.g.n)), c(s.outputs());
    a.zero();
    w.zero();
    for (const Launcher f : {&launch_gemm_v1, &launch_gemm_v2, &launch_gemm_v3}) {
        f(a.data(), w.data(), c.data(), s.m(), s.n(), s.k(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
}

}  // namespace

void register_checks(Lab& lab) {
    const std::vector<Shape> any_n = shapes(lab, false), n8 = shapes(lab, true);
    const struct {
        const char* id;
        const char* title;
        Launcher f;
        TileLayout tile;  // only its tile sizes matter
        const std::vector<Shape>& shapes;
    } variants[] = {{"v1", "v1 smem tiles", &launch_gemm_v1, {0, 0, 64, 64}, any_n},
                    {"v2", "v2 register tiles", &launch_gemm_v2, {0, 0, 128, 128}, any_n},
                    {"v3", "v3 tensor cores", &launch_gemm_v3, {0, 0, 128, 256}, n8},
                    {"silu", "fused SiLU", &launch_gemm_silu, {0, 0, 128, 256}, n8}};
    for (const auto& v : variants) {
        const bool silu = std::string(v.id) == "silu";
        for (const Shape& s : v.shapes) {
            lab.correctness(std::string("correct.") + v.id + "." + s.tag, std::string(v.title) + ", " + s.title,
                            1.0, [s, id = std::string(v.id), f = v.f, tile = v.tile, silu](Context& ctx) {
                                return silu ? check_silu(ctx, s) : check_gemm(ctx, s, id, f, tile);
                            });
        }
    }
    lab.correctness("launches.silu", "fused SiLU is one kernel launch, C never in memory (full shape, observed)", 2,
                    [](Context& ctx) { return check_silu_launches(ctx, full_shape()); });
    // Part v4 on v3's shapes (TMA reads zeros outside A and W, so no shape needs padding), SKIPPED off Hopper.
    for (const Shape& s : n8) {
        lab.correctness("correct.v4." + s.tag, "v4 Hopper (TMA, wgmma), " + s.title, 0.5, [s](Context& ctx) {
            if (std::string why = v4_unavailable(); !why.empty()) return skipped_v4(why);
            if (ctx.will_run("hazards.v4")) start_v4_tool_runs();
            return check_gemm(ctx, s, "v4", &launch_gemm_v4, {0, 0, 128, 256});
        });
    }
    lab.profile_target("v4_small", &v4_small_run);
    lab.correctness("hazards.v4", "v4 under compute-sanitizer (racecheck, synccheck) on a small ragged shape", 2, check_v4_hazards);
    lab.correctness("code.v4", "v4's kernels hold wgmma and TMA loads, no mma.sync or cp.async (their machine code, as loaded)", 1,
                    check_v4_code);

    // Bars, set from the solution on an H200 (its measured ratios: the handout's results table and
    // docs/performance-log.md). Each full bar sits well below the solution, so a correct kernel of the
    // handout's design clears it; each pass bar marks a real step (v1: tiles reuse what the naive kernel
    // fetches twice; v2: register tiles clearly beyond v1; v3: tensor cores clearly beyond CUDA cores,
    // which top out near 0.08 of cuBLAS BF16).
    const GivenGemm naive = given_gemm("naive", &launch_gemm_naive, "naive");
    const GivenGemm cublas = given_gemm("cublas", &launch_gemm_cublas, "cuBLAS");
    const GivenGemm cublas_down = given_gemm("cublas_down", &launch_gemm_cublas, "cuBLAS", down_shape());
    const struct {
        const char* id;
        const char* title;
        double points;
        const char* requires_check;
        double pass_bar, full_bar;
        const GivenGemm& given;
        const char* unit;
        Launcher variant;
        const char* label;
        bool tensor;
        bool hopper;
    } timed[] = {
        {"perf.v1_speedup", "v1 speed-up over naive", 7, "correct.v1.full", 1.2, 1.5, naive, "x naive", &launch_gemm_v1,
         "lab03 v1 vs naive", false, false},
        {"perf.v2_speedup", "v2 speed-up over naive", 7, "correct.v2.full", 2.5, 4.0, naive, "x naive", &launch_gemm_v2,
         "lab03 v2 vs naive", false, false},
        {"perf.v3_cublas_fraction", "v3 fraction of cuBLAS", 13, "correct.v3.full", 0.2, 0.4, cublas, "of cuBLAS",
         &launch_gemm_v3, "lab03 v3 vs cuBLAS", true, false},
        // v4: the pass bar sits above what mma.sync reaches on Hopper (v3's solution: 0.58-0.60 of cuBLAS) and below a
        // single consumer warpgroup with a 4-stage ring (the ladder: 0.83); the full bar below the solution's
        // producer/consumer persistent kernel (0.90-0.92). v3 handed in again as v4 is stopped by code.v4, not the bar.
        {"perf.v4_cublas_fraction", "v4 (Hopper) fraction of cuBLAS", 10, "correct.v4.full", 0.62, 0.85, cublas, "of cuBLAS",
         &launch_gemm_v4, "lab03 v4 vs cuBLAS", true, true},
        {"perf.v4_cublas_fraction_down", "v4 (Hopper) fraction of cuBLAS, FFN down projection", 5, "correct.v4.full", 0.62,
         0.85, cublas_down, "of cuBLAS", &launch_gemm_v4, "lab03 v4 down vs cuBLAS", true, true},
    };
    for (const auto& t : timed) {
        // Part v4 is timed only once its kernels are seen to hold wgmma and TMA (code.v4): a speed alone does not say how.
        const PerfSpec spec{.requires_check = t.requires_check, .also_requires = t.hopper ? std::vector<std::string>{"code.v4"}
                                                                                          : std::vector<std::string>{},
                            .pass_bar = t.pass_bar, .full_bar = t.full_bar, .unit = t.unit, .baseline = t.given.baseline.baseline};
        lab.performance(t.id, t.title, t.points, spec,
                        [given = t.given, variant = t.variant, label = t.label, tensor = t.tensor, hopper = t.hopper](Context& ctx) {
                            return timed_ratio(ctx, given, variant, label, tensor, hopper);
                        });
    }

    lab.profile_target("gemms", &profile_gemms);
    // grader --profile: the tensor pipe and the DRAM bytes of each variant (the report page shows it; no points).
    const Shape& full = full_shape();
    lab.profile_evidence(
        {"gemms",
         strprintf("v1, v2 and v3 (in that order) at M×N×K = %d×%d×%d, caches flushed before each: v1 and v2 should leave "
                   "the tensor pipe idle and v3 keep it busy; the DRAM bytes lie between reading A and W once and writing "
                   "C once, and the model's traffic for each variant's tile (the handout; grader calc tile-traffic), "
                   "because the L2 serves most re-reads",
                   full.m(), full.n(), full.k()),
         {{"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe busy (% of peak)", ""},
          {"dram__bytes_read.sum", "DRAM bytes read", ""},
          {"dram__bytes_write.sum", "DRAM bytes written", ""}}});
}
