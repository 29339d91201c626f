// FROZEN: do not edit. Lab 12's graded checks. First, everything your functions compute, on traces whose answers the
// grader knows — the chapter's two-branch request, and traces drawn from the run's seed (1 to 3000 stages on 1 to 4
// lanes, waits across lanes, recorded times with gaps that the model must ignore): on the host, no GPU needed. Then,
// on the GPU, the request of gpu_request.hpp as the grader's observer recorded it: your critical path of that trace,
// and your paired statistic of the request before and after the fused activation, measured in interleaved rounds.
//
// How a path is judged without trusting it: the grader schedules the trace itself (every stage as early as its
// predecessors allow) and accepts any path whose length is the latest end, whose first stage starts at 0, and whose
// every next stage is a predecessor-linked successor starting the moment the one before it ends — a longest chain,
// whichever of several equal ones you found.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "gpu_request.hpp"
#include "grader/gpu_checks.hpp"
#include "grader/lab.hpp"
#include "grader/observer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/text.hpp"
#include "request.hpp"

using namespace gpulab;
using namespace gpulab::grader;
using namespace request;

namespace {

// ---- the grader's own schedule -----------------------------------------------------------------------------------

struct Schedule {
    std::vector<std::vector<int>> preds;
    std::vector<double> start, end;
    double length = 0;
};

Schedule schedule(const Trace& t, const std::vector<double>& d) {
    const std::size_t n = t.stages.size();
    Schedule s;
    s.preds.resize(n);
    std::vector<int> last;
    for (std::size_t i = 0; i < n; ++i) {
        const auto lane = static_cast<std::size_t>(t.stages[i].lane);
        if (lane >= last.size()) last.resize(lane + 1, -1);
        if (last[lane] >= 0) s.preds[i].push_back(last[lane]);
        last[lane] = static_cast<int>(i);
    }
    for (const Wait& w : t.waits) s.preds[std::size_t(w.after)].push_back(w.before);
    s.start.assign(n, 0);
    s.end.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (int p : s.preds[i]) s.start[i] = std::max(s.start[i], s.end[std::size_t(p)]);
        s.end[i] = s.start[i] + d[i];
        s.length = std::max(s.length, s.end[i]);
    }
    return s;
}

double critical_length(const Trace& t, const std::vector<double>& d) { return schedule(t, d).length; }

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

// "" when p is a critical path of t with durations d; else what is wrong with it.
std::string judge_path(const Trace& t, const std::vector<double>& d, const Path& p) {
    const Schedule s = schedule(t, d);
    if (!close(p.length_us, s.length)) return strprintf("length %.6g µs, not %.6g µs", p.length_us, s.length);
    if (p.stages.empty()) return "the path lists no stages";
    for (int i : p.stages)
        if (i < 0 || std::size_t(i) >= t.stages.size()) return strprintf("the path lists stage %d, which does not exist", i);
    const auto first = std::size_t(p.stages.front()), last = std::size_t(p.stages.back());
    if (!close(s.start[first], 0)) return strprintf("its first stage, %zu, cannot start before %.6g µs", first, s.start[first]);
    if (!close(s.end[last], s.length)) return strprintf("its last stage, %zu, ends at %.6g µs, before the request", last, s.end[last]);
    for (std::size_t k = 1; k < p.stages.size(); ++k) {
        const int a = p.stages[k - 1], b = p.stages[k];
        const std::vector<int>& pr = s.preds[std::size_t(b)];
        if (std::find(pr.begin(), pr.end(), a) == pr.end())
            return strprintf("stage %d does not wait for stage %d (neither the one before it on its lane nor a wait)", b, a);
        if (!close(s.end[std::size_t(a)], s.start[std::size_t(b)]))
            return strprintf("stage %d starts at %.6g µs, not when stage %d ends (%.6g µs): not the chain that holds it back", b,
                             s.start[std::size_t(b)], a, s.end[std::size_t(a)]);
    }
    return {};
}

// ---- traces --------------------------------------------------------------------------------------------------------

