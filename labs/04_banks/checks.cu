// FROZEN: do not edit. Lab 04's graded checks: your layouts evaluated on the host against the bank model
// (no GPU needed), the same layouts timed by a clock64() probe on the GPU, bit-exact transposes on awkward
// shapes (partial tiles, one row, one column, a shape drawn per run), and bandwidth measured in the same run
// against the copy and against the plain tiled transpose.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "banks.hpp"
#include "grader/gpu_checks.hpp"
#include "labs/bf16.hpp"
#include "labs/compare.hpp"
#include "labs/compare_device.hpp"
#include "labs/cuda_check.hpp"
#include "labs/graph.hpp"
#include "labs/models/banks.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

constexpr int kTile = banks::kTile;

// ---- layouts on the host --------------------------------------------------------------------------------

struct LayoutSpec {
    LayoutId id;
    LayoutId plain;             // the plain layout over the same element type
    std::string title;          // "padded (a)"
    std::int64_t budget_bytes;  // the footprint it may take
};

// The budgets are the models' answers: a pad of one word per row, or none.
const LayoutSpec kPadded{LayoutId::padded, LayoutId::plain, "padded (a)", models::padding_cost(kTile, kTile, 1).padded_bytes};
const LayoutSpec kSwizzled{LayoutId::swizzled, LayoutId::plain, "swizzled (b)",
                           models::padding_cost(kTile, kTile, 0).padded_bytes};
const LayoutSpec kSwizzledBf16{LayoutId::swizzled_bf16, LayoutId::plain_bf16, "swizzled BF16 (c)",
                               models::padding_cost(kTile, kTile, 0, 2).padded_bytes};

// Element offsets a warp touches: lane i at (row, i) for a row access, at (i, col) for a column access.
std::vector<std::int64_t> lanes_of(const LayoutTable& t, int index, bool column) {
    std::vector<std::int64_t> offsets;
    for (int lane = 0; lane < kTile; ++lane)
        offsets.push_back(column ? t.offsets[std::size_t(lane) * kTile + index] : t.offsets[std::size_t(index) * kTile + lane]);
    return offsets;
}

// The worst warp access of one kind over the tile: its rounds and which row or column it was.
struct Worst {
    int rounds = 0, index = 0;
};
Worst worst_rounds(const LayoutTable& t, bool column) {
    Worst w;
    for (int i = 0; i < kTile; ++i) {
        const int r = models::element_access_rounds(lanes_of(t, i, column), t.element_bytes);
        if (r > w.rounds) w = {r, i};
    }
    return w;
}

// Why the layout cannot be used for a tile at all (an offset outside its footprint, two elements in one
// place); nullopt when it can. Checked before any kernel runs through it: a stray shared-memory index can
// end the process.
std::optional<std::string> layout_fault(const LayoutTable& t) {
    if (t.elements < 1) return "kElements is " + std::to_string(t.elements) + ": the tile needs room for its elements";
    std::vector<int> owner(std::size_t(t.elements), -1);
    for (int i = 0; i < kTile * kTile; ++i) {
        const int off = t.offsets[std::size_t(i)];
        const int row = i / kTile, col = i % kTile;
        if (off < 0 || off >= t.elements)
            return strprintf("offset(%d, %d) = %d lies outside the tile's %lld elements", row, col, off, t.elements);
        if (owner[std::size_t(off)] >= 0) {
            const int other = owner[std::size_t(off)];
            return strprintf("offset(%d, %d) and offset(%d, %d) are both %d: two elements in one place", other / kTile,
                             other % kTile, row, col, off);
        }
        owner[std::size_t(off)] = i;
    }
    return std::nullopt;
}

std::optional<std::string> layout_fault(LayoutId id) { return layout_fault(layout_table(id)); }

// A failed result for a check that must not run a faulty layout on the GPU; nullopt when the layout is sound.
std::optional<CorrectnessResult> refuse_faulty(LayoutId id) {
    const auto fault = layout_fault(id);
    if (!fault) return std::nullopt;
    CorrectnessResult r;
    r.message = "not run: " + *fault;
    r.hint = "fix the layout first (its host check says what is wrong)";
    return r;
}

