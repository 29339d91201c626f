// FROZEN: do not edit. Lab 10's graded checks. Every variant's output is judged on the host, row by row: its scale
// within the worst-case error of any order of FP32 additions (the handout derives the bound) of the exact value, and
// every output element the given normalize() of its input with that scale, bit for bit. What the chapter teaches about
// order is graded from what the grader observed the code do, never from what it says: (c) run 50 times on the same
// inputs and the same rows placed in batches of 1, 7, 64 and 1024 at different positions, bit for bit; (d)'s and
// (c)'s machine code read for floating-point atomic adds; every variant's kernels and launches as the observer saw
// them. Speed: (a) against a copy of the bytes it must move, the split variants against the given one-block-per-row
// kernel at the batch sizes of decoding, in the same run.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "grader/observer.hpp"
#include "grader/plausibility.hpp"
#include "labs/bf16.hpp"
#include "labs/compare_device.hpp"
#include "labs/models/datasets.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"
#include "judge.hpp"
#include "rmsnorm.hpp"
#include "rmsnorm_math.cuh"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

constexpr float kInputRange = 1.25f;  // x uniform in ±1.25: a mean square near 0.52 (the chapter's row: 2038 / 4096)

// Qwen3-8B's rms_norm_eps (1e-6), from the datasets.
float eps() {
    static const float e = static_cast<float>(models::load_model_shape().figures.at("rms_norm_eps").value);
    return e;
}

// The chapter's row length (Qwen3-8B's hidden size, 4096), from the datasets.
int hidden() {
    static const int h = static_cast<int>(models::load_model_shape().hidden_size);
    return h;
}

struct Variant {
    const char* id;
    const char* title;
    RmsNormLauncher launch;
};

const Variant kVariants[] = {{"rows", "(a) one block per row", &launch_rmsnorm_rows},
                             {"split", "(b) split", &launch_rmsnorm_split},
                             {"invariant", "(c) batch-invariant", &launch_rmsnorm_invariant},
                             {"atomic", "(d) atomic", &launch_rmsnorm_atomic}};

struct Shape {
    int rows = 0, cols = 0;
    std::string tag, title;
    [[nodiscard]] std::size_t count() const { return std::size_t(rows) * std::size_t(cols); }
};

// M = 1 and 7 at the chapter's width (decoding); the chapter's [1024, 4096]; rows that are not 16-byte aligned (a width
// that is not a multiple of 8); one element per row; a long row (segments of many blocks' worth); one drawn per run.
std::vector<Shape> shapes(const Lab& lab) {
    const int h = hidden();
    const int rows = static_cast<int>(draw(lab.seed_for("lab10 drawn rows"), 1, 64));
    const int cols = static_cast<int>(draw(lab.seed_for("lab10 drawn cols"), 1, 20000));
    return {{1, h, "m1", "M = 1"},
            {7, h, "m7", "M = 7"},
            {1024, h, "m1024", "M = 1024 (the chapter's)"},
            {3, h + 4, "unaligned", "M = 3, N = " + std::to_string(h + 4) + " (rows not 16-byte aligned)"},
            {5, 1, "n1", "M = 5, N = 1"},
            {2, 16 * h + 8, "long", "M = 2, N = " + std::to_string(16 * h + 8)},
            {rows, cols, "drawn", "M = " + std::to_string(rows) + ", N = " + std::to_string(cols) + " (drawn)"}};
}

// The timed shapes of the split variants: one row and 16 rows (decoding), each row long enough that one block per row
// leaves most of the GPU idle for longer than two more launches cost (the handout measures where that starts).
std::vector<Shape> split_shapes() {
    const int cols = 16 * hidden();
    return {{1, cols, "m1", "M = 1, N = " + std::to_string(cols)}, {16, cols, "m16", "M = 16, N = " + std::to_string(cols)}};
}

// Bars. (a)'s is the issue's (85% of a copy at the chapter's [1024, 4096]). The split bars come from the solution's
// ratios (H100, two graded runs: (b) 2.51 and 2.12, (c) 2.47 and 2.09 at M = 1 and 16) and from what two kernels can
// reach at all: the given kernel takes about 23 µs at M = 1, N = 65536 (one block streams the row twice), and any two
// launches about 7.6 µs however little they do (the benchmark's split at N = 4096), a ceiling near 3×. Full marks at
// about 0.95 of the solution's smaller ratio; passing needs a split that clearly beats one block per row.
constexpr double kRowsCopyPass = 0.60, kRowsCopyFull = 0.85;
constexpr double kSplitPass = 1.3, kSplitFull = 2.0;
constexpr double kInvariantPass = 1.2, kInvariantFull = 1.9;
constexpr double kSplitPoints = 6, kInvariantPoints = 3;

// Inputs of one shape, on host (bits) and device.
struct Case {
    Shape s;
    std::vector<std::uint16_t> hx, hg;
    DeviceBuffer<bf16> x, g;
};