// The chapter's request (figure 5-38): prep 10 µs, then A 60 µs and B 40 µs side by side, then finish 10 µs, which waits
// for both. Enqueued as prep, B (on a second lane, waiting for prep), A, finish (waiting for B).
Trace chapter_trace(double a_us = 60, double b_us = 40) {
    Trace t;
    t.stages = {{"prep", 0, 0, 10}, {"B", 1, 10, 10 + b_us}, {"A", 0, 10, 10 + a_us}, {"finish", 0, 10 + std::max(a_us, b_us), 20 + std::max(a_us, b_us)}};
    t.waits = {{0, 1}, {1, 3}};
    return t;
}

const char* const kOps[] = {"attention", "ffn", "activation", "norm", "copy", "embedding"};

// A trace drawn from seed: stages on random lanes, a wait to an earlier stage on another lane with probability 1/3,
// durations of 0.5-100 µs (a few of 0), recorded with random gaps after each stage's earliest start (as a host that
// launches late would leave them).
Trace random_trace(std::uint64_t seed, int stages, int lanes) {
    Trace t;
    std::vector<double> d;
    for (int i = 0; i < stages; ++i) {
        const std::string salt = std::to_string(i);
        Stage s;
        s.op = kOps[draw(derive_seed(seed, "op " + salt), 0, 5)];
        s.lane = static_cast<int>(draw(derive_seed(seed, "lane " + salt), 0, lanes - 1));
        const std::int64_t tenths = draw(derive_seed(seed, "dur " + salt), 0, 1000);
        d.push_back(tenths < 5 ? 0.0 : double(tenths) / 10.0);
        t.stages.push_back(s);
        if (i > 0 && lanes > 1 && draw(derive_seed(seed, "wait? " + salt), 0, 2) == 0) {
            const int before = static_cast<int>(draw(derive_seed(seed, "wait " + salt), 0, i - 1));
            if (t.stages[std::size_t(before)].lane != s.lane) t.waits.push_back({before, i});
        }
    }
    // Recorded times: as scheduled, each start pushed later by a gap (what the model leaves out), never earlier.
    const Schedule sched = schedule(t, d);
    std::vector<double> end(t.stages.size());
    for (std::size_t i = 0; i < t.stages.size(); ++i) {
        double start = 0;
        for (int p : sched.preds[i]) start = std::max(start, end[std::size_t(p)]);
        start += double(draw(derive_seed(seed, "gap " + std::to_string(i)), 0, 40)) / 10.0;
        t.stages[i].start_us = start;
        t.stages[i].end_us = start + d[i];
        end[i] = t.stages[i].end_us;
    }
    return t;
}

struct Drawn {
    Trace trace;
    std::string what;
};

std::vector<Drawn> drawn_traces(Context& ctx, int count) {
    std::vector<Drawn> out;
    for (int k = 0; k < count; ++k) {
        const std::uint64_t seed = ctx.seed_for("lab12 trace " + std::to_string(k));
        const int lanes = static_cast<int>(draw(derive_seed(seed, "lanes"), 1, 4));
        const int stages = k % 10 == 9 ? static_cast<int>(draw(derive_seed(seed, "many"), 1000, 3000))
                                       : static_cast<int>(draw(derive_seed(seed, "stages"), 1, 60));
        Trace t = random_trace(seed, stages, lanes);
        out.push_back({std::move(t), strprintf("drawn trace %d (%d stages on %d lane%s)", k, stages, lanes, lanes == 1 ? "" : "s")});
    }
    return out;
}

std::string ops_of(const Trace& t) {
    std::vector<std::string> ops;
    for (const Stage& s : t.stages)
        if (std::find(ops.begin(), ops.end(), s.op) == ops.end()) ops.push_back(s.op);
    std::string out;
    for (const std::string& o : ops) out += (out.empty() ? "" : ", ") + o;
    return out;
}

// ---- (a) -----------------------------------------------------------------------------------------------------------

const char* kPathHint =
    "a stage starts when the last of its predecessors ends (the stage before it on its lane, and each wait's `before`); "
    "use the durations you are given, not the recorded times";

