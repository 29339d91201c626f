// FROZEN: do not edit. Lab 11's graded checks. Every variant's outputs (every step's vector) are compared bit for bit
// with the given chain's on the same inputs: all compute an element in chain::row_dot()'s order, so any difference is
// a step that read its input too early, read the wrong input, or skipped work. What each variant does at its kernel
// boundaries is graded from what the grader observed, never from what the code says: the kernels, graphs and copies a
// call ran (observer), the instructions its kernels hold (griddepcontrol.wait for (b), a GPU-scope fence for (c)), and
// the grid of the persistent kernel against what the GPU can hold resident at once (its registers and shared memory as
// the driver launched it). A persistent kernel that never finishes is stopped by a deadline and named. Speed: the
// graph against the given chain, the PDL and persistent chains against the given chain replayed as a graph (the
// grader's own), interleaved, at the chapter's chain of 64 GEMVs of 4096 × 4096.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "chain.hpp"
#include "chain_math.cuh"
#include "grader/gpu_checks.hpp"
#include "grader/observer.hpp"
#include "labs/compare_device.hpp"
#include "labs/cuda_check.hpp"
#include "labs/graph.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/occupancy_probe.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

using bf16 = __nv_bfloat16;

// ---- shapes and inputs -------------------------------------------------------------------------------------------

struct Shape {
    int steps = 0, dim = 0;
    std::string tag, title;
    [[nodiscard]] std::size_t w_count() const { return std::size_t(steps) * std::size_t(dim) * std::size_t(dim); }
    [[nodiscard]] std::size_t x_count() const { return std::size_t(steps + 1) * std::size_t(dim); }
};

// One step; a few; many short steps; wide rows (dim 8192, each lane 32 chunks); a shape drawn from the run's seed (at
// most 256 MiB of weights); and the chapter's chain, 64 GEMVs of 4096 × 4096 (2 GiB of weights).
std::vector<Shape> shapes(const Lab& lab) {
    const int dim = static_cast<int>(draw(lab.seed_for("lab11 drawn dim"), kDimMultiple, kMaxDim, kDimMultiple));
    const std::int64_t most = std::max<std::int64_t>(1, (std::int64_t(256) << 20) / (2 * std::int64_t(dim) * dim));
    const int steps = static_cast<int>(draw(lab.seed_for("lab11 drawn steps"), 1, std::min<std::int64_t>(kMaxSteps, most)));
    return {{1, 256, "one", "1 step, dim 256"},
            {3, 512, "three", "3 steps, dim 512"},
            {64, 256, "many", "64 steps, dim 256"},
            {4, kMaxDim, "wide", "4 steps, dim " + std::to_string(kMaxDim)},
            {steps, dim, "drawn", std::to_string(steps) + " steps, dim " + std::to_string(dim) + " (drawn)"},
            {kMaxSteps, 4096, "chapter", "64 steps, dim 4096 (the chapter's chain)"}};
}

Shape chapter_shape() { return {kMaxSteps, 4096, "chapter", "64 steps, dim 4096 (the chapter's chain)"}; }

// W uniform in ±√(3 / dim): each step keeps the vector's scale (a sum of dim products of variance 1/dim each).
float weight_range(int dim) { return std::sqrt(3.0f / float(dim)); }

// A shape's weights and input, and the given chain's outputs on them (the reference bits).
struct Case {
    Shape s;
    DeviceBuffer<bf16> w;
    DeviceBuffer<bf16> x0;         // dim values
    DeviceBuffer<bf16> reference;  // x_0 … x_steps as the given chain computes them
};

