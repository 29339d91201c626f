// The check API: declaring checks, statuses, scoring of performance ratios.
#include "grader/lab.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <random>
#include <stdexcept>
#include <utility>

namespace gpulab::grader {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 10> kStatusNames{{
    {Status::pass, "pass"},
    {Status::partial, "partial"},
    {Status::fail, "fail"},
    {Status::skipped, "skipped"},
    {Status::not_answered, "not_answered"},
    {Status::error, "error"},
    {Status::suspicious, "suspicious"},
    {Status::not_run, "not_run"},
    {Status::tampered, "tampered"},
    {Status::invalid, "invalid"},
}};

constexpr std::array<std::pair<CheckKind, std::string_view>, 3> kKindNames{{
    {CheckKind::answer, "answer"},
    {CheckKind::correctness, "correctness"},
    {CheckKind::performance, "performance"},
}};

// An enum value's name in a table of (value, name) pairs ("unknown" for a value it lacks), and back.
template <typename E, std::size_t N>
std::string_view name_in(const std::array<std::pair<E, std::string_view>, N>& names, E value) noexcept {
    for (const auto& [v, n] : names)
        if (v == value) return n;
    return "unknown";
}
// @p what names the enum in the message of the std::invalid_argument thrown for a name the table lacks.
template <typename E, std::size_t N>
E value_in(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view name, const char* what) {
    for (const auto& [v, n] : names)
        if (n == name) return v;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) + "'");
}

std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

// SplitMix64's finalizer: a bijective mix of 64 bits.
std::uint64_t mix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace

std::string_view to_string(Status s) noexcept { return name_in(kStatusNames, s); }

Status status_from_string(std::string_view s) { return value_in(kStatusNames, s, "status"); }

std::string_view to_string(CheckKind k) noexcept { return name_in(kKindNames, k); }

CheckKind kind_from_string(std::string_view s) { return value_in(kKindNames, s, "check kind"); }