CorrectnessResult check_path_chapter(Context&) {
    CorrectnessResult r;
    const Trace t = chapter_trace();
    const Path p = critical_path(t, t.durations_us());
    if (const std::string why = judge_path(t, t.durations_us(), p); !why.empty())
        return fail(std::move(r), "the chapter's request (prep 10, A 60 beside B 40, finish 10): " + why, kPathHint);
    const Trace fast = chapter_trace(15);
    const Path q = critical_path(fast, fast.durations_us());
    if (const std::string why = judge_path(fast, fast.durations_us(), q); !why.empty())
        return fail(std::move(r), "with A at 15 µs: " + why, kPathHint);
    return pass(std::move(r), strprintf("80 µs through prep, A, finish; with A at 15 µs, %.0f µs through prep, B, finish", q.length_us));
}

CorrectnessResult check_path_drawn(Context& ctx) {
    CorrectnessResult r;
    int n = 0;
    for (const Drawn& dr : drawn_traces(ctx, 200)) {
        const std::vector<double> d = dr.trace.durations_us();
        const Path p = critical_path(dr.trace, d);
        if (const std::string why = judge_path(dr.trace, d, p); !why.empty())
            return fail(std::move(r), dr.what + ": " + why, kPathHint);
        ++n;
    }
    return pass(std::move(r), strprintf("%d traces drawn from this run's seed: every length and path right", n));
}

// ---- (b) -----------------------------------------------------------------------------------------------------------

Prediction expected_prediction(const Trace& t, const std::string& op, double factor) {
    const std::vector<double> d = t.durations_us();
    std::vector<double> scaled = d;
    double total = 0;
    for (std::size_t i = 0; i < d.size(); ++i)
        if (t.stages[i].op == op) total += d[i], scaled[i] = d[i] * factor;
    return {total * (1 - factor), critical_length(t, d) - critical_length(t, scaled)};
}

std::string judge_prediction(const Prediction& got, const Prediction& want) {
    if (!close(got.amdahl_saving_us, want.amdahl_saving_us))
        return strprintf("Amdahl's saving %.6g µs, not %.6g µs", got.amdahl_saving_us, want.amdahl_saving_us);
    if (!close(got.path_saving_us, want.path_saving_us))
        return strprintf("the path's saving %.6g µs, not %.6g µs", got.path_saving_us, want.path_saving_us);
    return {};
}

CorrectnessResult check_predict(Context& ctx) {
    CorrectnessResult r;
    const Trace t = chapter_trace();
    struct Case {
        const char* op;
        double factor;
        const char* what;
    };
    for (const Case& c : {Case{"A", 0.25, "A four times faster"}, Case{"B", 2.25, "B slowed from 40 to 90 µs"},
                          Case{"prep", 0.0, "prep made free"}}) {
        if (const std::string why = judge_prediction(predict(t, c.op, c.factor), expected_prediction(t, c.op, c.factor)); !why.empty())
            return fail(std::move(r), strprintf("the chapter's request, %s: ", c.what) + why,
                        "Amdahl adds the operator's durations as if nothing ran beside them; the path recomputes the "
                        "longest chain with the operator's stages scaled");
    }
    int n = 0;
    for (const Drawn& dr : drawn_traces(ctx, 60)) {
        const std::uint64_t seed = ctx.seed_for("lab12 predict " + std::to_string(n));
        const std::string op = kOps[draw(derive_seed(seed, "op"), 0, 5)];
        const double factor = double(draw(derive_seed(seed, "factor"), 0, 300)) / 100.0;
        if (const std::string why = judge_prediction(predict(dr.trace, op, factor), expected_prediction(dr.trace, op, factor)); !why.empty())
            return fail(std::move(r), strprintf("%s, %s at %.2f of its time: ", dr.what.c_str(), op.c_str(), factor) + why,
                        "scale every stage of the operator, no other");
        ++n;
    }
    return pass(std::move(r), strprintf("the chapter's three changes (A to 15 µs: Amdahl 45 µs, the path 20 µs; B to 90 µs: the "
                                        "path −30 µs) and %d drawn traces",
                                        n));
}

// ---- (c) -----------------------------------------------------------------------------------------------------------