// Which two lanes of the worst access share a bank: the first pair, for the hint.
std::string conflict_example(const LayoutTable& t, const Worst& w, bool column) {
    const std::vector<std::int64_t> offsets = lanes_of(t, w.index, column);
    for (int a = 0; a < kTile; ++a)
        for (int b = a + 1; b < kTile; ++b) {
            const std::int64_t wa = offsets[std::size_t(a)] * t.element_bytes / 4, wb = offsets[std::size_t(b)] * t.element_bytes / 4;
            if (wa != wb && models::bank_of(wa) == models::bank_of(wb))
                return strprintf("lanes %d and %d read words %lld and %lld, both in bank %d", a, b, static_cast<long long>(wa),
                                 static_cast<long long>(wb), models::bank_of(wa));
        }
    return "";
}

CorrectnessResult check_layout(const LayoutSpec& s) {
    const LayoutTable t = layout_table(s.id);
    CorrectnessResult r;
    const long long bytes = t.elements * t.element_bytes;
    r.details = {{"footprint_bytes", bytes}, {"element_bytes", t.element_bytes}};
    if (const auto fault = layout_fault(t)) {
        return fail(std::move(r), *fault,
                    "every (row, col) of the 32x32 tile needs its own place in [0, kElements)");
    }
    const Worst write = worst_rounds(t, false), read = worst_rounds(t, true);
    r.details["row_write_rounds"] = write.rounds;
    r.details["column_read_rounds"] = read.rounds;
    r.details["worst_column"] = read.index;
    // The bank of each (row, col) of this layout, row by row: the report page draws the tile.
    nlohmann::json banks = nlohmann::json::array();
    for (int row = 0; row < kTile; ++row) {
        nlohmann::json line = nlohmann::json::array();
        for (int col = 0; col < kTile; ++col)
            line.push_back(models::bank_of(std::int64_t(t.offsets[std::size_t(row) * kTile + col]) * t.element_bytes / 4));
        banks.push_back(std::move(line));
    }
    r.details["banks"] = std::move(banks);
    r.passed = write.rounds == 1 && read.rounds == 1 && bytes <= s.budget_bytes;
    // The plain layout's rounds and the budget are answers of the paper exercises: not printed.
    r.message = strprintf("row writes %d round%s, column reads %d round%s (worst row and column of the tile); %lld bytes, %s",
                          write.rounds, write.rounds == 1 ? "" : "s", read.rounds, read.rounds == 1 ? "" : "s", bytes,
                          bytes <= s.budget_bytes ? "within the footprint it may take" : "MORE than it may take");
    if (read.rounds > 1)
        r.hint = strprintf("column %d: %s; rows of one column must land in different banks", read.index,
                           conflict_example(t, read, true).c_str());
    else if (write.rounds > 1)
        r.hint = strprintf("row %d: %s; a row must still be written in one round", write.index,
                           conflict_example(t, write, false).c_str());
    else if (bytes > s.budget_bytes)
        r.hint = s.id == LayoutId::padded ? "one element of padding per row is all it takes: set kElements to that footprint"
                                          : "a swizzle only permutes each row: the tile needs no more than 32 x 32 elements";
    return r;
}

// ---- the clock64 probe ------------------------------------------------------------------------------------

constexpr int kProbeReps = 64;
// A column read through a conflict-free layout costs what a row read costs; the plain layout's costs about
// as many times more as it has rounds. Twice the row read leaves room for the swizzle's XOR.
constexpr double kProbeSlack = 2.0;