std::optional<double> Context::ceiling(std::string_view name) const {
    if (!ceilings.is_object()) return std::nullopt;
    const auto it = ceilings.find(std::string(name));
    if (it == ceilings.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::int64_t draw(std::uint64_t seed, std::int64_t lo, std::int64_t hi, std::int64_t multiple_of) {
    if (multiple_of < 1) throw std::invalid_argument("draw: multiple_of must be at least 1");
    if (lo < 0) throw std::invalid_argument("draw: sizes are not negative");
    const std::int64_t first = (lo + multiple_of - 1) / multiple_of, last = hi / multiple_of;
    if (first > last)
        throw std::invalid_argument("draw: no multiple of " + std::to_string(multiple_of) + " in [" + std::to_string(lo) +
                                    ", " + std::to_string(hi) + "]");
    const auto span = static_cast<std::uint64_t>(last - first + 1);
    return (first + static_cast<std::int64_t>(mix(mix(seed)) % span)) * multiple_of;
}

std::uint64_t fresh_seed() {
    std::random_device rd;
    const auto clock = static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    // The mix spreads the clock's low-entropy bits over the whole word.
    return mix(clock ^ (static_cast<std::uint64_t>(rd()) << 32) ^ rd()) % 1000000000ull;
}

std::uint64_t derive_seed(std::uint64_t seed, std::string_view salt) noexcept { return seed ^ fnv1a(salt); }

std::uint64_t Context::seed_for(std::string_view salt) const { return derive_seed(seed, salt); }

const BaselineTiming& Context::current_baseline() const {
    const auto it = baselines.find(baseline_id);
    if (baseline_id.empty() || it == baselines.end())
        throw std::logic_error("lab definition error: the performance check's baseline '" + baseline_id +
                               "' was not timed before the checks (PerfSpec::baseline)");
    return it->second;
}

CaseValues Context::case_values(const std::string& name, const std::vector<CaseParam>& params) const {
    CaseValues v;
    for (const CaseParam& p : params)
        v[p.name] = student.empty()
                        ? p.value
                        : draw(derive_seed(course_seed, "exercise case/" + student + "/" + name + "/" + p.name), p.lo, p.hi,
                               p.multiple);
    return v;
}

void Lab::exercise_case(std::string name, std::string description, std::vector<CaseParam> params) {
    if (name.empty() || cases_.count(name)) throw std::logic_error("exercise case '" + name + "' is empty or declared twice");
    for (const CaseParam& p : params)
        if (!(p.lo <= p.value && p.value <= p.hi) || p.multiple < 1 || p.value % p.multiple != 0)
            throw std::logic_error("exercise case '" + name + "': " + p.name + " = " + std::to_string(p.value) +
                                   " is not a multiple of " + std::to_string(p.multiple) + " in [" + std::to_string(p.lo) +
                                   ", " + std::to_string(p.hi) + "]");
    cases_.emplace(std::move(name), ExerciseCase{std::move(description), std::move(params)});
}

void Lab::number_for_case(std::string case_name, std::string key, std::string question, double points, double rel_tol,
                          std::function<double(const CaseValues&)> key_fn) {
    const auto it = cases_.find(case_name);
    if (it == cases_.end()) throw std::logic_error("question '" + key + "' names the undeclared case '" + case_name + "'");
    Entry e;
    e.answer.question = question;
    e.answer.rel_tol = rel_tol;
    e.answer.case_name = case_name;
    e.answer.case_params = it->second.params;
    e.answer.number_key = [case_name, params = it->second.params, fn = std::move(key_fn)](const Context& ctx) {
        return fn(ctx.case_values(case_name, params));
    };
    add({key, key, CheckKind::answer, points, false}, std::move(e));
}

void Lab::add(CheckDecl d, Entry e) {
    for (const CheckDecl& existing : decls_)
        if (existing.id == d.id) throw std::logic_error("check id '" + d.id + "' declared twice");
    if (d.max_points < 0) throw std::logic_error("check '" + d.id + "' has negative points");
    decls_.push_back(std::move(d));
    entries_.push_back(std::move(e));
}

void Lab::number(std::string key, std::string question, double points, double rel_tol,
                 std::function<double()> key_fn) {
    Entry e;
    e.answer.question = question;
    e.answer.rel_tol = rel_tol;
    e.answer.number_key = [fn = std::move(key_fn)](const Context&) { return fn(); };
    add({key, key, CheckKind::answer, points, false}, std::move(e));
}

void Lab::choice(std::string key, std::string question, std::vector<std::string> options, double points,
                 std::function<std::string()> key_fn) {
    Entry e;
    e.answer.question = question;
    e.answer.options = std::move(options);
    e.answer.choice_key = [fn = std::move(key_fn)](const Context&) { return fn(); };
    add({key, key, CheckKind::answer, points, false}, std::move(e));
}

void Lab::number_measured(std::string key, std::string question, double points, double rel_tol,
                          std::function<double(const Context&)> key_fn) {
    Entry e;
    e.answer.question = question;
    e.answer.rel_tol = rel_tol;
    e.answer.number_key = std::move(key_fn);
    e.answer.needs_ceilings = true;
    add({key, key, CheckKind::answer, points, false}, std::move(e));
}

void Lab::choice_measured(std::string key, std::string question, std::vector<std::string> options,
                          double points, std::function<std::string(const Context&)> key_fn) {
    Entry e;
    e.answer.question = question;
    e.answer.options = std::move(options);
    e.answer.choice_key = std::move(key_fn);
    e.answer.needs_ceilings = true;
    add({key, key, CheckKind::answer, points, false}, std::move(e));
}

void Lab::graded_calc(std::string asks, CalcRun run) {
    graded_calcs_.push_back([asks = std::move(asks), run = std::move(run)](const Context&) { return GradedCalc{asks, run}; });
}

void Lab::graded_calc_for_case(std::string case_name, std::string asks, std::function<CalcRun(const CaseValues&)> run_fn) {
    const auto it = cases_.find(case_name);
    if (it == cases_.end()) throw std::logic_error("calculator run for '" + asks + "' names the undeclared case '" + case_name + "'");
    graded_calcs_.push_back([case_name, params = it->second.params, asks = std::move(asks), fn = std::move(run_fn)](const Context& ctx) {
        return GradedCalc{asks, fn(ctx.case_values(case_name, params))};
    });
}

std::vector<GradedCalc> Lab::graded_calcs(const Context& ctx) const {
    std::vector<GradedCalc> out;
    for (const auto& make : graded_calcs_) out.push_back(make(ctx));
    return out;
}

void Lab::correctness(std::string id, std::string title, double points,
                      std::function<CorrectnessResult(Context&)> fn) {
    Entry e;
    e.correctness = std::move(fn);
    add({std::move(id), std::move(title), CheckKind::correctness, points, true}, std::move(e));
}

void Lab::host_check(std::string id, std::string title, double points, std::function<CorrectnessResult(Context&)> fn) {
    Entry e;
    e.correctness = std::move(fn);
    add({std::move(id), std::move(title), CheckKind::correctness, points, false}, std::move(e));
}

void Lab::profile_target(std::string name, std::function<void()> run) {
    if (name.empty() || !run) throw std::logic_error("lab definition error: a profile target needs a name and work");
    if (!profile_targets_.emplace(name, std::move(run)).second)
        throw std::logic_error("lab definition error: profile target '" + name + "' declared twice");
}

void Lab::profile_evidence(ProfileEvidence e) {
    if (e.target.empty() || e.metrics.empty())
        throw std::logic_error("lab definition error: profiler evidence needs a target and at least one metric");
    evidence_.push_back(std::move(e));
}

void Lab::performance(std::string id, std::string title, double points, PerfSpec spec,
                      std::function<PerfResult(Context&)> fn) {
    if (!(spec.full_bar > spec.pass_bar) || spec.pass_bar <= 0)
        throw std::logic_error("performance check '" + id + "' needs 0 < pass_bar < full_bar");
    const Baseline& b = spec.baseline;
    if (b.id.empty() || b.what.empty() || !b.time_alone)
        throw std::logic_error("performance check '" + id + "' needs a baseline with an id, a description and a timing");
    if (const auto it = baselines_.find(b.id); it == baselines_.end())
        baselines_.emplace(b.id, b);
    else if (it->second.what != b.what)
        throw std::logic_error("performance check '" + id + "': the baseline '" + b.id + "' is " + it->second.what +
                               " in an earlier check and " + b.what + " here (one id, one baseline)");
    Entry e;
    e.perf = std::move(spec);
    e.performance = std::move(fn);
    add({std::move(id), std::move(title), CheckKind::performance, points, true}, std::move(e));
}

CorrectnessResult pass(CorrectnessResult r, std::string message) {
    r.passed = true;
    r.message = std::move(message);
    return r;
}

CorrectnessResult pass(CorrectnessResult r) {
    r.passed = true;
    return r;
}

CorrectnessResult with_hint(CorrectnessResult r, std::string hint) {
    if (r.hint.empty()) r.hint = std::move(hint);
    return r;
}

CorrectnessResult fail(CorrectnessResult r, std::string message, std::string hint) {
    r.passed = false;
    r.message = std::move(message);
    r.hint = std::move(hint);
    return r;
}

CorrectnessResult fail_because(CorrectnessResult r, const std::string& why, std::string hint) {
    return fail(r, why + ". " + r.message, std::move(hint));
}

void require_current_baseline(const Context& ctx, const Baseline& b) {
    if (ctx.baseline_id != b.id || (!ctx.baseline_what.empty() && ctx.baseline_what != b.what))
        throw std::logic_error("lab definition error: the check times the baseline '" + b.id + "' (" + b.what +
                               ") but declares '" + ctx.baseline_id + "' (" + ctx.baseline_what + ") in its PerfSpec");
}

double perf_credit(double ratio, double pass_bar, double full_bar) noexcept {
    if (!(ratio >= pass_bar)) return 0.0;  // also NaN
    if (ratio >= full_bar) return 1.0;
    return 0.5 + 0.5 * (ratio - pass_bar) / (full_bar - pass_bar);
}

}  // namespace gpulab::grader