Paired expected_paired(const std::vector<double>& before, const std::vector<double>& after, std::uint64_t seed) {
    const std::size_t n = before.size();
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = before[i] - after[i];
    Resampler draw_index(seed);
    std::vector<double> meds;
    meds.reserve(kResamples);
    std::vector<double> sample(n);
    for (int b = 0; b < kResamples; ++b) {
        for (std::size_t k = 0; k < n; ++k) sample[k] = d[draw_index.below(n)];
        meds.push_back(median(sample));
    }
    std::sort(meds.begin(), meds.end());
    return {median(d), meds[std::size_t(std::floor(0.025 * kResamples))], meds[std::size_t(std::ceil(0.975 * kResamples)) - 1],
            median(before) - median(after)};
}

std::string judge_paired(const Paired& got, const Paired& want) {
    if (!close(got.median_difference_us, want.median_difference_us))
        return strprintf("the median of the paired differences is %.6g, not %.6g", got.median_difference_us, want.median_difference_us);
    if (!close(got.difference_of_medians_us, want.difference_of_medians_us))
        return strprintf("the difference of the medians is %.6g, not %.6g", got.difference_of_medians_us, want.difference_of_medians_us);
    if (!close(got.low_us, want.low_us) || !close(got.high_us, want.high_us))
        return strprintf("the interval is [%.6g, %.6g], not [%.6g, %.6g]", got.low_us, got.high_us, want.low_us, want.high_us);
    return {};
}

// Rounds whose request times drift (a machine that warms, other work that comes and goes: up to 4 ms) while the change
// saves a steady 1.3 ms, each request with ±0.3 ms of its own: the two medians may come from different rounds, whose
// drifts differ; the pairs cancel the drift.
void drifting_rounds(std::uint64_t seed, int n, double saving, std::vector<double>& before, std::vector<double>& after) {
    before.clear(), after.clear();
    for (int i = 0; i < n; ++i) {
        const std::string s = std::to_string(i);
        const double drift = double(draw(derive_seed(seed, "drift " + s), 0, 40000)) / 10.0;  // 0-4 ms of other work
        const double noise_a = double(draw(derive_seed(seed, "a " + s), 0, 6000) - 3000) / 10.0;  // ±300 µs
        const double noise_b = double(draw(derive_seed(seed, "b " + s), 0, 6000) - 3000) / 10.0;
        before.push_back(815000 + drift + noise_a);
        after.push_back(815000 + drift - saving + noise_b);
    }
}

CorrectnessResult check_paired(Context& ctx) {
    CorrectnessResult r;
    std::vector<double> before, after;
    int n = 0;
    for (int k = 0; k < 40; ++k) {
        const std::uint64_t seed = ctx.seed_for("lab12 paired " + std::to_string(k));
        const int rounds = k == 0 ? 11 : static_cast<int>(draw(derive_seed(seed, "rounds"), 1, 60));
        drifting_rounds(seed, rounds, 1300, before, after);
        const std::uint64_t boot = derive_seed(seed, "bootstrap");
        const Paired want = expected_paired(before, after, boot);
        if (const std::string why = judge_paired(paired(before, after, boot), want); !why.empty())
            return fail(std::move(r), strprintf("%d rounds saving 1300 µs each under a drift of up to 4 ms: ", rounds) + why,
                        "differences first (before[i] − after[i]), then their median; the interval from the Resampler's "
                        "draws in the order request.hpp states");
        if (k == 0) r.details["eleven_rounds"] = {{"median_difference_us", want.median_difference_us}, {"low_us", want.low_us},
                                                  {"high_us", want.high_us}, {"difference_of_medians_us", want.difference_of_medians_us}};
        ++n;
    }
    return pass(std::move(r), strprintf("%d planted experiments (the first of 11 rounds, as the chapter's), every statistic right", n));
}

// ---- (d) -----------------------------------------------------------------------------------------------------------

// What the critical path saves when every stage of op takes no time (0 for an operator the trace does not have).
double saving_if_free(const Trace& t, const std::string& op) {
    const std::vector<double> d = t.durations_us();
    std::vector<double> z = d;
    for (std::size_t j = 0; j < z.size(); ++j)
        if (t.stages[j].op == op) z[j] = 0;
    return critical_length(t, d) - critical_length(t, z);
}