// The given chain's outputs for weights w and input x0 into out (x_0 … x_steps), on the default stream, synchronised.
void given_chain(const bf16* w, const bf16* x0, bf16* out, const Shape& s, unsigned* workspace) {
    CUDA_CHECK(cudaMemcpy(out, x0, std::size_t(s.dim) * sizeof(bf16), cudaMemcpyDeviceToDevice));
    ChainArgs a;
    a.w = w, a.x = out, a.steps = s.steps, a.dim = s.dim, a.workspace = workspace;
    launch_chain_given(a, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
}

// The given kernel's first rows of step 0 against the same order on the host (chain::host_row_dot): the reference is
// what the handout says it is. A mismatch is the lab's fault, not the student's.
void check_reference(const Case& c) {
    const int dim = c.s.dim, rows = std::min(dim, 32);
    std::vector<std::uint16_t> w(static_cast<std::size_t>(rows) * static_cast<std::size_t>(dim));
    std::vector<std::uint16_t> x(static_cast<std::size_t>(dim)), y(static_cast<std::size_t>(rows));
    CUDA_CHECK(cudaMemcpy(w.data(), c.w.data(), w.size() * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(x.data(), c.x0.data(), x.size() * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(y.data(), c.reference.data() + dim, y.size() * 2, cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r)
        if (chain::host_row_dot(w.data() + std::size_t(r) * std::size_t(dim), x.data(), dim) != y[std::size_t(r)])
            throw std::logic_error(strprintf("lab definition error: the given chain's row %d of step 0 differs from "
                                             "chain::host_row_dot() at dim %d",
                                             r, dim));
}

const Case& get_case(Context& ctx, const Shape& s) {
    return cached_case<Case>(s.tag, [&] {
        auto c = std::make_unique<Case>();
        c->s = s;
        c->w = DeviceBuffer<bf16>(s.w_count());
        c->x0 = DeviceBuffer<bf16>(std::size_t(s.dim));
        c->reference = DeviceBuffer<bf16>(s.x_count());
        fill_uniform_bf16_device(c->w.data(), c->w.size(), ctx.seed_for("lab11 w " + s.tag), -weight_range(s.dim), weight_range(s.dim));
        fill_uniform_bf16_device(c->x0.data(), c->x0.size(), ctx.seed_for("lab11 x " + s.tag), -1.0f, 1.0f);
        DeviceBuffer<unsigned> work(kWorkspaceWords);
        given_chain(c->w.data(), c->x0.data(), c->reference.data(), s, work.data());
        check_reference(*c);
        return c;
    });
}

// ---- one observed call -------------------------------------------------------------------------------------------

struct Variant {
    const char* id;
    const char* title;
    ChainLauncher launch;
};

const Variant kVariants[] = {
    {"graph", "(a) graph", &launch_chain_graph},
    {"pdl", "(b) PDL", &launch_chain_pdl},
    {"persistent", "(c) persistent", &launch_chain_persistent},
};

// How long a call may run before the grader calls it hung: far past any chain's time (the chapter's takes well under a
// millisecond on a current GPU), short enough that a hang costs a few seconds, not the lab's whole timeout.
constexpr double kDeadlineSeconds = 5.0;

struct Output {
    std::vector<std::uint16_t> x;  // x_0 … x_steps, as the call left them
    Observation seen;
    DeviceDiff diff;                // against the reference
};

// One call of a launcher on the case's inputs, its outputs poisoned and its workspace scrambled, observed, on a stream
// of the grader's (polled: a kernel that never ends is stopped by the deadline, DeviceHung).
Output run_observed(Context& ctx, const Variant& v, const Case& c, const std::string& salt) {
    const Shape& s = c.s;
    DeviceBuffer<bf16> x(s.x_count());
    DeviceBuffer<unsigned> work(kWorkspaceWords);
    x.poison();
    CUDA_CHECK(cudaMemcpy(x.data(), c.x0.data(), c.x0.bytes(), cudaMemcpyDeviceToDevice));
    fill_random_bytes_device(work.data(), work.bytes(), ctx.seed_for("lab11 scramble " + salt));
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ChainArgs a;
    a.w = c.w.data(), a.x = x.data(), a.steps = s.steps, a.dim = s.dim, a.workspace = work.data();
    Output out;
    {
        Window window;
        {
            GradedCall graded;
            v.launch(a, stream);
        }
        wait_or_hang(stream, kDeadlineSeconds, std::string(v.title) + " at " + s.title);
        out.seen = window.close();
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    out.diff = compare_bits_device(x.data(), c.reference.data(), s.x_count(), sizeof(bf16));
    if (out.diff.count > 0) out.x = to_host_bits(x);
    return out;
}

// "" when the outputs are the reference's, else where they first differ.
std::string wrong_outputs(const Output& o, const Shape& s) {
    if (o.diff.count == 0) return {};
    const std::size_t at = o.diff.first.value_or(0);
    const int step = static_cast<int>(at / std::size_t(s.dim)), row = static_cast<int>(at % std::size_t(s.dim));
    const std::uint16_t got = at < o.x.size() ? o.x[at] : 0;
    if (step == 0)
        return strprintf("the input x_0 was changed (element %d): a launcher writes x_1 … x_%d only", row, s.steps);
    return strprintf("x_%d[%d] (step %d's row %d) is 0x%04x, not the given chain's bits%s; %zu of the %zu outputs differ",
                     step, row, step - 1, row, got, got == 0xFFFF ? " (still the poison: never written)" : "", o.diff.count,
                     std::size_t(s.steps) * std::size_t(s.dim));
}

const char* kHint =
    "compute every element with chain::row_dot()'s order, and read a step's input only once the previous step has "
    "finished writing it";

CorrectnessResult check_variant(Context& ctx, const Variant& v, const Shape& s) {
    const Case& c = get_case(ctx, s);
    const Output out = run_observed(ctx, v, c, std::string(v.id) + " " + s.tag);
    CorrectnessResult r;
    const std::string wrong = wrong_outputs(out, s);
    r = wrong.empty() ? pass(std::move(r), s.title + ": every step's vector bit-identical to the given chain's")
                      : fail(std::move(r), wrong, kHint);
    return require_own_kernels(std::move(r), ctx, v.title, out.seen);
}

// ---- boundaries, as observed ------------------------------------------------------------------------------------

// The graded code's allocations in a call (the workspace is the only memory a launcher may use).
std::uint64_t allocated(const Observation& seen) {
    std::uint64_t n = 0;
    for (const ObservedAllocation& a : seen.allocations) n += a.graded ? a.bytes : 0;
    return n;
}

// What a launcher may hold of its own between calls (static data a header may carry): far below the chapter's chain's
// outputs (64 × 4096 BF16, 512 KiB), which a launcher that replays its last results instead of computing would keep.
constexpr std::uint64_t kOwnMemorySlack = std::uint64_t(64) << 10;

// "" when the call allocated nothing and the graded code holds no more than the slack (its allocations still live and
// its modules' static __device__ data, as observed); else what it holds.
std::string own_memory(const Observation& seen) {
    if (const std::uint64_t bytes = allocated(seen); bytes > 0)
        return strprintf("; it allocated %llu bytes of its own", static_cast<unsigned long long>(bytes));
    const std::uint64_t held = Observer::instance().memory_held().total;
    if (held > kOwnMemorySlack)
        return strprintf("; your code holds %.2f MiB of its own (static __device__ data included): room for outputs kept "
                         "from one call to the next",
                         double(held) / (1 << 20));
    return {};
}

// The kernels of a call in the order they started, and the gaps between one's end and the next one's start (µs;
// negative: the next started before the previous ended).
struct Timeline {
    std::vector<ObservedKernel> kernels;
    std::vector<double> gaps_us;
    [[nodiscard]] int overlapped() const {
        return static_cast<int>(std::count_if(gaps_us.begin(), gaps_us.end(), [](double g) { return g < 0; }));
    }
    [[nodiscard]] double median_gap_us() const {
        if (gaps_us.empty()) return 0;
        std::vector<double> g = gaps_us;
        std::nth_element(g.begin(), g.begin() + std::ptrdiff_t(g.size() / 2), g.end());
        return g[g.size() / 2];
    }
    // Every kernel's start and end (µs from the first start): the report's data for the handout's timeline figure.
    [[nodiscard]] nlohmann::json starts_ends_us() const {
        nlohmann::json out = nlohmann::json::array();
        for (const ObservedKernel& k : kernels)
            out.push_back({double(k.start - kernels.front().start) * 1e-3, double(k.end - kernels.front().start) * 1e-3});
        return out;
    }
    [[nodiscard]] double span_us() const {
        if (kernels.empty()) return 0;
        std::uint64_t last = 0;
        for (const ObservedKernel& k : kernels) last = std::max(last, k.end);
        return double(last - kernels.front().start) * 1e-3;
    }
};

Timeline timeline_of(std::vector<ObservedKernel> ks) {
    std::sort(ks.begin(), ks.end(), [](const ObservedKernel& a, const ObservedKernel& b) { return a.start < b.start; });
    Timeline t;
    for (std::size_t i = 1; i < ks.size(); ++i) t.gaps_us.push_back((double(ks[i].start) - double(ks[i - 1].end)) * 1e-3);
    t.kernels = std::move(ks);
    return t;
}

// The given chain at the chapter's shape, observed: its boundaries, for comparison in the messages.
Timeline given_timeline(Context& ctx) {
    static const Timeline t = [&] {
        const Case& c = get_case(ctx, chapter_shape());
        DeviceBuffer<bf16> x(c.s.x_count());
        DeviceBuffer<unsigned> work(kWorkspaceWords);
        Window window;
        given_chain(c.w.data(), c.x0.data(), x.data(), c.s, work.data());
        return timeline_of(window.close().kernels);
    }();
    return t;
}

std::string names_of(const std::vector<ObservedKernel>& ks) {
    std::vector<std::string> seen;
    for (const ObservedKernel& k : ks) {
        const std::string n = kernel_display_name(k.name);
        if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
    }
    std::string out;
    for (const std::string& n : seen) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// What (a) ran: the chain's kernels, every one a node of one graph the call launched; no copies, no memory of its own.
CorrectnessResult check_graph_launches(Context& ctx) {
    const Case& c = get_case(ctx, chapter_shape());
    const Output out = run_observed(ctx, kVariants[0], c, "graph launches");
    CorrectnessResult r;
    if (skip_unobserved(r, "the launches cannot be observed")) return r;
    const Timeline t = timeline_of(out.seen.graded_kernels());
    const std::size_t copies = out.seen.graded_copies().size();
    const int steps = c.s.steps;
    std::set<std::uint32_t> graphs;
    int direct = 0;
    for (const ObservedKernel& k : t.kernels) {
        if (k.graph != 0) graphs.insert(k.graph);
        else ++direct;
    }
    const Timeline given = given_timeline(ctx);
    r.details = {{"kernels", t.kernels.size()}, {"graphs", graphs.size()}, {"direct_launches", direct}, {"copies", copies},
                 {"median_gap_us", t.median_gap_us()}, {"given_median_gap_us", given.median_gap_us()},
                 {"timeline_us", t.starts_ends_us()}, {"given_timeline_us", given.starts_ends_us()},
                 {"observed", out.seen.summary()}};
    const std::string seen = strprintf("observed %zu kernels (%s), %d launched directly, in %zu graph%s, and %zu cop%s or memset%s",
                                       t.kernels.size(), names_of(t.kernels).c_str(), direct, graphs.size(),
                                       graphs.size() == 1 ? "" : "s", copies, copies == 1 ? "y" : "ies", copies == 1 ? "" : "s");
    r.details["held_bytes"] = Observer::instance().memory_held().total;
    if (const std::string own = own_memory(out.seen); !own.empty())
        return fail(std::move(r), seen + own,
                    "the graph's buffers are the caller's: no allocations");
    if (int(t.kernels.size()) != steps || graphs.size() != 1 || direct != 0 || copies != 0)
        return fail(std::move(r), seen + strprintf("; expected the %d steps as the %d kernel nodes of one graph launch, nothing else", steps, steps),
                    "capture the steps' launches once (cudaStreamBeginCapture on a stream of your own), instantiate, and "
                    "cudaGraphLaunch the instance on the caller's stream");
    return pass(std::move(r), seen + strprintf(": one graph launch; between steps a median %.2f µs from one kernel's end to the "
                                               "next one's start (the given chain's launches: %.2f µs)",
                                               t.median_gap_us(), given.median_gap_us()));
}

// What (b) ran: one kernel per step, launched directly (not in a graph); no copies, no memory of its own. How many
// boundaries overlapped (a step that started before the previous one ended) is reported.
CorrectnessResult check_pdl_launches(Context& ctx) {
    const Case& c = get_case(ctx, chapter_shape());
    const Output out = run_observed(ctx, kVariants[1], c, "pdl launches");
    CorrectnessResult r;
    if (skip_unobserved(r, "the launches cannot be observed")) return r;
    const Timeline t = timeline_of(out.seen.graded_kernels());
    const std::size_t copies = out.seen.graded_copies().size();
    const int steps = c.s.steps;
    int in_graph = 0;
    for (const ObservedKernel& k : t.kernels) in_graph += k.graph != 0;
    const Timeline given = given_timeline(ctx);
    r.details = {{"kernels", t.kernels.size()}, {"in_graph", in_graph}, {"copies", copies}, {"overlapped", t.overlapped()},
                 {"median_gap_us", t.median_gap_us()}, {"given_median_gap_us", given.median_gap_us()},
                 {"timeline_us", t.starts_ends_us()}, {"observed", out.seen.summary()}};
    const std::string seen = strprintf("observed %zu kernels (%s), %d of them in a graph, and %zu cop%s or memset%s", t.kernels.size(),
                                       names_of(t.kernels).c_str(), in_graph, copies, copies == 1 ? "y" : "ies", copies == 1 ? "" : "s");
    r.details["held_bytes"] = Observer::instance().memory_held().total;
    if (const std::string own = own_memory(out.seen); !own.empty())
        return fail(std::move(r), seen + own,
                    "no allocations: each step reads its input where the previous one wrote it");
    if (int(t.kernels.size()) != steps || in_graph != 0 || copies != 0)
        return fail(std::move(r), seen + strprintf("; expected %d kernels, one launch per step, nothing else", steps),
                    "launch each step with cudaLaunchKernelEx and cudaLaunchAttributeProgrammaticStreamSerialization");
    return pass(std::move(r), seen + strprintf(": %d of %d boundaries overlapped (the next step started before the previous one "
                                               "ended); median gap %.2f µs (the given chain's: %.2f µs)",
                                               t.overlapped(), steps - 1, t.median_gap_us(), given.median_gap_us()));
}

// What (c) ran: one kernel, at most one memset (its counter and flags zeroed), no memory of its own; its grid no
// larger than what the GPU holds resident at once with the registers and shared memory it launched with (a block that
// is not resident cannot do the work a resident one waits for), and at least one block per SM.
CorrectnessResult check_persistent_launches(Context& ctx) {
    const Case& c = get_case(ctx, chapter_shape());
    const Output out = run_observed(ctx, kVariants[2], c, "persistent launches");
    CorrectnessResult r;
    if (skip_unobserved(r, "the launches cannot be observed")) return r;
    const std::vector<ObservedKernel> ks = out.seen.graded_kernels();
    const std::size_t copies = out.seen.graded_copies().size();
    r.details = {{"kernels", ks.size()}, {"copies", copies}, {"observed", out.seen.summary()}};
    const std::string seen = strprintf("observed %zu kernel%s%s%s and %zu cop%s or memset%s", ks.size(), ks.size() == 1 ? "" : "s",
                                       ks.empty() ? "" : ": ", names_of(ks).c_str(), copies, copies == 1 ? "y" : "ies",
                                       copies == 1 ? "" : "s");
    r.details["held_bytes"] = Observer::instance().memory_held().total;
    if (const std::string own = own_memory(out.seen); !own.empty())
        return fail(std::move(r), seen + own,
                    "keep the task counter and the flags in the workspace you are given");
    if (ks.size() != 1 || copies > 1)
        return fail(std::move(r), seen + "; expected one kernel for the whole chain and at most one memset",
                    "one launch: the kernel's blocks take every step's tasks from the queue");
    const ObservedKernel& k = ks.front();
    const std::uint64_t grid = std::uint64_t(k.grid[0]) * k.grid[1] * k.grid[2];
    const int threads = static_cast<int>(k.block[0] * k.block[1] * k.block[2]);
    const models::Occupancy occ =
        models::occupancy(device_sm_limits(), {threads, static_cast<int>(k.registers), std::int64_t(k.static_smem) + k.dynamic_smem});
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::uint64_t resident = std::uint64_t(occ.resident_blocks) * std::uint64_t(sms);
    r.details["grid"] = grid;
    r.details["resident_blocks"] = resident;
    r.details["span_us"] = timeline_of(ks).span_us();
    r.details["timeline_us"] = timeline_of(ks).starts_ends_us();
    const std::string sized = strprintf("%s; its grid of %llu blocks of %d threads (%u registers each, %d B of shared memory) "
                                        "against %llu resident at once (%d per SM × %d SMs, limited by %s)",
                                        seen.c_str(), static_cast<unsigned long long>(grid), threads, k.registers,
                                        k.static_smem + k.dynamic_smem, static_cast<unsigned long long>(resident),
                                        occ.resident_blocks, sms, occ.limiter().c_str());
    if (grid > resident)
        return fail(std::move(r), sized + ": blocks that are not resident wait for a place on an SM, and a resident block "
                                          "that waits for their work never gives one up",
                    "size the grid with cudaOccupancyMaxActiveBlocksPerMultiprocessor() × the SM count");
    if (grid < std::uint64_t(sms))
        return fail(std::move(r), sized + ": fewer blocks than SMs leaves SMs idle for the whole chain",
                    "size the grid with cudaOccupancyMaxActiveBlocksPerMultiprocessor() × the SM count");
    return pass(std::move(r), sized + strprintf("; the chain took %.1f µs inside it", timeline_of(ks).span_us()));
}

// (b)'s and (c)'s machine code: the wait for the previous grid, the fence before a flag.
CorrectnessResult check_code(Context& ctx, bool pdl) {
    const Case& c = get_case(ctx, chapter_shape());
    const Variant& v = pdl ? kVariants[1] : kVariants[2];
    const Output out = run_observed(ctx, v, c, pdl ? "pdl code" : "persistent code");
    CodeNeeds needs;
    if (pdl) needs.dependency_wait = true;
    else needs.gpu_fence = true;
    return kernel_code_verdict(ctx, out.seen, needs, v.title,
                               pdl ? "each step waits for the previous one with griddepcontrol.wait (asm volatile, with a "
                                     "\"memory\" clobber) before it reads its input"
                                   : "publish a task's flag after __threadfence() (or with a release atomic): without the "
                                     "fence another SM may see the flag before the rows it announces");
}

// ---- timings ------------------------------------------------------------------------------------------------------

// The chapter's chain on two sets: the weights shared (2 GiB, read-only), each set its own vectors and workspace. Every
// timed call gets a new x_0 and a scrambled workspace (the helpers scramble the outputs); a verified call is compared
// with the given chain run on the same inputs.
struct ChainSets {
    Shape s = chapter_shape();
    std::shared_ptr<DeviceBuffer<bf16>> w;
    DeviceBuffer<bf16> x[2];
    DeviceBuffer<unsigned> work[2];
    DeviceBuffer<bf16> check_x;
    DeviceBuffer<unsigned> check_work{kWorkspaceWords};
    std::unique_ptr<CapturedGraph> given_graph[2];  // the given chain captured per set (the grader's own graph)

    explicit ChainSets(std::uint64_t seed) : w(std::make_shared<DeviceBuffer<bf16>>(s.w_count())), check_x(s.x_count()) {
        fill_uniform_bf16_device(w->data(), w->size(), seed, -weight_range(s.dim), weight_range(s.dim));
        for (int i = 0; i < 2; ++i) {
            x[i] = DeviceBuffer<bf16>(s.x_count());
            work[i] = DeviceBuffer<unsigned>(kWorkspaceWords);
            refill(i, seed + 1 + std::uint64_t(i), nullptr);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < 2; ++i)
            given_graph[i] = std::make_unique<CapturedGraph>([this, i](cudaStream_t st) { launch_chain_given(args(i), st); });
    }
    ChainArgs args(int i) {
        ChainArgs a;
        a.w = w->data(), a.x = x[i].data(), a.steps = s.steps, a.dim = s.dim, a.workspace = work[i].data();
        return a;
    }
    void refill(int i, std::uint64_t seed, cudaStream_t st) {
        fill_uniform_bf16_device(x[i].data(), std::size_t(s.dim), seed, -1.0f, 1.0f, st);
        fill_random_bytes_device(work[i].data(), work[i].bytes(), seed + 1, st);
    }
    // The outputs: x_1 … x_steps.
    std::pair<void*, std::size_t> output(int i) {
        return {static_cast<void*>(x[i].data() + s.dim), std::size_t(s.steps) * std::size_t(s.dim) * sizeof(bf16)};
    }
    std::string verify(int i, const void* copy) {
        given_chain(w->data(), x[i].data(), check_x.data(), s, check_work.data());
        const std::size_t n = std::size_t(s.steps) * std::size_t(s.dim);
        const DeviceDiff d = compare_bits_device(copy, check_x.data() + s.dim, n, sizeof(bf16));
        if (d.count == 0) return {};
        const std::size_t at = d.first.value_or(0);
        return strprintf("step %zu's row %zu and %zu more outputs differ from the given chain's on the same inputs", at / std::size_t(s.dim),
                         at % std::size_t(s.dim), d.count - 1);
    }
    // The given chain as one graph (captured with the set), launched on st.
    void run_given_graph(int i, cudaStream_t st) { given_graph[i]->launch(st); }
    Rotation rotation(ChainLauncher f) {
        Rotation r = rotation_of(*this, [this, f](int i, cudaStream_t st) { f(args(i), st); });
        if (f == &launch_chain_pdl) r.code = CodeNeeds{.dependency_wait = true};
        if (f == &launch_chain_persistent) r.code = CodeNeeds{.gpu_fence = true};
        return r;
    }
};

SetBaseline<ChainSets> given_eager() {
    return baseline_on<ChainSets>(
        "given_eager", "the given chain, one launch per step",
        [](Context& ctx) { return ChainSets(ctx.seed_for("lab11 baseline eager")); },
        [](ChainSets& sets, int i, cudaStream_t st) { launch_chain_given(sets.args(i), st); });
}

SetBaseline<ChainSets> given_graph() {
    return baseline_on<ChainSets>(
        "given_graph", "the given chain replayed as one graph (the grader's)",
        [](Context& ctx) { return ChainSets(ctx.seed_for("lab11 baseline graph")); },
        [](ChainSets& sets, int i, cudaStream_t st) { sets.run_given_graph(i, st); });
}

// The bytes a chain must move at the least: every weight once.
double floor_bytes() { return double(chapter_shape().w_count()) * sizeof(bf16); }

PerfResult chain_speedup(Context& ctx, const SetBaseline<ChainSets>& base, ChainLauncher f, const char* label) {
    ChainSets sets(ctx.seed_for(std::string("lab11 timed ") + label));
    PerfResult r = speedup_over(ctx, base, sets, sets.rotation(f), floor_bytes(), label);
    if (!r.skipped.empty()) return r;
    const double t_work = r.details["work"]["median_ms"].get<double>(), t_base = r.details["baseline"]["median_ms"].get<double>();
    const Shape s = chapter_shape();
    r.message = strprintf("%s: %.1f µs against %.1f µs (%s), interleaved, L2 flushed; %.0f GB/s of weights", s.title.c_str(),
                          t_work * 1e3, t_base * 1e3, base.baseline.what.c_str(), floor_bytes() / (t_work * 1e-3) / 1e9);
    return r;
}

// Bars: PROVISIONAL until the solution's ratios are measured on an H200 (this lab has not run on a GPU yet). The graph
// saves the device's share of each launch (launch_device_us − graph_node_us per boundary, about 1 µs in 63 of a
// chain of about 600 µs); PDL and the persistent kernel save what remains of each boundary, and overlap a step's
// weights with the previous step's end.
constexpr double kGraphPass = 1.0, kGraphFull = 1.05;
constexpr double kPdlPass = 1.02, kPdlFull = 1.10;
constexpr double kPersistentPass = 1.0, kPersistentFull = 1.08;

}  // namespace

void register_checks(Lab& lab) {
    const std::vector<Shape> all = shapes(lab);
    const auto correctness = [&](const Variant& v) {
        for (const Shape& s : all)
            lab.correctness(std::string("correct.") + v.id + "." + s.tag, std::string(v.title) + ", " + s.title, 1,
                            [&v, s](Context& ctx) { return check_variant(ctx, v, s); });
    };
    const SetBaseline<ChainSets> eager = given_eager(), graph = given_graph();
    // (a) and (b) first, (c) last: a persistent kernel that hangs ends the process, and the checks after it are not run.
    correctness(kVariants[0]);
    lab.correctness("launches.graph", "(a): the steps as one graph launch (observed)", 3, check_graph_launches);
    lab.performance("perf.graph", "(a) graph vs the given chain, 64 × 4096", 12,
                    PerfSpec{.requires_check = "correct.graph.chapter", .also_requires = {"launches.graph"}, .pass_bar = kGraphPass,
                             .full_bar = kGraphFull, .unit = "x given", .baseline = eager.baseline},
                    [eager](Context& ctx) { return chain_speedup(ctx, eager, &launch_chain_graph, "lab11 graph"); });
    correctness(kVariants[1]);
    lab.correctness("launches.pdl", "(b): a launch per step, overlaps counted (observed)", 3, check_pdl_launches);
    lab.correctness("code.pdl", "(b)'s kernels wait for the previous grid: griddepcontrol.wait (their machine code)", 3,
                    [](Context& ctx) { return check_code(ctx, true); });
    lab.performance("perf.pdl", "(b) PDL vs the given chain as a graph, 64 × 4096", 15,
                    PerfSpec{.requires_check = "correct.pdl.chapter", .also_requires = {"launches.pdl", "code.pdl"},
                             .pass_bar = kPdlPass, .full_bar = kPdlFull, .unit = "x given graph", .baseline = graph.baseline},
                    [graph](Context& ctx) { return chain_speedup(ctx, graph, &launch_chain_pdl, "lab11 pdl"); });
    correctness(kVariants[2]);
    lab.correctness("launches.persistent", "(c): one kernel, its grid no larger than what stays resident (observed)", 4,
                    check_persistent_launches);
    lab.correctness("code.persistent", "(c)'s kernel fences before it publishes a flag (its machine code)", 3,
                    [](Context& ctx) { return check_code(ctx, false); });
    lab.performance("perf.persistent", "(c) persistent vs the given chain as a graph, 64 × 4096", 15,
                    PerfSpec{.requires_check = "correct.persistent.chapter", .also_requires = {"launches.persistent", "code.persistent"},
                             .pass_bar = kPersistentPass, .full_bar = kPersistentFull, .unit = "x given graph",
                             .baseline = graph.baseline},
                    [graph](Context& ctx) { return chain_speedup(ctx, graph, &launch_chain_persistent, "lab11 persistent"); });
}