void fill_case(Case& c, std::uint64_t seed) {
    c.hx.resize(c.s.count());
    c.hg.resize(std::size_t(c.s.cols));
    fill_uniform_bf16(c.hx, seed, -kInputRange, kInputRange);
    fill_uniform_bf16(c.hg, seed + 1, 0.5f, 1.5f);
    c.x = to_device_bits(c.hx);
    c.g = to_device_bits(c.hg);
}

const Case& get_case(Context& ctx, const Shape& s) {
    return cached_case<Case>(s.tag, [&] {
        auto c = std::make_unique<Case>();
        c->s = s;
        fill_case(*c, ctx.seed_for("lab10 inputs " + s.tag));
        return c;
    });
}

// One call's outputs, back on the host.
struct Output {
    std::vector<std::uint16_t> y;
    std::vector<float> scale;
    Observation seen;
};

// One call of a launcher as the graded code, on the default stream, in a window of the observer: what it ran.
Observation call_observed(RmsNormLauncher launch, const bf16* x, const bf16* g, bf16* y, float* scale, int rows, int cols,
                          float* work) {
    Window window;
    {
        GradedCall graded;
        launch(x, g, y, scale, rows, cols, eps(), work, nullptr);
    }
    return window.close();
}

// Runs a launcher on poisoned outputs and a scrambled workspace, observed.
Output run_observed(RmsNormLauncher launch, const bf16* x, const bf16* g, int rows, int cols, std::uint64_t scramble) {
    DeviceBuffer<bf16> y(std::size_t(rows) * std::size_t(cols));
    DeviceBuffer<float> scale(static_cast<std::size_t>(rows)), work(workspace_floats(rows));
    y.poison();
    scale.poison();
    fill_random_bytes_device(work.data(), work.bytes(), scramble);
    CUDA_CHECK(cudaDeviceSynchronize());
    Output out;
    out.seen = call_observed(launch, x, g, y.data(), scale.data(), rows, cols, work.data());
    out.y = to_host_bits(y);
    out.scale = to_host(scale);
    return out;
}

// ---- judging a row (judge.hpp) ---------------------------------------------------------------------------------

using lab10::judge_row;
using lab10::kUnit;
using lab10::RowVerdict;
using lab10::scale_bound;

// Every row of an output; "" when all are right, else the first wrong one (and how many are). The worst scale error
// goes into `worst` (units of u).
std::string judge_rows(const std::vector<std::uint16_t>& hx, const std::vector<std::uint16_t>& hg, const Output& out, int rows,
                       int cols, double& worst) {
    std::string first;
    int wrong = 0;
    worst = 0;
    for (int r = 0; r < rows; ++r) {
        const std::size_t at = std::size_t(r) * std::size_t(cols);
        const RowVerdict v = judge_row(hx.data() + at, hg.data(), out.y.data() + at, out.scale[std::size_t(r)], cols, eps(), r);
        worst = std::max(worst, v.scale_units);
        if (!v.wrong.empty() && wrong++ == 0) first = v.wrong;
    }
    if (wrong == 0) return {};
    return wrong == 1 ? first : strprintf("%s (and %d more row%s)", first.c_str(), wrong - 1, wrong == 2 ? "" : "s");
}

const char* kHint =
    "add the row's squares (rmsnorm::square) in any order, then rmsnorm::row_scale and rmsnorm::normalize with that "
    "scale for every element; write scale[r]";

CorrectnessResult check_variant(Context& ctx, const Variant& v, const Shape& s) {
    const Case& c = get_case(ctx, s);
    const Output out = run_observed(v.launch, c.x.data(), c.g.data(), s.rows, s.cols, ctx.seed_for("lab10 scramble " + s.tag));
    double worst = 0;
    const std::string wrong = judge_rows(c.hx, c.hg, out, s.rows, s.cols, worst);
    CorrectnessResult r;
    r.details = {{"worst_scale_error_u", worst}, {"bound_u", scale_bound(s.cols, 0.52, eps()) / kUnit}};
    r = wrong.empty() ? pass(std::move(r), strprintf("%s: every row's scale within the bound (worst %.1f u) and every element "
                                                     "normalize(x, scale, gamma), bit for bit",
                                                     s.title.c_str(), worst))
                      : fail(std::move(r), wrong, kHint);
    r = require_own_kernels(std::move(r), ctx, v.title, out.seen);
    return require_unchanged(std::move(r), {input("x", c.x, c.hx), input("gamma", c.g, c.hg)});
}

// ---- launches, as observed -----------------------------------------------------------------------------------------