Lever expected_lever(const Trace& t) {
    const std::vector<double> d = t.durations_us();
    const double now = critical_length(t, d);
    Lever best{"", -1};
    for (std::size_t i = 0; i < t.stages.size(); ++i) {
        const std::string& op = t.stages[i].op;
        bool seen = false;
        for (std::size_t j = 0; j < i; ++j) seen = seen || t.stages[j].op == op;
        if (seen) continue;
        std::vector<double> z = d;
        for (std::size_t j = 0; j < z.size(); ++j)
            if (t.stages[j].op == op) z[j] = 0;
        const double saving = now - critical_length(t, z);
        if (saving > best.saving_if_free_us + 1e-9 * std::max(1.0, now)) best = {op, saving};
    }
    return best;
}

double expected_knee(const Trace& t, int stage) {
    std::vector<double> d = t.durations_us();
    const double own = d[std::size_t(stage)], with = critical_length(t, d);
    d[std::size_t(stage)] = 0;
    return std::clamp(own - (with - critical_length(t, d)), 0.0, own);
}

CorrectnessResult check_lever(Context& ctx) {
    CorrectnessResult r;
    const Trace t = chapter_trace();
    const double knee_a = knee_us(t, 2), knee_b = knee_us(t, 1);
    if (!close(knee_a, 40) || !close(knee_b, 40))
        return fail(std::move(r), strprintf("the chapter's request: A's knee %.6g µs (expected 40: below it B holds the request), "
                                            "B's %.6g µs (expected 40, its own: shortening B saves nothing)",
                                            knee_a, knee_b),
                    "the critical path falls one for one with the stage's duration until another chain is longest");
    int n = 0;
    for (const Drawn& dr : drawn_traces(ctx, 40)) {
        const Lever want = expected_lever(dr.trace), got = most_helpful(dr.trace);
        if (!close(saving_if_free(dr.trace, got.op), want.saving_if_free_us) || !close(got.saving_if_free_us, want.saving_if_free_us))
            return fail(std::move(r), strprintf("%s (operators %s): %s saving %.6g µs, expected %s saving %.6g µs", dr.what.c_str(),
                                                ops_of(dr.trace).c_str(), got.op.c_str(), got.saving_if_free_us, want.op.c_str(),
                                                want.saving_if_free_us),
                        "every stage of an operator at 0 µs, the critical path recomputed");
        const int stage = static_cast<int>(draw(ctx.seed_for("lab12 knee " + std::to_string(n)), 0,
                                                std::int64_t(dr.trace.stages.size()) - 1));
        const double k = knee_us(dr.trace, stage), want_k = expected_knee(dr.trace, stage);
        if (!close(k, want_k))
            return fail(std::move(r), strprintf("%s, stage %d (%s, %.6g µs): knee %.6g µs, expected %.6g µs", dr.what.c_str(), stage,
                                                dr.trace.stages[std::size_t(stage)].op.c_str(),
                                                dr.trace.stages[std::size_t(stage)].duration_us(), k, want_k),
                        "the largest duration at which the critical path is already what it would be with the stage at 0");
        ++n;
    }
    return pass(std::move(r), strprintf("A's knee at 40 µs, B's at its own 40 µs; %d drawn traces: the operator to speed up and "
                                        "one stage's knee each",
                                        n));
}

// ---- the request on the GPU ----------------------------------------------------------------------------------------

// The request, its two streams, and one trace of each version as observed.
struct Observed {
    std::unique_ptr<GpuRequest> request;
    cudaStream_t main = nullptr, side = nullptr;
    Trace old_trace, new_trace;
    std::string error;  // why a trace could not be made ("" when both were)
};