CorrectnessResult check_probe(const LayoutSpec& s) {
    if (auto refused = refuse_faulty(s.id)) return *refused;
    CorrectnessResult r;
    const ProbeCycles mine = probe_layout(s.id, kProbeReps);
    const ProbeCycles plain = probe_layout(s.plain, kProbeReps);
    r.details = {{"cycles_per_access",
                  {{"row_write", mine.row_write}, {"column_read", mine.column_read}, {"row_read", mine.row_read}}},
                 {"plain_cycles_per_access",
                  {{"row_write", plain.row_write}, {"column_read", plain.column_read}, {"row_read", plain.row_read}}}};
    const bool reads = mine.column_read <= kProbeSlack * mine.row_read;
    const bool writes = mine.row_write <= kProbeSlack * plain.row_write;
    r.passed = reads && writes;
    r.message = strprintf("cycles per warp access: column read %.1f, row read %.1f, row write %.1f (plain layout: column "
                          "read %.1f, %.1fx its row read)",
                          mine.column_read, mine.row_read, mine.row_write, plain.column_read,
                          plain.column_read / plain.row_read);
    if (!reads)
        r.hint = strprintf("on the GPU a column read through this layout costs %.1fx a row read (at most %.0fx passes): "
                           "does offset() compute the same thing in device code as on the host?",
                           mine.column_read / mine.row_read, kProbeSlack);
    else if (!writes)
        r.hint = "row writes through this layout are slower than through the plain one: a row must stay one round";
    return r;
}

// ---- bank conflicts counted by Nsight Compute ---------------------------------------------------------------

constexpr int kProfileSide = 2048;
const std::string kLoadConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const std::string kStoreConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
const std::string kSharedLoads = "smsp__inst_executed_op_shared_ld.sum";

// A transpose launcher of the lab's interface, over elements of type T.
template <class T>
using Launcher = void (*)(const T*, T*, int, int, cudaStream_t);

void plain_32(const float* in, float* out, int rows, int cols, cudaStream_t s) { launch_transpose_plain(in, out, rows, cols, s); }

struct Profiled {
    std::string name;
    LayoutId layout;
    Launcher<float> launch;
};
const std::vector<Profiled> kProfiled{{"plain", LayoutId::plain, &plain_32},
                                      {"padded", LayoutId::padded, &launch_transpose_padded},
                                      {"swizzled", LayoutId::swizzled, &launch_transpose_swizzled}};