// What a variant ran at M = 1 with rows of 65536 (a row long enough that splitting it pays): (a) one kernel; the split variants 2 or 3 kernels (partial sums, merge, normalise: the
// chapter's three, or the merge folded into the last), the first of them more than one block for the row, and (d) at
// most one memset besides (its totals zeroed); no copies, and no memory of its own (the workspace is given).
CorrectnessResult check_launches(Context& ctx, const Variant& v, const Shape& m1) {
    const Case& c = get_case(ctx, m1);
    const Output out = run_observed(v.launch, c.x.data(), c.g.data(), 1, m1.cols, ctx.seed_for("lab10 launches"));
    CorrectnessResult r;
    if (skip_unobserved(r, "the launches cannot be observed")) return r;
    const std::vector<ObservedKernel> ks = out.seen.graded_kernels();
    const std::size_t copies = out.seen.graded_copies().size();
    const std::string id = v.id;
    const bool rows = id == "rows", atomic = id == "atomic";
    std::string names;
    for (const ObservedKernel& k : ks)
        names += (names.empty() ? "" : ", ") + strprintf("%s (%u blocks)", kernel_display_name(k.name).c_str(),
                                                          k.grid[0] * k.grid[1] * k.grid[2]);
    const std::string seen = strprintf("observed %zu kernel%s%s%s and %zu cop%s or memset%s", ks.size(), ks.size() == 1 ? "" : "s",
                                       ks.empty() ? "" : ": ", names.c_str(), copies, copies == 1 ? "y" : "ies", copies == 1 ? "" : "s");
    r.details["observed"] = out.seen.summary();
    // The workspace is the only memory a launcher may use: an allocation of its own is seen here.
    std::uint64_t allocated = 0;
    for (const ObservedAllocation& a : out.seen.allocations) allocated += a.graded ? a.bytes : 0;
    if (allocated > 0)
        return fail(std::move(r), seen + strprintf("; it allocated %llu bytes of its own", static_cast<unsigned long long>(allocated)),
                    "use the workspace the launcher is given (workspace_floats(rows) FP32 values): no allocations");
    if (rows) {
        if (ks.size() == 1 && copies == 0) return pass(std::move(r), seen + ": one launch, as the chapter counts it");
        return fail(std::move(r), seen + "; expected 1 kernel and nothing else", "one kernel: sum, scale and normalise a row in one block");
    }
    const std::size_t first_blocks = ks.empty() ? 0 : std::size_t(ks[0].grid[0]) * ks[0].grid[1] * ks[0].grid[2];
    const bool count_ok = ks.size() >= 2 && ks.size() <= 3;
    const bool split = first_blocks >= 2;
    const bool copies_ok = copies <= (atomic ? 1u : 0u);
    if (count_ok && split && copies_ok)
        return pass(std::move(r), seen + strprintf(": the row split over %zu first-stage blocks", first_blocks));
    std::string why = seen + "; expected 2 or 3 kernels (partial sums, then the merge and the normalisation)";
    if (!split) why += strprintf(", the first splitting the row over several blocks (it ran %zu)", first_blocks);
    why += atomic ? ", at most one memset (the totals zeroed)" : ", no copies or memsets";
    return fail(std::move(r), why, "at M = 1 the row is all the work there is: split it so that several SMs share it");
}

// ---- determinism and batch invariance, observed ----------------------------------------------------------------------

// What (c) may hold of its own between calls: static data a header may carry, far below one batch of [1024, 4096]
// (8 MiB) that a cache of results would need to reproduce a row's first output later.
constexpr std::uint64_t kOwnMemorySlack = std::uint64_t(1) << 20;

// "" when the graded code held no more than the slack after these calls and made no copy (a result kept on the host
// comes back by one); else why a cache of results could be behind the repeated bits.
std::string kept_results(const std::vector<Observation>& seen) {
    std::size_t copies = 0;
    for (const Observation& o : seen) copies += o.graded_copies().size();
    const std::uint64_t held = Observer::instance().memory_held().total;
    if (copies == 0 && held <= kOwnMemorySlack) return {};
    return strprintf("; your code made %zu copies or memsets and holds %.2f MiB of its own (static data included) — room for "
                     "results kept from one call to the next, which repeated bits would not then prove deterministic",
                     copies, double(held) / (1 << 20));
}

constexpr int kRuns = 50;

// n runs of a launcher on the same inputs, each on poisoned outputs and a freshly scrambled workspace: how many distinct
// results (y and scale together, bit for bit) they gave, and the first row where a result differed from the first run's.
// Each run is compared with the first on the device; a run that differs is told from the other differing runs by its
// scales (y follows from them: every element is normalize() of its input with its row's scale), so that many distinct
// results cost no more than few.
struct Repeats {
    int distinct = 0;
    int first_row = -1;
    Output first;
    Observation seen;                // the first run's
    std::vector<Observation> every;  // every run's
};