// One enqueue observed, as a trace: the request's kernels by start, lane 0 on main and 1 on side, µs from the first
// start, each named for its operator; the request's wait across lanes mapped to the stages.
std::string observe_trace(Observed& o, bool fused, Trace& out) {
    Window window;
    o.request->enqueue(fused, o.main, o.side);
    CUDA_CHECK(cudaDeviceSynchronize());
    const Observation seen = window.close();
    const std::uint32_t main_id = Observer::instance().stream_id(o.main), side_id = Observer::instance().stream_id(o.side);
    std::vector<ObservedKernel> ks;
    for (const ObservedKernel& k : seen.kernels)
        if (k.stream == main_id || k.stream == side_id) ks.push_back(k);
    std::sort(ks.begin(), ks.end(), [](const ObservedKernel& a, const ObservedKernel& b) { return a.start < b.start; });
    int per_lane[2] = {0, 0};
    std::vector<std::pair<int, int>> lane_index;  // stage → (lane, its order on the lane)
    out = Trace{};
    for (const ObservedKernel& k : ks) {
        const int lane = k.stream == main_id ? 0 : 1;
        const std::string op = GpuRequest::op_of(kernel_display_name(k.name), lane);
        if (op.empty()) return "an unexpected kernel in the request: " + kernel_display_name(k.name);
        out.stages.push_back({op, lane, double(k.start - ks.front().start) * 1e-3, double(k.end - ks.front().start) * 1e-3});
        lane_index.emplace_back(lane, per_lane[lane]++);
    }
    for (int lane = 0; lane < 2; ++lane)
        if (per_lane[lane] != o.request->kernels(fused, lane))
            return strprintf("lane %d ran %d kernels, not the request's %d", lane, per_lane[lane], o.request->kernels(fused, lane));
    const auto stage_of = [&](int lane, int k) {
        for (std::size_t i = 0; i < lane_index.size(); ++i)
            if (lane_index[i] == std::pair{lane, k}) return static_cast<int>(i);
        return -1;
    };
    for (const WaitPoint& w : o.request->waits(fused)) {
        const int before = stage_of(w.before_lane, w.before_kernel), after = stage_of(w.after_lane, w.after_kernel);
        if (before < 0 || after < 0 || before >= after) return "the request's wait does not map onto its trace";
        out.waits.push_back({before, after});
    }
    return {};
}

// Made once per run (the streams live as long as the process).
Observed& observed_request(Context& ctx) {
    static Observed o = [&] {
        Observed made;
        made.request = std::make_unique<GpuRequest>(GpuRequestShape{}, ctx.seed_for("lab12 request"));
        CUDA_CHECK(cudaStreamCreateWithFlags(&made.main, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&made.side, cudaStreamNonBlocking));
        // One of each first: modules loaded, caches warm.
        made.request->enqueue(false, made.main, made.side);
        made.request->enqueue(true, made.main, made.side);
        CUDA_CHECK(cudaDeviceSynchronize());
        made.error = observe_trace(made, false, made.old_trace);
        if (made.error.empty()) made.error = observe_trace(made, true, made.new_trace);
        return made;
    }();
    return o;
}

double op_total(const Trace& t, const std::string& op) {
    double total = 0;
    for (const Stage& s : t.stages)
        if (s.op == op) total += s.duration_us();
    return total;
}

CorrectnessResult check_real_trace(Context& ctx) {
    CorrectnessResult r;
    if (skip_unobserved(r, "the request's kernels cannot be observed")) return r;
    Observed& o = observed_request(ctx);
    if (!o.error.empty()) throw std::logic_error("lab definition error: " + o.error);
    const Trace& t = o.old_trace;
    const std::vector<double> d = t.durations_us();
    const Path p = critical_path(t, d);
    const Schedule sched = schedule(t, d);
    double span = 0;
    for (const Stage& s : t.stages) span = std::max(span, s.end_us);
    r.details = {{"stages", t.stages.size()}, {"critical_path_us", sched.length}, {"recorded_us", span},
                 {"activation_us", op_total(t, "activation")}, {"kv_projection_us", op_total(t, "kv projection")}};
    if (const std::string why = judge_path(t, d, p); !why.empty())
        return fail(std::move(r), strprintf("the request's trace (%zu kernels on 2 streams): ", t.stages.size()) + why, kPathHint);
    // The trace and the path (judged right) for the report and the handout's figure.
    nlohmann::json stages = nlohmann::json::array(), waits = nlohmann::json::array();
    for (const Stage& s : t.stages) stages.push_back({s.op, s.lane, s.start_us, s.end_us});
    for (const Wait& w : t.waits) waits.push_back({w.before, w.after});
    r.details["trace"] = {{"stages", stages}, {"waits", waits}, {"path", p.stages}};
    return pass(std::move(r), strprintf("the request's trace as observed: %zu kernels on 2 streams; its critical path %.1f µs of "
                                        "kernels against %.1f µs recorded (the rest: launches and waits the model leaves out)",
                                        t.stages.size(), sched.length, span));
}

