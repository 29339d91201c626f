// The check API: declaring checks, statuses, scoring of performance ratios.
#include "grader/lab.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace gpulab::grader {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 8> kStatusNames{{
    {Status::pass, "pass"},
    {Status::partial, "partial"},
    {Status::fail, "fail"},
    {Status::skipped, "skipped"},
    {Status::not_answered, "not_answered"},
    {Status::error, "error"},
    {Status::suspicious, "suspicious"},
    {Status::not_run, "not_run"},
}};

constexpr std::array<std::pair<CheckKind, std::string_view>, 3> kKindNames{{
    {CheckKind::answer, "answer"},
    {CheckKind::correctness, "correctness"},
    {CheckKind::performance, "performance"},
}};

std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

std::string_view to_string(Status s) noexcept {
    for (const auto& [v, n] : kStatusNames)
        if (v == s) return n;
    return "unknown";
}

Status status_from_string(std::string_view s) {
    for (const auto& [v, n] : kStatusNames)
        if (n == s) return v;
    throw std::invalid_argument("unknown status '" + std::string(s) + "'");
}

std::string_view to_string(CheckKind k) noexcept {
    for (const auto& [v, n] : kKindNames)
        if (v == k) return n;
    return "unknown";
}

CheckKind kind_from_string(std::string_view s) {
    for (const auto& [v, n] : kKindNames)
        if (n == s) return v;
    throw std::invalid_argument("unknown check kind '" + std::string(s) + "'");
}

std::optional<double> Context::ceiling(std::string_view name) const {
    if (!ceilings.is_object()) return std::nullopt;
    const auto it = ceilings.find(std::string(name));
    if (it == ceilings.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::uint64_t Context::seed_for(std::string_view salt) const { return seed ^ fnv1a(salt); }

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

void Lab::choice_measured(std::string key, std::string question, std::vector<std::string> options,
                          double points, std::function<std::string(const Context&)> key_fn) {
    Entry e;
    e.answer.question = question;
    e.answer.options = std::move(options);
    e.answer.choice_key = std::move(key_fn);
    e.answer.needs_ceilings = true;
    add({key, key, CheckKind::answer, points, false}, std::move(e));
}

void Lab::correctness(std::string id, std::string title, double points,
                      std::function<CorrectnessResult(Context&)> fn) {
    Entry e;
    e.correctness = std::move(fn);
    add({std::move(id), std::move(title), CheckKind::correctness, points, true}, std::move(e));
}

void Lab::performance(std::string id, std::string title, double points, PerfSpec spec,
                      std::function<PerfResult(Context&)> fn) {
    if (!(spec.full_bar > spec.pass_bar) || spec.pass_bar <= 0)
        throw std::logic_error("performance check '" + id + "' needs 0 < pass_bar < full_bar");
    Entry e;
    e.perf = std::move(spec);
    e.performance = std::move(fn);
    add({std::move(id), std::move(title), CheckKind::performance, points, true}, std::move(e));
}

double perf_credit(double ratio, double pass_bar, double full_bar) noexcept {
    if (!(ratio >= pass_bar)) return 0.0;  // also NaN
    if (ratio >= full_bar) return 1.0;
    return 0.5 + 0.5 * (ratio - pass_bar) / (full_bar - pass_bar);
}

}  // namespace gpulab::grader