Repeats repeat(Context& ctx, RmsNormLauncher launch, const Case& c, int n) {
    const int rows = c.s.rows, cols = c.s.cols;
    const std::size_t y_bytes = c.s.count() * sizeof(bf16), scale_bytes = std::size_t(rows) * sizeof(float);
    DeviceBuffer<unsigned char> out(y_bytes + scale_bytes), first(y_bytes + scale_bytes);
    DeviceBuffer<float> work(workspace_floats(rows));
    std::set<std::vector<std::uint32_t>> others;  // the scales of the results that differ from the first
    Repeats rep;
    for (int i = 0; i < n; ++i) {
        out.poison();
        fill_random_bytes_device(work.data(), work.bytes(), ctx.seed_for("lab10 repeat scramble") + std::uint64_t(i));
        CUDA_CHECK(cudaDeviceSynchronize());
        const Observation seen = call_observed(launch, c.x.data(), c.g.data(), reinterpret_cast<bf16*>(out.data()),
                                               reinterpret_cast<float*>(out.data() + y_bytes), rows, cols, work.data());
        rep.every.push_back(seen);
        if (i == 0) {
            rep.seen = seen;
            CUDA_CHECK(cudaMemcpy(first.data(), out.data(), out.bytes(), cudaMemcpyDeviceToDevice));
            rep.first.y.resize(c.s.count());
            rep.first.scale.resize(std::size_t(rows));
            CUDA_CHECK(cudaMemcpy(rep.first.y.data(), out.data(), y_bytes, cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(rep.first.scale.data(), out.data() + y_bytes, scale_bytes, cudaMemcpyDeviceToHost));
            continue;
        }
        const DeviceDiff d = compare_bits_device(out.data(), first.data(), out.size(), 1);
        if (d.count == 0) continue;
        if (rep.first_row < 0 && d.first)
            rep.first_row = *d.first < y_bytes ? int(*d.first / (std::size_t(cols) * sizeof(bf16))) : int((*d.first - y_bytes) / sizeof(float));
        std::vector<std::uint32_t> scales(std::size_t(rows) + 1);
        CUDA_CHECK(cudaMemcpy(scales.data(), out.data() + y_bytes, scale_bytes, cudaMemcpyDeviceToHost));
        scales.back() = *d.first < y_bytes ? 1u : 0u;  // a difference in y alone is a result of its own too
        others.insert(std::move(scales));
    }
    rep.distinct = 1 + static_cast<int>(others.size());
    return rep;
}

// (c) 50 times on the chapter's [1024, 4096]: one result, and a right one.
CorrectnessResult check_determinism(Context& ctx, const Shape& m1024) {
    const Case& c = get_case(ctx, m1024);
    CorrectnessResult r;
    const Repeats rep = repeat(ctx, &launch_rmsnorm_invariant, c, kRuns);
    double worst = 0;
    const std::string wrong = judge_rows(c.hx, c.hg, rep.first, m1024.rows, m1024.cols, worst);
    r.details = {{"runs", kRuns}, {"distinct_results", rep.distinct}};
    if (!wrong.empty()) return fail(std::move(r), "(c)'s first run is wrong: " + wrong, kHint);
    if (rep.distinct != 1)
        return fail(std::move(r),
                    strprintf("%d runs of (c) on the same inputs gave %d different results (first difference in row %d)", kRuns,
                              rep.distinct, rep.first_row),
                    "the order of every addition must be fixed: no atomics, no order that depends on which block finishes first");
    if (const std::string kept = kept_results(rep.every); !kept.empty())
        return fail(std::move(r), strprintf("%d runs gave one result", kRuns) + kept,
                    "compute every call from its inputs, with the workspace you are given and nothing kept");
    r = pass(std::move(r), strprintf("%d runs of (c) on the same %d × %d inputs, each on poisoned outputs and a scrambled "
                                     "workspace: one result, bit for bit, and a right one",
                                     kRuns, m1024.rows, m1024.cols));
    return require_own_kernels(std::move(r), ctx, "(c)", rep.seen);
}

// Probe rows placed in batches of 1, 7, 64 and 1024 rows at different positions, the other rows random: each probe row's
// output (y and scale) must be the same bits in every batch. (b) is run the same way, for the report only.
//
// Why 64 probe rows: two orders of addition that both keep the error near one ULP (a block's tree over 16 values per
// thread, and four segments of it merged) give the same FP32 sum for most rows; over rows of 4096 values drawn as the
// lab draws them, about 3 rows in 10 end with a different scale (a host simulation of the solution's two orders: 56 of
// 200). Six probe rows let a batch-dependent order through about one run in seven; 64 leave it a chance near 10^-9.
constexpr int kProbeRows = 64;

// One call: a batch of `batch` rows holding probe rows at the given positions, random filler elsewhere.
struct ProbeCall {
    int batch = 0;
    std::vector<std::pair<int, int>> probes;  // (probe row, position in the batch)
};
// One placement of every probe row: the calls that hold them (a batch of 7 takes ten calls, alone 64).
struct Placement {
    std::string what;
    std::vector<ProbeCall> calls;
};

// A permutation of [0, n), drawn from the seed (Fisher–Yates).
std::vector<int> drawn_permutation(std::uint64_t seed, int n) {
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[std::size_t(i)] = i;
    for (int i = n - 1; i > 0; --i)
        std::swap(v[std::size_t(i)], v[std::size_t(draw(seed + 0x9e3779b97f4a7c15ull * std::uint64_t(i), 0, i))]);
    return v;
}

// The placements, the first a batch of 1024 with the probe rows at drawn positions (so that a probe row is first seen
// inside a batch of 1024: a cache of the results it has seen would have to hold whole batches); then another batch of
// 1024 with probe rows first and last; a batch of 64 (every row a probe, in a drawn order); batches of 7; alone.
std::vector<Placement> probe_placements(Context& ctx) {
    std::vector<Placement> where;
    {
        const std::vector<int> at = drawn_permutation(ctx.seed_for("lab10 positions 1024"), 1024);
        Placement w{"at drawn positions of a batch of 1024", {{1024, {}}}};
        for (int p = 0; p < kProbeRows; ++p) w.calls[0].probes.push_back({p, at[std::size_t(p)]});
        where.push_back(std::move(w));
    }
    {
        const std::vector<int> at = drawn_permutation(ctx.seed_for("lab10 positions 1024 ends"), 1022);
        Placement w{"in another batch of 1024 (one first, one last)", {{1024, {}}}};
        for (int p = 0; p < kProbeRows; ++p)
            w.calls[0].probes.push_back({p, p == 0 ? 0 : p == kProbeRows - 1 ? 1023 : 1 + at[std::size_t(p)]});
        where.push_back(std::move(w));
    }
    {
        const std::vector<int> at = drawn_permutation(ctx.seed_for("lab10 positions 64"), 64);
        Placement w{"in a batch of 64", {{64, {}}}};
        for (int p = 0; p < kProbeRows; ++p) w.calls[0].probes.push_back({p, at[std::size_t(p)]});
        where.push_back(std::move(w));
    }
    {
        Placement w{"in batches of 7", {}};
        for (int first = 0; first < kProbeRows; first += 7) {
            const std::vector<int> at = drawn_permutation(ctx.seed_for("lab10 positions 7") + std::uint64_t(first), 7);
            ProbeCall c{7, {}};
            for (int p = first; p < std::min(first + 7, kProbeRows); ++p) c.probes.push_back({p, at[std::size_t(p - first)]});
            w.calls.push_back(std::move(c));
        }
        where.push_back(std::move(w));
    }
    {
        Placement w{"alone", {}};
        for (int p = 0; p < kProbeRows; ++p) w.calls.push_back({1, {{p, 0}}});
        where.push_back(std::move(w));
    }
    return where;
}

// The probe rows' outputs in every placement, for one launcher: outputs[p][k] is probe row p in placement k (its y, then
// its scale's bits as two 16-bit words).
std::vector<std::vector<std::vector<std::uint16_t>>> probe_outputs(Context& ctx, RmsNormLauncher launch, const Case& probes,
                                                                 const std::vector<Placement>& where,
                                                                 std::vector<Observation>* seen) {
    const int cols = probes.s.cols;
    const std::size_t row_bytes = std::size_t(cols) * sizeof(bf16);
    std::vector<std::vector<std::vector<std::uint16_t>>> out(kProbeRows, std::vector<std::vector<std::uint16_t>>(where.size()));
    constexpr int kMaxBatch = 1024;
    DeviceBuffer<bf16> x(std::size_t(kMaxBatch) * std::size_t(cols)), y(std::size_t(kMaxBatch) * std::size_t(cols));
    DeviceBuffer<float> scale(static_cast<std::size_t>(kMaxBatch)), work(workspace_floats(kMaxBatch));
    std::uint64_t call_index = 0;
    for (std::size_t k = 0; k < where.size(); ++k) {
        for (const ProbeCall& c : where[k].calls) {
            ++call_index;
            // Filler rows drawn afresh for every call, then the probe rows copied into their positions.
            fill_uniform_bf16_device(x.data(), std::size_t(c.batch) * std::size_t(cols),
                                     ctx.seed_for("lab10 filler") + 7919 * call_index, -kInputRange, kInputRange);
            for (const auto& [p, at] : c.probes)
                CUDA_CHECK(cudaMemcpy(x.data() + std::size_t(at) * std::size_t(cols), probes.x.data() + std::size_t(p) * std::size_t(cols),
                                      row_bytes, cudaMemcpyDeviceToDevice));
            y.poison();
            scale.poison();
            fill_random_bytes_device(work.data(), work.bytes(), ctx.seed_for("lab10 probe scramble") + call_index);
            CUDA_CHECK(cudaDeviceSynchronize());
            const Observation o = call_observed(launch, x.data(), probes.g.data(), y.data(), scale.data(), c.batch, cols, work.data());
            if (seen != nullptr) seen->push_back(o);
            for (const auto& [p, at] : c.probes) {
                std::vector<std::uint16_t> row(std::size_t(cols) + 2);
                CUDA_CHECK(cudaMemcpy(row.data(), y.data() + std::size_t(at) * std::size_t(cols), row_bytes, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(row.data() + cols, scale.data() + at, sizeof(float), cudaMemcpyDeviceToHost));
                out[std::size_t(p)][k] = std::move(row);
            }
        }
    }
    return out;
}

// What the placements of one row length showed.
struct Invariance {
    int cols = 0, placements = 0, differing = 0, split_differing = 0;
    std::string first;  // the first differing placement, in words
    std::string wrong;  // a probe row wrong where it stood alone
};

Invariance invariance_at(Context& ctx, int cols, const std::vector<Placement>& where, std::vector<Observation>& seen) {
    Invariance v;
    v.cols = cols;
    // The probe rows: a case of their own.
    const Shape probe_shape{kProbeRows, cols, "probes" + std::to_string(cols), "probe rows"};
    const Case& probes = get_case(ctx, probe_shape);
    const std::size_t alone_at = where.size() - 1;
    const auto mine = probe_outputs(ctx, &launch_rmsnorm_invariant, probes, where, &seen);
    // First the rows themselves must be right (judged where each stood alone, batch 1).
    for (int p = 0; p < kProbeRows; ++p) {
        const auto& alone = mine[std::size_t(p)][alone_at];
        float s = 0;
        std::memcpy(&s, alone.data() + cols, sizeof s);
        const RowVerdict j = judge_row(probes.hx.data() + std::size_t(p) * std::size_t(cols), probes.hg.data(), alone.data(), s, cols, eps(), p);
        if (!j.wrong.empty()) {
            v.wrong = strprintf("(c), probe row alone in a batch of 1 (N = %d): ", cols) + j.wrong;
            return v;
        }
    }
    // Where probe row p stood in placement k, for the message.
    const auto position = [&](int p, std::size_t k) {
        for (const ProbeCall& c : where[k].calls)
            for (const auto& [q, at] : c.probes)
                if (q == p) return std::make_pair(at, c.batch);
        return std::make_pair(-1, 0);
    };
    for (int p = 0; p < kProbeRows; ++p) {
        for (std::size_t k = 1; k < where.size(); ++k) {
            if (mine[std::size_t(p)][k] == mine[std::size_t(p)][0]) continue;
            if (v.differing++ == 0) {
                const auto [a, ab] = position(p, 0);
                const auto [b, bb] = position(p, k);
                v.first = strprintf("probe row %d of N = %d at position %d of a batch of %d and at position %d of a batch of %d "
                                    "differ",
                                    p, cols, a, ab, b, bb);
            }
        }
    }
    // (b) the same way, for the report: how batch-dependent the split that follows the batch is.
    const auto split = probe_outputs(ctx, &launch_rmsnorm_split, probes, where, nullptr);
    for (int p = 0; p < kProbeRows; ++p)
        for (std::size_t k = 1; k < where.size(); ++k) v.split_differing += split[std::size_t(p)][k] != split[std::size_t(p)][0];
    v.placements = kProbeRows * int(where.size() - 1);
    return v;
}

// Batch invariance at the chapter's row length and at the long rows the split is timed on: a kernel may split only
// long rows, and follow the batch only there.
CorrectnessResult check_invariance(Context& ctx) {
    const std::vector<Placement> where = probe_placements(ctx);
    std::vector<Observation> seen;
    CorrectnessResult r;
    std::vector<Invariance> at;
    for (const int cols : {hidden(), split_shapes()[0].cols}) {
        at.push_back(invariance_at(ctx, cols, where, seen));
        if (!at.back().wrong.empty()) return fail(std::move(r), at.back().wrong, kHint);
    }
    std::string about_b = "; (b), for comparison:";
    int differing = 0, placements = 0;
    std::string first;
    r.details = {{"lengths", nlohmann::json::array()}};
    for (const Invariance& v : at) {
        about_b += strprintf("%s %d of %d placements differ at N = %d", &v == &at[0] ? "" : ",", v.split_differing, v.placements, v.cols);
        differing += v.differing;
        placements += v.placements;
        if (first.empty()) first = v.first;
        r.details["lengths"].push_back({{"cols", v.cols}, {"probe_rows", kProbeRows}, {"placements", v.placements},
                             {"invariant_differing", v.differing}, {"split_differing", v.split_differing}});
    }
    if (differing > 0)
        return fail(std::move(r),
                    strprintf("%s (%d of %d placements differ from the first)", first.c_str(), differing, placements) + about_b,
                    "choose the segments and the order of every addition from cols alone, never from the number of rows");
    if (const std::string kept = kept_results(seen); !kept.empty())
        return fail(std::move(r), "every placement gave the same bits" + kept,
                    "compute every call from its inputs, with the workspace you are given and nothing kept");
    r = pass(std::move(r), strprintf("%d probe rows of N = %d and %d of N = %d, each first at a drawn position of a batch of 1024, "
                                     "then in another batch of 1024 (one first, one last), in a batch of 64, in batches of 7 and "
                                     "alone, the other rows random: the same bits in all %d placements",
                                     kProbeRows, at[0].cols, kProbeRows, at[1].cols, placements + 2 * kProbeRows) +
                               about_b);
    for (const Observation& o : seen) {
        r = require_own_kernels(std::move(r), ctx, "(c)", o);
        if (!r.passed) break;
    }
    return r;
}

// (d) and (c) read for floating-point atomic adds; (d) also run 50 times, its distinct results counted (not graded:
// how often the order changes the bits depends on the GPU and the load).
CorrectnessResult check_atomic_code(Context& ctx, const Shape& m1024, bool atomic) {
    const Case& c = get_case(ctx, m1024);
    const Variant& v = atomic ? kVariants[3] : kVariants[2];
    const Output one = run_observed(v.launch, c.x.data(), c.g.data(), m1024.rows, m1024.cols, ctx.seed_for("lab10 code"));
    CodeNeeds needs;
    if (atomic) needs.float_atomics = true;
    else needs.no_float_atomics = true;
    CorrectnessResult r = kernel_code_verdict(ctx, one.seen, needs, v.title,
                                              atomic ? "(d) adds each segment's partial sum to its row's total with atomicAdd"
                                                     : "(c) adds every partial sum itself, in a fixed order: no atomicAdd on floats");
    if (!atomic || !r.passed) return r;
    const Repeats rep = repeat(ctx, v.launch, c, kRuns);
    r.details["runs"] = kRuns;
    r.details["distinct_results"] = rep.distinct;
    r.message += strprintf("; %d runs on the same inputs gave %d distinct result%s", kRuns, rep.distinct, rep.distinct == 1 ? "" : "s");
    if (rep.distinct > 1) r.message += strprintf(" (the first difference in row %d)", rep.first_row);
    return r;
}

// ---- timings ---------------------------------------------------------------------------------------------------

// A shape on two sets of inputs and outputs for the timing helpers to rotate over. A set's output is y followed by the
// scales in one buffer (what a timed call writes, and what a verified call's copy holds); every timed call gets new x
// and gamma and a scrambled workspace, and a verified call is judged on the host like a correctness check.
struct TimedSets {
    int rows = 0, cols = 0;
    DeviceBuffer<bf16> x[2], g[2];
    DeviceBuffer<unsigned char> out[2];
    DeviceBuffer<float> work;
    TimedSets(const Shape& s, std::uint64_t seed) : rows(s.rows), cols(s.cols), work(workspace_floats(s.rows)) {
        for (int i = 0; i < 2; ++i) {
            x[i] = DeviceBuffer<bf16>(s.count());
            g[i] = DeviceBuffer<bf16>(std::size_t(cols));
            out[i] = DeviceBuffer<unsigned char>(y_bytes() + std::size_t(rows) * sizeof(float));
            refill(i, seed + 2 * std::uint64_t(i), nullptr);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    [[nodiscard]] std::size_t count() const { return std::size_t(rows) * std::size_t(cols); }
    [[nodiscard]] std::size_t y_bytes() const { return count() * sizeof(bf16); }
    [[nodiscard]] bf16* y(int i) { return reinterpret_cast<bf16*>(out[i].data()); }
    [[nodiscard]] float* scale(int i) { return reinterpret_cast<float*>(out[i].data() + y_bytes()); }
    void refill(int i, std::uint64_t seed, cudaStream_t s) {
        fill_uniform_bf16_device(x[i].data(), count(), seed, -kInputRange, kInputRange, s);
        fill_uniform_bf16_device(g[i].data(), std::size_t(cols), seed + 1, 0.5f, 1.5f, s);
        fill_random_bytes_device(work.data(), work.bytes(), seed + 2, s);
    }
    void run(RmsNormLauncher f, int i, cudaStream_t s) {
        f(x[i].data(), g[i].data(), y(i), scale(i), rows, cols, eps(), work.data(), s);
    }
    std::pair<void*, std::size_t> output(int i) { return output_of(out[i]); }
    std::string verify(int i, const void* copy) {
        std::vector<std::uint16_t> hx(count()), hg(static_cast<std::size_t>(cols));
        CUDA_CHECK(cudaMemcpy(hx.data(), x[i].data(), x[i].bytes(), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hg.data(), g[i].data(), g[i].bytes(), cudaMemcpyDeviceToHost));
        Output o;
        o.y.resize(count());
        o.scale.resize(std::size_t(rows));
        CUDA_CHECK(cudaMemcpy(o.y.data(), copy, y_bytes(), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(o.scale.data(), static_cast<const unsigned char*>(copy) + y_bytes(), o.scale.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
        double worst = 0;
        return judge_rows(hx, hg, o, rows, cols, worst);
    }
    Rotation rotation(RmsNormLauncher f) {
        Rotation r = rotation_of(*this, [this, f](int i, cudaStream_t s) { run(f, i, s); });
        // (c) timed on kernels without floating-point atomics, as code.invariant read them in the call it observed.
        if (f == &launch_rmsnorm_invariant) r.code = CodeNeeds{.no_float_atomics = true};
        return r;
    }
};

// The given one-block-per-row kernel, on a shape's timed sets.
SetBaseline<TimedSets> given_baseline(const Shape& s) {
    return baseline_on<TimedSets>(
        "given_" + s.tag, "the given one-block-per-row RMSNorm at " + s.title,
        [s](Context& ctx) { return TimedSets(s, ctx.seed_for("lab10 baseline " + s.tag)); },
        [](TimedSets& sets, int i, cudaStream_t st) { sets.run(&launch_rmsnorm_baseline, i, st); });
}

// The bytes a variant must move at the least: x read and y written, gamma read once, the scales written.
double floor_bytes(const Shape& s) {
    return 2.0 * double(s.count()) * sizeof(bf16) + double(s.cols) * sizeof(bf16) + double(s.rows) * sizeof(float);
}

// t(given) / t(variant) at a small batch.
PerfResult split_speedup(Context& ctx, const SetBaseline<TimedSets>& given, const Shape& s, RmsNormLauncher f, const char* label) {
    TimedSets sets(s, ctx.seed_for(std::string("lab10 timed ") + label));
    PerfResult r = speedup_over(ctx, given, sets, sets.rotation(f), floor_bytes(s), label);
    if (!r.skipped.empty()) return r;
    const double t_work = r.details["work"]["median_ms"].get<double>(), t_base = r.details["baseline"]["median_ms"].get<double>();
    r.message = strprintf("%s: %.2f µs against the given kernel's %.2f µs, interleaved, L2 flushed", s.title.c_str(), t_work * 1e3,
                          t_base * 1e3);
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    const std::vector<Shape> all = shapes(lab);
    for (const Variant& v : kVariants)
        for (const Shape& s : all)
            lab.correctness(std::string("correct.") + v.id + "." + s.tag, std::string(v.title) + ", " + s.title, 0.75,
                            [&v, s](Context& ctx) { return check_variant(ctx, v, s); });
    const Shape m1024 = all[2];
    Shape m1_long = split_shapes()[0];
    m1_long.tag = "launches";  // its own inputs (cases are kept by tag)
    for (const Variant& v : kVariants)
        lab.correctness(std::string("launches.") + v.id, std::string(v.title) + ": kernels and launches at " + m1_long.title + " (observed)",
                        2, [&v, m1_long](Context& ctx) { return check_launches(ctx, v, m1_long); });
    lab.correctness("determinism.invariant", "(c) bit-identical over 50 runs, M = 1024 (observed)", 4,
                    [m1024](Context& ctx) { return check_determinism(ctx, m1024); });
    lab.correctness("invariance.invariant", "(c) a row's bits alone and in batches of 7, 64, 1024 (observed)", 6, check_invariance);
    lab.correctness("code.invariant", "(c)'s kernels hold no floating-point atomic add (their machine code)", 2,
                    [m1024](Context& ctx) { return check_atomic_code(ctx, m1024, false); });
    lab.correctness("code.atomic", "(d)'s kernels add with floating-point atomics (their machine code); its runs counted", 2,
                    [m1024](Context& ctx) { return check_atomic_code(ctx, m1024, true); });

    // (a) at the chapter's shape against a copy of the bytes it must move (x read, y written: 16 MiB; gamma and the
    // scales are 12 KiB more). Bars from the solution on an H200 (the handout's table).
    const CopyBaseline copy = copy_baseline(2.0 * double(m1024.count()) * sizeof(bf16));
    const PerfSpec bw{.requires_check = "correct.rows.m1024", .pass_bar = kRowsCopyPass, .full_bar = kRowsCopyFull,
                      .unit = "of copy BW", .baseline = copy.baseline};
    lab.performance("perf.rows_copy_m1024", "(a) bandwidth, M = 1024 (vs copy)", 15, bw, [m1024, copy](Context& ctx) {
        TimedSets sets(m1024, ctx.seed_for("lab10 timed rows"));
        PerfResult r = fraction_of_copy_bandwidth(ctx, copy, sets.rotation(&launch_rmsnorm_rows), "lab10 rows M=1024");
        r.floor.ratio_at_most(kCopyHeadroom, "(a) moves at least the bytes of the copy it is timed against, in the same loop");
        return r;
    });
    // The split variants at the batch sizes of decoding, against the given one-block-per-row kernel.
    for (const Shape& s : split_shapes()) {
        const SetBaseline<TimedSets> given = given_baseline(s);
        lab.performance("perf.split_" + s.tag, "(b) vs one block per row, " + s.title, kSplitPoints,
                        PerfSpec{.requires_check = "correct.split.long", .pass_bar = kSplitPass, .full_bar = kSplitFull,
                                 .unit = "x given", .baseline = given.baseline},
                        [s, given](Context& ctx) { return split_speedup(ctx, given, s, &launch_rmsnorm_split, "lab10 split"); });
        lab.performance("perf.invariant_" + s.tag, "(c) vs one block per row, " + s.title, kInvariantPoints,
                        PerfSpec{.requires_check = "invariance.invariant", .pass_bar = kInvariantPass, .full_bar = kInvariantFull,
                                 .unit = "x given", .baseline = given.baseline},
                        [s, given](Context& ctx) { return split_speedup(ctx, given, s, &launch_rmsnorm_invariant, "lab10 invariant"); });
    }
}