// Runs in a process of its own under ncu: each transpose (but one known to fault) once at kProfileSide², in the
// order of kProfiled. Nothing is taken from its output: which of ncu's kernels belong to which variant comes from
// the same runs made as graded code in the grader's own process, observed (conflict_profile()).
void profile_transposes() {
    const std::size_t n = std::size_t(kProfileSide) * kProfileSide;
    DeviceBuffer<float> in(n), out(n);
    CUDA_CHECK(cudaMemset(in.data(), 0, in.bytes()));  // not a kernel: ncu sees only the transposes
    for (const Profiled& v : kProfiled) {
        if (layout_fault(v.layout)) continue;
        v.launch(in.data(), out.data(), kProfileSide, kProfileSide, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
}

// Conflicts (loads, stores) and shared loads of each variant, summed over its kernels.
struct Counted {
    double loads = 0, stores = 0, requests = 0;
    std::size_t kernels = 0;
};
struct ConflictProfile {
    std::string skipped;
    std::string tampered;  // what ran under the profiler is not what runs when graded
    std::map<std::string, Counted> by_variant;
};

const ConflictProfile& conflict_profile() {
    static const ConflictProfile profile = [] {
        ConflictProfile p;
        if (skip_unobserved(p, "the graded run of the profiled work cannot be observed")) return p;
        // The profile target's runs as graded code, observed, one variant at a time: what each one launches.
        std::vector<std::pair<std::string, Observation>> graded;
        {
            const std::size_t n = std::size_t(kProfileSide) * kProfileSide;
            DeviceBuffer<float> in(n), out(n);
            CUDA_CHECK(cudaMemset(in.data(), 0, in.bytes()));
            for (const Profiled& v : kProfiled) {
                if (layout_fault(v.layout)) continue;
                graded.emplace_back(v.name, observe_call([&] {
                                        v.launch(in.data(), out.data(), kProfileSide, kProfileSide, nullptr);
                                        CUDA_CHECK(cudaDeviceSynchronize());
                                    }));
            }
        }
        const NcuProfile ncu = ncu_profile("transposes", {kLoadConflicts, kStoreConflicts, kSharedLoads});
        p.skipped = ncu.skipped;
        if (!p.skipped.empty()) return p;
        std::size_t total = 0;
        for (const auto& [name, seen] : graded) total += seen.graded_kernels().size();
        if (ncu.launches_forged) {
            p.tampered = "the profile run's output carried a launch log the runner did not write";
            return p;
        }
        if (total != ncu.kernels.size() || total != ncu.launches.size()) {
            p.tampered = strprintf("under Nsight Compute %zu kernels ran (%zu launches logged); in the graded runs of the "
                                   "same work %zu",
                                   ncu.kernels.size(), ncu.launches.size(), total);
            return p;
        }
        std::size_t next = 0;
        for (const auto& [name, seen] : graded) {
            const std::size_t kernels = seen.graded_kernels().size();
            const std::vector<NcuKernel> slice(ncu.kernels.begin() + std::ptrdiff_t(next),
                                               ncu.kernels.begin() + std::ptrdiff_t(next + kernels));
            const std::vector<LoggedLaunch> logged(ncu.launches.begin() + std::ptrdiff_t(next),
                                                   ncu.launches.begin() + std::ptrdiff_t(next + kernels));
            std::string face = tool_face_mismatch(slice, seen);
            if (face.empty()) face = tool_face_mismatch(logged, seen);  // the full names: template arguments too
            if (!face.empty()) {
                p.tampered = "the " + name + " transpose under Nsight Compute did not run what it runs when graded: " + face;
                return p;
            }
            Counted& c = p.by_variant[name];
            c.kernels = kernels;
            for (const NcuKernel& k : slice) {
                const auto get = [&](const std::string& key) { return k.metrics.count(key) ? k.metrics.at(key) : 0.0; };
                c.loads += get(kLoadConflicts);
                c.stores += get(kStoreConflicts);
                c.requests += get(kSharedLoads);
            }
            next += kernels;
        }
        if (!p.by_variant.count("plain") || p.by_variant.at("plain").kernels == 0)
            p.skipped = "the plain transpose (the grader's) launched no kernel";
        return p;
    }();
    return profile;
}

// Conflicts of a conflict-free layout may be a small remainder of the plain layout's; 5% of the model's
// count leaves room for what the hardware counts beyond the model.
constexpr double kConflictShare = 0.05;

CorrectnessResult check_conflicts(const LayoutSpec& s) {
    if (auto refused = refuse_faulty(s.id)) return *refused;
    CorrectnessResult r;
    const ConflictProfile& p = conflict_profile();
    if (!p.tampered.empty()) {
        r.tampered = p.tampered;
        return r;
    }
    if (!p.skipped.empty()) {
        r.skipped = "bank conflicts not counted: " + p.skipped;
        return r;
    }
    const Counted plain = p.by_variant.at("plain");
    const std::string name = layout_name(s.id);
    const Counted mine = p.by_variant.count(name) ? p.by_variant.at(name) : Counted{};
    const double model = double(models::tiled_transpose_extra_rounds(kProfileSide, kProfileSide, kTile));
    const double conflicts = mine.loads + mine.stores;
    r.details = {{"side", kProfileSide},
                 {"conflicts", {{"loads", mine.loads}, {"stores", mine.stores}, {"kernels", mine.kernels}}},
                 {"plain_conflicts", {{"loads", plain.loads}, {"stores", plain.stores}, {"shared_loads", plain.requests}}}};
    if (mine.kernels == 0) {
        return fail(std::move(r), "the launcher launched no kernel",
                    "launch your transpose_tiled kernel with this layout");
    }
    // A tiled transpose reads each tile column from shared memory: one warp request per 32 elements.
    const double requests = double(kProfileSide) * kProfileSide / kTile;
    r.details["shared_loads"] = mine.requests;
    if (mine.requests < requests) {
        return fail(std::move(r), strprintf("Nsight Compute at %d x %d: %.0f shared-memory load instructions, fewer than the %.0f column "
                                            "reads of a tiled transpose",
                                            kProfileSide, kProfileSide, mine.requests, requests),
                    "the transpose must go through the shared-memory tile: read each tile column with offset()");
    }
    r.passed = conflicts <= kConflictShare * model;
    // The model's figures stay out of the message: the plain tile's rounds per column read answer a paper exercise.
    r.message = strprintf("Nsight Compute at %d x %d: %.0f bank conflicts (loads %.0f, stores %.0f); the plain layout: %.0f "
                          "on loads",
                          kProfileSide, kProfileSide, conflicts, mine.loads, mine.stores, plain.loads);
    if (!r.passed)
        r.hint = strprintf("more than %.0f%% of the plain layout's modelled conflicts: does the kernel index the tile with "
                           "this layout's offset() on both sides?",
                           kConflictShare * 100);
    return r;
}

// ---- transposes ---------------------------------------------------------------------------------------------

struct Shape {
    int rows = 0, cols = 0;
    std::string tag;
    [[nodiscard]] std::string title() const { return std::to_string(rows) + " x " + std::to_string(cols); }
    [[nodiscard]] std::size_t count() const { return std::size_t(rows) * std::size_t(cols); }
};

// One element, one row, one column, partial tiles on both edges, odd sizes, the timed size and one drawn per
// run (its title names it; `--seed` reproduces it).
std::vector<Shape> shapes(const Lab& lab) {
    const auto rows = static_cast<int>(draw(lab.seed_for("lab04 drawn rows"), 1, 3000));
    const auto cols = static_cast<int>(draw(lab.seed_for("lab04 drawn cols"), 1, 3000));
    return {{1, 1, "1x1"},           {1, 1000, "1x1000"},       {1000, 1, "1000x1"},     {33, 31, "33x31"},
            {1000, 999, "1000x999"}, {4097, 8191, "4097x8191"}, {8192, 8192, "8192x8192"}, {rows, cols, "drawn"}};
}

template <class T>
constexpr bool kIsBf16 = std::is_same_v<T, bf16>;

// Input of one shape and its transpose, computed on the host once per run.
template <class T>
struct Case {
    Shape shape;
    std::vector<raw_bits_t<T>> host, expected;
    DeviceBuffer<T> in;
};

template <class T>
const Case<T>& get_case(Context& ctx, const Shape& s) {
    const std::string key = s.tag + (kIsBf16<T> ? " bf16" : " fp32");
    return cached_case<Case<T>>(key, [&] {
        auto c = std::make_unique<Case<T>>();
        c->shape = s;
        c->host.resize(s.count());
        const std::uint64_t seed = ctx.seed_for("lab04 inputs " + key);
        if constexpr (kIsBf16<T>) fill_uniform_bf16(c->host, seed, -8.0f, 8.0f);
        else fill_uniform(std::span<float>(c->host), seed, -8.0f, 8.0f);
        c->expected.resize(s.count());
        // In 64 x 64 blocks: element by element, the strided writes made this a second at 8192².
        constexpr std::size_t kBlock = 64;
        const std::size_t rows = std::size_t(s.rows), cols = std::size_t(s.cols);
        for (std::size_t r0 = 0; r0 < rows; r0 += kBlock)
            for (std::size_t c0 = 0; c0 < cols; c0 += kBlock)
                for (std::size_t r = r0; r < std::min(rows, r0 + kBlock); ++r)
                    for (std::size_t col = c0; col < std::min(cols, c0 + kBlock); ++col)
                        c->expected[col * rows + r] = c->host[r * cols + col];
        if constexpr (kIsBf16<T>) c->in = to_device_bits(c->host);
        else c->in = to_device(c->host);
        return c;
    });
}

template <class T>
CorrectnessResult check_transpose(Context& ctx, const LayoutSpec& layout, Launcher<T> launch, const std::string& name,
                                  const Shape& s) {
    if (auto refused = refuse_faulty(layout.id)) return *refused;
    const Case<T>& c = get_case<T>(ctx, s);
    const auto out = run_on_poisoned<T>(s.count(), [&](T* o) { launch(c.in.data(), o, s.rows, s.cols, nullptr); });
    // The output is [cols, rows]; mismatches are located in its 32x32 tiles.
    const TileLayout tiles{std::size_t(s.cols), std::size_t(s.rows), kTile, kTile};
    CorrectnessResult r = to_result(compare_bits(std::span(out), std::span(c.expected), tiles), "bitwise against the transpose");
    r = require_unchanged(std::move(r), {input("in", c.in, c.host)});
    DeviceBuffer<T> spare(s.count());  // captured, not run
    return require_own_kernels(std::move(r), ctx, name,
                               [&](cudaStream_t st) { launch(c.in.data(), spare.data(), s.rows, s.cols, st); });
}

// ---- timed ----------------------------------------------------------------------------------------------

// Two input/output sets of one FP32 shape for the timing helpers to rotate over; a timed run is verified
// bit for bit against the naive transpose of its set's data.
struct TimedSets {
    int rows, cols;
    DeviceBuffer<float> in[2], out[2], expected;
    TimedSets(int rows_, int cols_, std::uint64_t seed) : rows(rows_), cols(cols_), expected(count()) {
        for (int i = 0; i < 2; ++i) {
            in[i] = DeviceBuffer<float>(count());
            out[i] = DeviceBuffer<float>(count());
            refill(i, seed + std::uint64_t(i), nullptr);
        }
    }
    [[nodiscard]] std::size_t count() const { return std::size_t(rows) * std::size_t(cols); }
    void refill(int i, std::uint64_t seed, cudaStream_t s) { fill_uniform_device(in[i].data(), count(), seed, -8.0f, 8.0f, s); }
    std::pair<void*, std::size_t> output(int i) { return output_of(out[i]); }
    std::string verify(int i, const void* got) {
        launch_transpose_naive(in[i].data(), expected.data(), rows, cols, nullptr);
        const DeviceDiff d = compare_bits_device(got, expected.data(), count(), sizeof(float));
        if (d.count == 0) return std::string();
        return "against the transpose of its data: " + std::to_string(d.count) + " of " + std::to_string(count()) +
               " elements differ; first at index " + std::to_string(*d.first);
    }
    Rotation rotation(Launcher<float> launch) {
        return rotation_of(*this, [this, launch](int i, cudaStream_t s) { launch(in[i].data(), out[i].data(), rows, cols, s); });
    }
};

constexpr int kTimedSide = 8192;
const double kTimedBytes = 2.0 * double(kTimedSide) * kTimedSide * sizeof(float);  // read once, write once

// The baselines: the copy, and the plain tiled transpose (no padding, no swizzle).
CopyBaseline copy_baseline_timed() { return copy_baseline(kTimedBytes); }
SetBaseline<TimedSets> plain_baseline() {
    return baseline_on<TimedSets>(
        "plain", "the plain tiled transpose",
        [](Context& ctx) { return TimedSets(kTimedSide, kTimedSide, ctx.seed_for("lab04 baseline plain")); },
        [](TimedSets& sets, int i, cudaStream_t s) {
            launch_transpose_plain(sets.in[i].data(), sets.out[i].data(), sets.rows, sets.cols, s);
        });
}

struct Variant {
    std::string id, name;
    const LayoutSpec* layout;
    Launcher<float> launch;
};

}  // namespace

void register_checks(Lab& lab) {
    for (const LayoutSpec* s : {&kPadded, &kSwizzled, &kSwizzledBf16})
        lab.host_check("layout." + layout_name(s->id), s->title + " layout: bank model (host)", 4,
                       [s](Context&) { return check_layout(*s); });
    for (const LayoutSpec* s : {&kPadded, &kSwizzled, &kSwizzledBf16})
        lab.correctness("probe." + layout_name(s->id), s->title + " layout: clock64 probe", 2,
                        [s](Context&) { return check_probe(*s); });
    lab.profile_target("transposes", &profile_transposes);
    // grader --profile: the idea of the lab in the hardware's own count (the report page shows it; no points).
    lab.profile_evidence({"transposes",
                          "each transpose's shared-memory loads: how many wavefronts a load request takes (1: no "
                          "conflict, 32: every thread of the warp in one bank) and the conflicts counted",
                          {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts per load request",
                            kSharedLoads},
                           {kLoadConflicts, "load bank conflicts", ""},
                           {kStoreConflicts, "store bank conflicts", ""},
                           {kSharedLoads, "shared load requests", ""}}});
    for (const LayoutSpec* s : {&kPadded, &kSwizzled})
        lab.correctness("conflicts." + layout_name(s->id), s->title + ": conflicts (ncu)", 2,
                        [s](Context&) { return check_conflicts(*s); });

    const std::vector<Shape> all = shapes(lab);
    const std::vector<Variant> fp32{{"padded", "launch_transpose_padded", &kPadded, &launch_transpose_padded},
                                    {"swizzled", "launch_transpose_swizzled", &kSwizzled, &launch_transpose_swizzled}};
    for (const Variant& v : fp32)
        for (const Shape& s : all)
            lab.correctness("correct." + v.id + "." + s.tag, v.layout->title + " transpose, " + s.title() +
                                                                (s.tag == "drawn" ? " (drawn)" : ""),
                            1.75, [v, s](Context& ctx) { return check_transpose<float>(ctx, *v.layout, v.launch, v.name, s); });
    for (const Shape& s : all) {
        if (s.tag == "1x1000" || s.tag == "1000x1" || s.tag == "8192x8192") continue;  // five shapes for BF16
        lab.correctness("correct.swizzled_bf16." + s.tag,
                        kSwizzledBf16.title + " transpose, " + s.title() + (s.tag == "drawn" ? " (drawn)" : ""), 1.2,
                        [s](Context& ctx) {
                            return check_transpose<bf16>(ctx, kSwizzledBf16, &launch_transpose_swizzled_bf16,
                                                         "launch_transpose_swizzled_bf16", s);
                        });
    }

    // Bars from the solution on an H200 (docs/performance-log.md): it reaches about 0.9 of the copy and
    // about 2.2x the plain tiled transpose, which itself reaches about 0.4 of the copy.
    const CopyBaseline copy = copy_baseline_timed();
    const SetBaseline<TimedSets> plain = plain_baseline();
    for (const Variant& v : fp32) {
        const std::string needs = "correct." + v.id + ".8192x8192";
        const PerfSpec bw{.requires_check = needs, .pass_bar = 0.6, .full_bar = 0.8, .unit = "of copy BW", .baseline = copy.baseline};
        lab.performance("perf." + v.id + "_copy_fraction", v.layout->title + " bandwidth, 8192 x 8192 (vs copy)", 7, bw,
                        [v, copy](Context& ctx) {
                            TimedSets sets(kTimedSide, kTimedSide, ctx.seed_for("lab04 timed " + v.id));
                            return fraction_of_copy_bandwidth(ctx, copy, sets.rotation(v.launch), "lab04 " + v.id + " vs copy");
                        });
        const PerfSpec up{.requires_check = needs, .pass_bar = 1.4, .full_bar = 1.8, .unit = "x plain tiled", .baseline = plain.baseline};
        lab.performance("perf." + v.id + "_vs_plain", v.layout->title + " vs the plain tiled transpose, 8192 x 8192", 5, up,
                        [v, plain](Context& ctx) {
                            TimedSets sets(kTimedSide, kTimedSide, ctx.seed_for("lab04 timed vs plain " + v.id));
                            return speedup_over(ctx, plain, sets, sets.rotation(v.launch), kTimedBytes,
                                                "lab04 " + v.id + " vs plain");
                        });
    }
}