// The request before (SiLU, then ⊙) and after (fused) in interleaved rounds, each round's order drawn; each request
// timed by events on its main stream, which waits for the side branch.
CorrectnessResult check_measured(Context& ctx) {
    CorrectnessResult r;
    if (skip_unobserved(r, "the request's kernels cannot be observed")) return r;
    Observed& o = observed_request(ctx);
    if (!o.error.empty()) throw std::logic_error("lab definition error: " + o.error);
    constexpr int kRounds = 21;
    cudaEvent_t start = nullptr, end = nullptr;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&end));
    const auto time_one = [&](bool fused) {
        CUDA_CHECK(cudaEventRecord(start, o.main));
        o.request->enqueue(fused, o.main, o.side);
        CUDA_CHECK(cudaEventRecord(end, o.main));
        CUDA_CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, end));
        return double(ms) * 1e3;
    };
    std::vector<double> before, after;
    for (int i = 0; i < kRounds; ++i) {
        const bool old_first = draw(ctx.seed_for("lab12 order " + std::to_string(i)), 0, 1) == 0;
        const double first = time_one(!old_first), second = time_one(old_first);
        before.push_back(old_first ? first : second);
        after.push_back(old_first ? second : first);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(end));
    const std::uint64_t boot = ctx.seed_for("lab12 measured bootstrap");
    const Paired want = expected_paired(before, after, boot), got = paired(before, after, boot);
    const double old_act = op_total(o.old_trace, "activation"), new_act = op_total(o.new_trace, "activation");
    const double factor = old_act > 0 ? new_act / old_act : 1.0;
    const Prediction pred = expected_prediction(o.old_trace, "activation", factor);
    r.details = {{"before_us", before}, {"after_us", after}, {"median_difference_us", want.median_difference_us},
                 {"low_us", want.low_us}, {"high_us", want.high_us}, {"difference_of_medians_us", want.difference_of_medians_us},
                 {"activation_old_us", old_act}, {"activation_new_us", new_act}, {"amdahl_saving_us", pred.amdahl_saving_us},
                 {"path_saving_us", pred.path_saving_us}};
    const std::string measured = strprintf(
        "%d rounds: the median request %.1f µs before, %.1f µs after; the median of the paired differences %.2f µs "
        "[%.2f, %.2f], the difference of medians %.2f µs; predicted from the trace (the activation's kernels %.1f → %.1f µs): "
        "Amdahl %.2f µs, the path %.2f µs",
        kRounds, median(before), median(after), want.median_difference_us, want.low_us, want.high_us,
        want.difference_of_medians_us, old_act, new_act, pred.amdahl_saving_us, pred.path_saving_us);
    if (const std::string why = judge_paired(got, want); !why.empty())
        return fail(std::move(r), "on the measured rounds: " + why + ". " + measured,
                    "the same statistic as on the planted experiments");
    return pass(std::move(r), measured);
}

}  // namespace

void register_checks(Lab& lab) {
    lab.host_check("path.chapter", "(a) the chapter's request: critical path", 4, check_path_chapter);
    lab.host_check("path.drawn", "(a) 200 drawn traces: critical path and its stages", 14, check_path_drawn);
    lab.host_check("predict.savings", "(b) Amdahl's and the path's savings: the chapter's changes and 60 drawn traces", 12,
                   check_predict);
    lab.host_check("paired.planted", "(c) the paired median, its bootstrap interval, the difference of medians: 40 planted "
                                     "experiments",
                   12, check_paired);
    lab.host_check("lever.drawn", "(d) the operator to speed up, and a stage's knee: the chapter's and 40 drawn traces", 12,
                   check_lever);
    lab.correctness("trace.real", "(a) the request on the GPU, as observed: its critical path", 10, check_real_trace);
    lab.correctness("paired.measured", "(c) the request before and after the fused activation, 21 interleaved rounds: your "
                                       "paired statistic (the predictions reported beside it)",
                    12, check_measured);
}
