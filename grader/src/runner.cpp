// The runner side of the grader: runs one lab's checks of one mode and reports them line by line.
#include "grader/runner.hpp"

#include "grader/plausibility.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <regex>
#include <map>
#include <set>

#include <CLI/CLI.hpp>
#include <toml++/toml.h>

#include "labs/text.hpp"

namespace gpulab::grader {
namespace {

std::string num(double v) { return strprintf("%.6g", v); }

std::string lower_trim(std::string s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    const auto last = s.find_last_not_of(" \t\r\n");
    s = first == std::string::npos ? "" : s.substr(first, last - first + 1);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

void flatten(const toml::table& t, const std::string& prefix, nlohmann::json& out) {
    for (const auto& [k, node] : t) {
        const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
        if (const auto* sub = node.as_table()) {
            flatten(*sub, key, out);
        } else if (const auto* i = node.as_integer()) {
            out[key] = static_cast<double>(i->get());
        } else if (const auto* f = node.as_floating_point()) {
            out[key] = f->get();
        } else if (const auto* s = node.as_string()) {
            out[key] = s->get();
        } else if (const auto* b = node.as_boolean()) {
            out[key] = b->get();
        } else {
            out[key] = nlohmann::json{{"unsupported", node.is_array() ? "an array" : "a date or time"}};
        }
    }
}

std::string options_list(const std::vector<std::string>& options) {
    std::string s;
    for (std::size_t i = 0; i < options.size(); ++i) s += (i ? ", " : "") + options[i];
    return s;
}

// Whether a number answers a numeric question: within its relative tolerance of the key (exact ones get
// a hair's width, so that 1e-9 of rounding in the key does not fail a right answer).
bool answers_key(double given, double key, double rel_tol) {
    return std::isfinite(given) && std::fabs(given - key) <= std::max(rel_tol, 1e-9) * std::fabs(key);
}

// The bars of a performance check, as the table shows them.
std::string perf_target(const PerfSpec& spec) {
    return "pass " + num(spec.pass_bar) + ", full " + num(spec.full_bar);
}

// The GPU's clocks-event reasons now, or none when they cannot be read (no hook, NVML silent or failing).
std::optional<std::uint64_t> read_clock_events(const GpuHooks& gpu) {
    if (!gpu.clock_events) return std::nullopt;
    try {
        return gpu.clock_events();
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// Grades a timed performance measurement @p p into @p r: a wrong verified run, a time below the floor, a
// measurement that cannot be trusted (INVALID), else points from the bars.
void judge_performance(const CheckDecl& d, const PerfSpec& spec, const PerfResult& p, const Context& ctx,
                       const GpuHooks& gpu, CheckResult& r) {
    const auto failed = [&r](const std::string& message, const char* hint) {
        r.status = Status::fail;
        r.points = 0;
        r.message = message;
        r.hint = hint;
    };
    if (!p.wrong_result.empty())
        return failed(p.wrong_result, "every timed run must do all the work on the data it is given: nothing may be kept "
                                      "from an earlier run with the same buffers");
    if (!p.not_own.empty())
        return failed(p.not_own, "a graded path's work must be done by your own kernels: no library calls, no calls of "
                                 "the lab's given implementations");
    if (p.time_ms && p.floor_ms && *p.time_ms < *p.floor_ms) {
        r.status = Status::suspicious;
        r.points = 0;
        r.message = "faster than physically possible: " + num(*p.time_ms) + " ms < floor " + num(*p.floor_ms) +
                    " ms — is all the work really done on fresh data? " + p.message;
        return;
    }
    if (const PlausibilityVerdict v = judge_floor(p, ctx.ceilings); !v.why.empty()) {
        r.status = Status::suspicious;
        r.points = 0;
        r.message = "SUSPICIOUS, not graded: " + v.why + " — is all the work really done, on the data of each call? " +
                    p.message;
        r.hint = "a time below what the hardware can do, or a ratio past its bound, means work was skipped or reused: "
                 "every timed call must do all of its work";
        r.details["floor"] = v.details;
        return;
    }
    // A measurement is graded only when its baseline held still and the GPU was ours alone.
    std::vector<std::string> invalid = ctx.run_invalid;
    invalid.insert(invalid.end(), p.invalid.begin(), p.invalid.end());
    if (gpu.tenants)
        for (const std::string& t : gpu.tenants()) invalid.push_back(t);
    if (!invalid.empty()) {
        std::string why;
        for (const std::string& w : invalid) why += (why.empty() ? "" : "; ") + w;
        r.status = Status::invalid;
        r.points = 0;
        r.message = "INVALID measurement, not graded: " + why + ". Measured: " + p.message;
        r.hint = "an INVALID check is no verdict on your code: rerun when the GPU is yours alone (`grader "
                 "--retry-invalid 2` retries it). Code that leaves work running after its launcher returns, or "
                 "changes device-wide settings, makes every measurement INVALID";
        r.details["invalid_reasons"] = invalid;
        return;
    }
    const double credit = perf_credit(p.ratio, spec.pass_bar, spec.full_bar);
    r.points = credit * d.max_points;
    r.status = credit >= 1.0 ? Status::pass : credit > 0 ? Status::partial : Status::fail;
}

// A correctness check's result as the report states it.
CheckResult correctness_result(const CheckDecl& d, const CorrectnessResult& c) {
    CheckResult r = result_for(d);
    r.details = c.details;
    if (!c.skipped.empty()) {
        r.status = Status::skipped;
        r.message = c.skipped;
    } else if (!c.tampered.empty()) {
        r.status = Status::tampered;
        r.message = "TAMPERED: " + c.tampered;
        r.hint = "the graded code must behave the same under a profiler or sanitizer as when it is graded";
    } else {
        r.status = c.passed ? Status::pass : Status::fail;
        r.points = c.passed ? d.max_points : 0.0;
        r.measured = c.passed ? "correct" : "wrong";
        r.message = c.message;
        r.hint = c.hint;
    }
    return r;
}

// What the report keeps of a graded measurement: its timings, bars, the baseline alone, the clock's throttle reasons.
void record_measurement(const PerfSpec& spec, const PerfResult& p, const BaselineTiming& alone,
                        const std::optional<std::uint64_t>& clocks_before, const std::optional<std::uint64_t>& clocks_after,
                        CheckResult& r) {
    r.measured = num(p.ratio) + " " + spec.unit;
    r.message = p.message;
    r.details = p.details;
    if (p.time_ms) r.details["time_ms"] = *p.time_ms;
    if (p.floor_ms) r.details["floor_ms"] = *p.floor_ms;
    r.details["ratio"] = p.ratio;
    // Where the report page places the code on a roofline: the rates its floor's work reached in its time, and the
    // work's intensity. Rates, not the floor's bytes and FLOPs themselves: those are answers to some labs' questions
    // (lab 03's FLOPs of the running example, lab 04's bytes of the 8192 × 8192 transpose).
    if (p.time_ms && *p.time_ms > 0 && (p.floor.bytes > 0 || p.floor.flops > 0 || p.floor.host_bytes > 0)) {
        const double s = *p.time_ms * 1e-3;
        nlohmann::json w = {{"tensor", p.floor.tensor}};
        if (p.floor.flops > 0) w["tflops"] = p.floor.flops / s / 1e12;
        if (p.floor.bytes > 0) w["gbps"] = p.floor.bytes / s / 1e9;
        if (p.floor.flops > 0 && p.floor.bytes > 0) w["flop_per_byte"] = p.floor.flops / p.floor.bytes;
        if (p.floor.host_bytes > 0) w["host_gbps"] = p.floor.host_bytes / s / 1e9;
        r.details["work_model"] = w;
    }
    r.details["pass_bar"] = spec.pass_bar;
    r.details["full_bar"] = spec.full_bar;
    r.details["baseline_alone"] = {{"id", spec.baseline.id}, {"what", alone.what}, {"median_ms", alone.median_ms},
                                    {"timing", alone.details}};
    if (clocks_before || clocks_after) {
        const auto names = [](const std::optional<std::uint64_t>& m) {
            return m ? nlohmann::json(clock_event_names(*m)) : nlohmann::json();
        };
        r.details["clock_events"] = {{"at_start", names(clocks_before)}, {"at_timing_end", names(clocks_after)}};
    }
}

// A performance check: timed only after the correctness check for the same shape passed, against its baseline as
// timed alone, judged (grader/plausibility.hpp, invalid reasons) and with its fairness notes.
CheckResult run_performance_check(const CheckDecl& d, const Lab::Entry& e, Context& ctx,
                                  const std::map<std::string, Status>& done, const GpuHooks& gpu) {
    CheckResult r = result_for(d);
    const PerfSpec& spec = e.perf;
    r.target = perf_target(spec);
    std::vector<std::string> required = spec.also_requires;
    if (!spec.requires_check.empty()) required.insert(required.begin(), spec.requires_check);
    for (const std::string& id : required) {
        const auto it = done.find(id);
        if (it != done.end() && it->second == Status::skipped) {  // could not run here (e.g. a part for another GPU)
            r.status = Status::skipped;
            r.message = "not timed: correctness check '" + id + "' was skipped here";
            return r;
        }
    }
    for (const std::string& id : required) {
        const auto it = done.find(id);
        if (it == done.end() || it->second != Status::pass) {
            r.status = Status::fail;
            r.message = "not timed: correctness check '" + id + "' must pass first";
            return r;
        }
    }
    ctx.baseline_id = spec.baseline.id;
    ctx.baseline_what = spec.baseline.what;
    const BaselineTiming& alone = ctx.current_baseline();
    if (!alone.error.empty()) {
        r.status = Status::error;
        r.message = "its baseline (" + alone.what + ") could not be timed before the checks: " + alone.error;
        return r;
    }
    // The clock's throttle reasons when the check starts and when its timing ends (NVML, where it answers).
    const std::optional<std::uint64_t> clocks_before = read_clock_events(gpu);
    const PerfResult p = e.performance(ctx);
    const std::optional<std::uint64_t> clocks_after = read_clock_events(gpu);
    if (!p.skipped.empty()) {
        r.status = Status::skipped;
        r.message = p.skipped;
        r.details = p.details;
        return r;
    }
    if (!p.floor.declared() && !p.floor_ms)
        throw std::logic_error("lab definition error: the performance check declares no plausibility floor (set its "
                               "PerfResult::floor: bytes, FLOPs, host bytes, a measured lower bound or a largest ratio)");
    if (!p.baseline_compared)
        throw std::logic_error("lab definition error: the check did not compare its baseline '" + spec.baseline.id +
                               "' (time it with the helpers of grader/gpu_checks.hpp)");
    record_measurement(spec, p, alone, clocks_before, clocks_after, r);
    judge_performance(d, spec, p, ctx, gpu, r);
    // Whether the measurement was fair: its timings converged, the clock was not throttled. A wrong result's
    // verdict does not rest on its timing: no note then.
    if (p.wrong_result.empty()) r.fairness = fairness_notes(r.details, clocks_before, clocks_after);
    if (!r.fairness.empty()) r.message += " — fairness: " + fairness_text(r.fairness);
    return r;
}

CheckResult run_code_check(const CheckDecl& d, const Lab::Entry& e, Context& ctx,
                           const std::map<std::string, Status>& done, const GpuHooks& gpu) {
    if (d.kind == CheckKind::correctness) return correctness_result(d, e.correctness(ctx));
    return run_performance_check(d, e, ctx, done, gpu);
}

}  // namespace

std::string slip_hint(double given, double key, double rel_tol) {
    if (!std::isfinite(given) || !std::isfinite(key) || key == 0 || given == key) return "";
    const double tol = std::max(rel_tol, 0.002);
    const auto near = [&](double factor) { return std::fabs(given - key * factor) <= tol * std::fabs(key * factor); };
    struct Slip {
        double factor;
        const char* looks_like;
    };
    static const Slip slips[] = {
        {1e3, "a factor of 1000: one unit prefix apart (bytes and KB, ms and µs, µs and ns, GB/s and TB/s)?"},
        {1024.0, "a factor of 1024: one binary prefix apart (bytes and KiB, KiB and MiB)?"},
        {1e6, "a factor of 10^6: two unit prefixes apart (bytes and MB, ms and ns)?"},
        {1048576.0, "a factor of 2^20: bytes and MiB (or KiB and GiB)?"},
        {1e9, "a factor of 10^9: bytes and GB, or FLOP and GFLOP?"},
        {1073741824.0, "a factor of 2^30: bytes and GiB?"},
        {1.024, "binary vs decimal units: KiB (1024 bytes) and KB (1000 bytes) mixed up?"},
        {1.048576, "binary vs decimal units: MiB (2^20 bytes) and MB (10^6 bytes) mixed up?"},
        {1.073741824, "binary vs decimal units: GiB (2^30 bytes) and GB (10^9 bytes) mixed up?"},
        {2, "a factor of 2: bytes read only vs read + written, or a 2-byte type (BF16) vs a 4-byte one (FP32)?"},
        {8, "a factor of 8: bits vs bytes?"},
        {100, "a factor of 100: a percentage where a fraction is asked, or the other way round?"},
    };
    for (const Slip& s : slips) {
        if (near(s.factor)) return std::string("your answer is too large by what looks like ") + s.looks_like;
        if (near(1 / s.factor)) return std::string("your answer is too small by what looks like ") + s.looks_like;
    }
    const bool whole = key == std::round(key) && given == std::round(given);
    if (whole && std::fabs(given - key) == 1)
        return "off by one: rounded the wrong way (a count of blocks or tiles rounds up: ceil, not floor)?";
    // An exact whole-number key is a count (blocks, rounds, warps, calls): a fraction is never one.
    if (rel_tol == 0 && key == std::round(key) && given != std::round(given))
        return "this asks for a count, a whole number: round your result (a count of blocks or tiles that must hold "
               "everything rounds up)";
    return "";
}

// What a TOML syntax error in answers.toml most likely means, from the offending line, the parser's description and
// (for a key written twice) the line it was first written on ("" when unsure).
std::string answers_syntax_hint(const std::string& line, const std::string& description, const std::string& earlier) {
    if (description.find("redefine") != std::string::npos)
        return " — written twice" + (earlier.empty() ? std::string() : " (also on line " + earlier + ")") +
               ": keep one of the two lines";
    const auto eq = line.find('=');
    const std::string value = eq == std::string::npos ? "" : line.substr(eq + 1);
    if (std::count(line.begin(), line.end(), '"') % 2 == 1)
        return " — a quoted word is missing its closing quote (write \"memory\")";
    if (value.find('/') != std::string::npos && value.find('"') == std::string::npos)
        return " — TOML has no fractions: write the decimal (1/12 → 0.0833)";
    if (value.find('%') != std::string::npos) return " — write a fraction as a decimal (21% → 0.21)";
    if (eq == std::string::npos && line.find('[') == std::string::npos)
        return " — each answer is one line `key = value`";
    return " — a number goes without quotes (42, 0.5, 1.2e3), a word in quotes (\"memory\")";
}

AnswerSheet read_answer_sheet(const std::string& path) {
    AnswerSheet sheet;
    sheet.file = path;
    if (!std::filesystem::exists(path)) {
        sheet.missing = true;
        return sheet;
    }
    try {
        const toml::table t = toml::parse_file(path);
        flatten(t, "", sheet.values);
    } catch (const toml::parse_error& err) {
        const auto& b = err.source().begin;
        // Name the lab's file (its folder and name), the place, what the parser says, and what it likely means.
        const std::filesystem::path p(path);
        const std::string where = (p.parent_path().filename() / p.filename()).string();
        std::vector<std::string> lines;
        {
            std::ifstream in(path);
            for (std::string l; lines.size() < b.line && std::getline(in, l);) lines.push_back(l);
        }
        const std::string line = lines.size() == b.line ? lines.back() : "";
        // For a key or a [section] written twice: the nearest line above with the same text before '=' (or the same
        // [section] line).
        const auto head = [](const std::string& l) { return trim(l.substr(0, l.find('='))); };
        std::string earlier;
        for (std::size_t n = lines.size(); n-- > 1 && earlier.empty() && !head(line).empty();)
            if (head(lines[n - 1]) == head(line)) earlier = std::to_string(n);
        sheet.parse_error = where + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                            std::string(err.description()) + answers_syntax_hint(line, std::string(err.description()), earlier);
    }
    return sheet;
}

CheckResult grade_answer(const CheckDecl& decl, const AnswerDecl& answer, const AnswerSheet& sheet, const Context& ctx) {
    CheckResult r = result_for(decl);
    r.details = {{"question", answer.question}};
    std::string case_text;  // "case tile: m = 96, n = 80", for a question on an exercise case
    if (!answer.case_name.empty()) {
        const CaseValues v = ctx.case_values(answer.case_name, answer.case_params);
        std::string values;  // in the declared order, as answers.toml writes them
        for (const CaseParam& p : answer.case_params)
            values += (values.empty() ? "" : ", ") + p.name + " = " + std::to_string(v.at(p.name));
        case_text = "case " + answer.case_name + ": " + values;
        r.details["case"] = {{"name", answer.case_name}, {"values", v}, {"text", values}, {"student", ctx.student}};
    }
    const bool is_choice = !answer.options.empty();
    r.target = is_choice ? "one of: " + options_list(answer.options)
                         : (answer.rel_tol > 0 ? "within " + num(100 * answer.rel_tol) + "%" : "exact");
    if (!sheet.parse_error.empty()) {
        r.status = Status::error;
        r.message = "not graded: the answers file does not parse (see the warning)";
        return r;
    }
    const auto it = sheet.values.find(decl.id);
    if (sheet.missing || it == sheet.values.end() || (it->is_string() && lower_trim(it->get<std::string>()).empty())) {
        r.status = Status::not_answered;
        r.measured = "—";
        r.message = sheet.missing ? "answers file " + sheet.file + " not found" : "not answered";
        return r;
    }
    const nlohmann::json& v = *it;
    if (is_choice) {
        if (!v.is_string()) {
            r.status = Status::error;
            r.measured = v.dump();
            r.message = "expected a quoted word, one of: " + options_list(answer.options);
            return r;
        }
        const std::string given = lower_trim(v.get<std::string>());
        r.measured = given;
        const bool known = std::any_of(answer.options.begin(), answer.options.end(),
                                       [&](const std::string& o) { return lower_trim(o) == given; });
        if (!known) {
            r.status = Status::error;
            r.message = "\"" + given + "\" is not an option; write one of: " + options_list(answer.options);
            return r;
        }
        if (answer.needs_ceilings && ctx.ceilings.empty()) {  // a valid word, but nothing to compare it with here
            r.status = Status::skipped;
            r.message = "needs this GPU's ceilings, measured only when a CUDA device is present";
            return r;
        }
        const bool right = lower_trim(answer.choice_key(ctx)) == given;
        r.status = right ? Status::pass : Status::fail;
        r.points = right ? decl.max_points : 0.0;
        r.message = right ? "correct" : "incorrect";
        return r;
    }
    if (!v.is_number()) {
        r.status = Status::error;
        r.measured = v.is_string() ? "\"" + v.get<std::string>() + "\"" : v.dump();
        r.message = v.is_string() ? "expected a number; write it without quotes (e.g. 42 or 1.5e3)"
                                  : "expected a number";
        return r;
    }
    const double given = v.get<double>();
    if (answer.needs_ceilings && ctx.ceilings.empty()) {  // a number, but nothing to compare it with here
        r.measured = num(given);
        r.status = Status::skipped;
        r.message = "needs this GPU's ceilings, measured only when a CUDA device is present";
        return r;
    }
    const double key = answer.number_key(ctx);
    r.measured = num(given);
    const bool right = answers_key(given, key, answer.rel_tol);
    r.status = right ? Status::pass : Status::fail;
    r.points = right ? decl.max_points : 0.0;
    r.message = std::string(right ? "correct" : "incorrect") + (case_text.empty() ? "" : " (" + case_text + ")");
    if (!right) r.hint = slip_hint(given, key, answer.rel_tol);
    return r;
}

namespace {

// The checks this run grades, in order: the runner's mode's kind (answers or code), and with --only the checks named
// (ids or globs such as 'correct.*') with the correctness checks their performance checks require.
std::vector<std::size_t> checks_to_run(const Lab& lab, const RunnerOptions& opts) {
    const std::vector<std::string> patterns = split(opts.only);
    std::set<std::string> only;
    for (const CheckDecl& d : lab.checks())
        for (const std::string& p : patterns)
            if (fnmatch(p.c_str(), d.id.c_str(), 0) == 0) only.insert(d.id);
    if (!patterns.empty() && only.empty()) only.insert("");  // nothing matches: run nothing, not everything
    for (std::size_t i = 0; i < lab.checks().size(); ++i)
        if (only.count(lab.checks()[i].id) && lab.checks()[i].kind == CheckKind::performance) {
            const PerfSpec& spec = lab.entries()[i].perf;
            if (!spec.requires_check.empty()) only.insert(spec.requires_check);
            only.insert(spec.also_requires.begin(), spec.also_requires.end());
        }
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < lab.checks().size(); ++i) {
        const CheckDecl& d = lab.checks()[i];
        const bool is_answer = d.kind == CheckKind::answer;
        if ((opts.mode == RunnerMode::answers) != is_answer) continue;
        if (!only.empty() && !only.count(d.id)) continue;
        order.push_back(i);
    }
    return order;
}

// One warning when the file's `# case NAME: ...  (student X)` lines (written by `grader exercises`) are another
// student's than the cases this run grades: the answers below them were worked for other parameters.
void warn_other_students_cases(const std::string& answers_file, const std::string& student, Emitter& out) {
    std::ifstream in(answers_file);
    static const std::regex marked(R"(^# case [^:]+:.*\(student ([^)]+)\)\s*$)");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, marked) || m[1].str() == student) continue;
        out.send({{"type", "warning"},
                  {"message", "the case lines of " + std::filesystem::path(answers_file).filename().string() +
                                  " were written for student " + m[1].str() + " (`grader exercises`), but this run grades " +
                                  (student.empty() ? std::string("the stated cases (no student id)")
                                                   : "student " + student + "'s cases") +
                                  ": grade with --student " + m[1].str() + " (or set [student] id in class.toml), or "
                                  "run `grader exercises` again"}});
        return;
    }
}

// One warning for the keys of the answers file that no question has; if they are questions without their
// [section] line, it says so.
void warn_unknown_keys(const Lab& lab, const AnswerSheet& sheet, Emitter& out) {
    std::set<std::string> declared;
    for (const CheckDecl& d : lab.checks())
        if (d.kind == CheckKind::answer) declared.insert(d.id);
    std::string unknown, header;
    for (const auto& [key, value] : sheet.values.items()) {
        if (declared.count(key)) continue;
        unknown += (unknown.empty() ? "'" : ", '") + key + "'";
        for (const std::string& d : declared)
            if (header.empty() && d.size() > key.size() && d.compare(d.size() - key.size(), key.size(), key) == 0 &&
                d[d.size() - key.size() - 1] == '.')
                header = d.substr(0, d.size() - key.size() - 1);
    }
    if (unknown.empty()) return;
    out.send({{"type", "warning"},
              {"message", "unknown key" + std::string(unknown.find(',') != std::string::npos ? "s " : " ") + unknown +
                              " in " + sheet.file +
                              (header.empty() ? " (a typo? it is not graded)"
                                              : " — the [" + header + "] line above them is missing (they are "
                                                "graded only under it)")}});
}

// The answers runner: every question of @p order graded from the answers file.
void run_answers(const Lab& lab, const std::vector<std::size_t>& order, const RunnerOptions& opts, const Context& ctx,
                 Emitter& out) {
    const AnswerSheet sheet = read_answer_sheet(opts.answers_file);
    if (!sheet.parse_error.empty()) out.send({{"type", "warning"}, {"message", "answers file does not parse: " + sheet.parse_error}});
    warn_unknown_keys(lab, sheet, out);
    warn_other_students_cases(opts.answers_file, opts.student, out);
    for (std::size_t i : order) {
        const CheckDecl& d = lab.checks()[i];
        out.send({{"type", "start"}, {"id", d.id}});
        CheckResult r;
        try {
            r = grade_answer(d, lab.entries()[i].answer, sheet, ctx);
        } catch (const std::exception& ex) {
            r = result_for(d);
            r.status = Status::error;
            r.message = std::string("answer key failed: ") + ex.what();
        }
        out.send({{"type", "result"}, {"result", r}});
    }
}

// Before any check (so before the graded code's first call): is the GPU ours, and how fast do the baselines run
// alone? Only the baselines of the performance checks that will run are timed.
void check_gpu_and_time_baselines(const Lab& lab, const std::vector<std::size_t>& order, const GpuHooks& gpu,
                                  Context& ctx) {
    try {
        if (gpu.start_checks) ctx.run_invalid = gpu.start_checks(ctx);
    } catch (const std::exception& ex) {
        ctx.run_invalid.push_back(std::string("the GPU could not be checked before the first check: ") + ex.what());
    }
    for (std::size_t i : order) {
        if (lab.checks()[i].kind != CheckKind::performance) continue;
        const Baseline& b = lab.entries()[i].perf.baseline;
        if (ctx.baselines.count(b.id)) continue;
        BaselineTiming& t = ctx.baselines[b.id];
        try {
            t = b.time_alone(ctx);
        } catch (const std::exception& ex) {
            t.error = ex.what();
        }
    }
}

// One code check, run: its result, or ERROR with what it threw; a lost CUDA context sets @p fatal.
CheckResult run_one_code_check(const Lab& lab, std::size_t i, Context& ctx, const std::map<std::string, Status>& done,
                               const GpuHooks& gpu, std::string& fatal) {
    const CheckDecl& d = lab.checks()[i];
    CheckResult r = result_for(d);
    const auto check_start = std::chrono::steady_clock::now();
    try {
        if (gpu.check_begins) gpu.check_begins();
        r = run_code_check(d, lab.entries()[i], ctx, done, gpu);
        // How long the check took on the wall clock (grading time is budgeted per lab: docs/performance-log.md).
        if (r.details.is_null() || r.details.is_object())
            r.details["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - check_start).count();
    } catch (const std::exception& ex) {
        r = result_for(d);
        r.status = Status::error;
        r.message = ex.what();
        if (dynamic_cast<const DeviceHung*>(&ex) != nullptr) {
            // The graded code's kernel never finished: a failure of the check, and the end of the process.
            r.status = Status::fail;
            r.hint = "a kernel that waits for other blocks must only wait for blocks that are already running: take tasks "
                     "from a counter in order, or size the grid to what can be resident at once (the occupancy API)";
            fatal = "the graded code's kernel hung in check '" + d.id + "'";
            if (gpu.fatal_reason) (void)gpu.fatal_reason(ex);  // (marks the process to end without touching the device)
        } else if (auto reason = gpu.fatal_reason ? gpu.fatal_reason(ex) : std::nullopt) {
            fatal = "the CUDA context was lost in check '" + d.id + "': " + *reason;
            r.hint = "a sticky CUDA error ends every later GPU call of the process: an out-of-bounds access or a "
                     "trap in a kernel — or was the device reset, or a buffer freed, by the code under test?";
        }
    }
    return r;
}

// The code runner's checks of @p order, in turn; after a lost CUDA context, the rest are not run. Returns the exit
// code (3 after a lost context).
int run_code_checks(const Lab& lab, const std::vector<std::size_t>& order, const std::string& no_gpu, const GpuHooks& gpu,
                    Context& ctx, Emitter& out, bool profile) {
    std::map<std::string, Status> done;
    std::string fatal;
    for (std::size_t i : order) {
        const CheckDecl& d = lab.checks()[i];
        CheckResult r = result_for(d);
        if (!fatal.empty()) {
            r.status = Status::not_run;
            r.message = "not run: " + fatal;
        } else if (!ctx.gpu_available && d.needs_gpu) {
            r.status = Status::skipped;
            r.message = "GPU check skipped: " + no_gpu;
            if (d.kind == CheckKind::performance) r.target = perf_target(lab.entries()[i].perf);
        } else {
            out.send({{"type", "start"}, {"id", d.id}});
            r = run_one_code_check(lab, i, ctx, done, gpu, fatal);
            done[d.id] = r.status;
        }
        out.send({{"type", "result"}, {"result", r}});
        if (!fatal.empty() && r.status != Status::not_run) out.send({{"type", "fatal"}, {"reason", fatal}});
    }
    // With --profile, the lab's evidence under Nsight Compute, after every check (it grades nothing): at most 30 s a lab.
    if (profile)
        for (const ProfileEvidence& e : lab.evidence()) {
            nlohmann::json ev = {{"target", e.target}, {"idea", e.idea}, {"metrics", nlohmann::json::array()}, {"kernels", nlohmann::json::array()}};
            for (const EvidenceMetric& m : e.metrics) ev["metrics"].push_back({{"metric", m.metric}, {"label", m.label}, {"per", m.per}});
            if (!lab.profile_targets().count(e.target)) ev["skipped"] = "lab definition error: no profile target '" + e.target + "'";
            else if (!fatal.empty()) ev["skipped"] = "not run: " + fatal;
            else if (!ctx.gpu_available) ev["skipped"] = "no GPU: " + no_gpu;
            else if (!gpu.profile) ev["skipped"] = "this runner cannot run a profiler";
            else {
                const int budget = std::max(10, 30 / static_cast<int>(lab.evidence().size()));
                try {
                    const nlohmann::json got = gpu.profile(e, budget);
                    ev["skipped"] = got.value("skipped", "");
                    ev["kernels"] = got.value("kernels", nlohmann::json::array());
                    ev["seconds"] = got.value("seconds", 0.0);
                    if (got.value("course_kernels_left_out", 0) > 0) ev["course_kernels_left_out"] = got["course_kernels_left_out"];
                } catch (const std::exception& ex) {
                    ev["skipped"] = std::string("the profiler failed: ") + ex.what();
                }
            }
            out.send({{"type", "profile"}, {"evidence", ev}});
        }
    out.send({{"type", "done"}});
    if (!fatal.empty() && gpu.end_at_once && gpu.end_at_once()) {
        // Nothing after this may touch the device: the destructors of the checks' buffers would wait for the kernel.
        std::fflush(nullptr);
        std::_Exit(3);
    }
    return fatal.empty() ? 0 : 3;
}

// The files a runner started by hand may be given: the graded code's own symbols and the ceilings. False (with
// the reason on stderr) when the ceilings cannot be read.
bool read_side_files(RunnerOptions& opts, const std::string& ceilings_file) {
    if (!opts.own_symbols_file.empty()) {
        std::ifstream f(opts.own_symbols_file);
        for (std::string s; std::getline(f, s);)
            if (!s.empty()) opts.own_symbols.insert(s);
    }
    if (ceilings_file.empty()) return true;
    try {
        std::ifstream f(ceilings_file);
        const nlohmann::json j = nlohmann::json::parse(f);
        opts.ceilings = j.contains("ceilings") ? j["ceilings"] : j;
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "runner: unreadable ceilings %s: %s\n", ceilings_file.c_str(), e.what());
        return false;
    }
}

// A profile target alone, under a profiler: no report channel, no checks. What it launched is printed after it,
// authenticated, for the check that compares it with the graded run (the graded code prints on the same stdout;
// the launcher that started this run has the key and checks the line).
int run_profile_target(const std::string& name, void (*register_fn)(Lab&), const RunnerOptions& opts, const GpuHooks& gpu) {
    if (register_fn == nullptr) return 3;
    Lab lab(opts.seed);
    register_fn(lab);
    const auto it = lab.profile_targets().find(name);
    if (it == lab.profile_targets().end()) {
        std::fprintf(stderr, "runner: no profile target '%s'\n", name.c_str());
        return 2;
    }
    if (gpu.profile_begins) gpu.profile_begins();
    try {
        it->second();
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "runner: profile target '%s' failed: %s\n", name.c_str(), ex.what());
        return 1;
    }
    if (gpu.profile_launches) {
        const std::string json = gpu.profile_launches().dump();
        const std::optional<ChannelKey> key = received_channel_key();
        std::fflush(stdout);
        std::printf("\nLABS-LAUNCHES %s %s\n", key ? line_mac(*key, 0, json).c_str() : "0000000000000000", json.c_str());
        std::fflush(stdout);
    }
    return 0;
}

// --graded-calcs: the calculator runs that work this lab's graded questions (Lab::graded_calc), at the stated cases
// or, with --student, at that student's: one JSON object a line ({"asks", "model", "params", "device"}).
void print_graded_calcs(void (*register_fn)(Lab&), const RunnerOptions& opts) {
    Lab lab(opts.seed);
    register_fn(lab);
    Context ctx;
    ctx.student = opts.student;
    ctx.course_seed = opts.course_seed;
    for (const GradedCalc& g : lab.graded_calcs(ctx))
        std::printf("%s\n", nlohmann::json{{"asks", g.asks}, {"model", g.run.model}, {"params", g.run.params}, {"device", g.run.device}}
                                .dump()
                                .c_str());
}

// A runner the grader starts has nothing on its command line: its parameters came on the key pipe, before any of
// the graded code was loaded (protocol.hpp). A runner started by hand takes them as options. -1 when parsed, else
// the exit code (the reason on stderr, or CLI11's help).
int parse_runner_params(CLI::App& app, int argc, char** argv, RunnerOptions& opts) {
    nlohmann::json params;
    try {
        if (const std::optional<std::string> text = received_run_params(); text && !text->empty()) {
            params = nlohmann::json::parse(*text);
            if (argc > 1) {
                std::fprintf(stderr, "runner: parameters came on the key pipe; the command line must be empty\n");
                return 2;
            }
            std::vector<std::string> args = params.value("args", std::vector<std::string>{});
            std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
            app.parse(args);
            if (params.contains("ceilings")) opts.ceilings = params["ceilings"];
            for (const std::string& s : params.value("own_symbols", std::vector<std::string>{})) opts.own_symbols.insert(s);
            opts.hidden = params.value("hidden", std::vector<std::string>{});
            opts.scratch = params.value("scratch", "");
        } else {
            app.parse(argc, argv);
        }
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "runner: unreadable parameters on the key pipe: %s\n", e.what());
        return 2;
    }
    return -1;
}

}  // namespace

int run_lab(const Lab& lab, const RunnerOptions& opts, const GpuHooks& gpu, Emitter& out) {
    const std::vector<std::size_t> order = checks_to_run(lab, opts);
    Context ctx;
    ctx.seed = opts.seed;
    ctx.student = opts.student;
    ctx.course_seed = opts.course_seed;
    ctx.own_symbols = opts.own_symbols;
    ctx.ceilings = opts.ceilings.is_object() ? opts.ceilings : nlohmann::json::object();
    for (std::size_t i : order) ctx.planned.insert(lab.checks()[i].id);
    out.send({{"type", "hello"},
              {"protocol", kProtocolVersion},
              {"mode", opts.mode == RunnerMode::answers ? "answers" : "code"},
              {"seed", opts.seed}});
    nlohmann::json plan = nlohmann::json::array();
    for (std::size_t i : order) plan.push_back(lab.checks()[i]);
    out.send({{"type", "plan"}, {"checks", plan}});
    if (opts.plan_only || opts.mode == RunnerMode::answers) {
        if (!opts.plan_only) run_answers(lab, order, opts, ctx, out);
        out.send({{"type", "done"}});
        return 0;
    }

    const std::string no_gpu = gpu.probe ? gpu.probe() : std::string("no CUDA device: GPU support not built");
    ctx.gpu_available = no_gpu.empty();
    ctx.no_gpu_reason = no_gpu;
    ctx.given_kernels = lab.given_kernel_patterns();
    // The observer has recorded since before the graded code was loaded (GpuHooks::prepare).
    const std::string observer = !ctx.gpu_available ? "no CUDA device"
                                 : opts.prepared.observer.empty() ? "cupti" : opts.prepared.observer;
    out.send({{"type", "device"}, {"available", ctx.gpu_available}, {"reason", no_gpu}, {"observer", observer},
              {"sandbox", opts.prepared.sandbox}, {"sandbox_notes", opts.prepared.sandbox_notes},
              {"sandbox_ms", opts.prepared.sandbox_ms}});
    if (!opts.prepared.error.empty()) out.send({{"type", "warning"}, {"message", opts.prepared.error}});
    if (ctx.gpu_available) check_gpu_and_time_baselines(lab, order, gpu, ctx);
    // Progress of the timing loops, at most twice a second, for a live line on the grader's terminal.
    if (gpu.progress) {
        gpu.progress([&out, last = std::chrono::steady_clock::time_point{}](const std::string& text) mutable {
            const auto now = std::chrono::steady_clock::now();
            if (now - last < std::chrono::milliseconds(500)) return;
            last = now;
            out.send({{"type", "progress"}, {"text", text}});
        });
    }
    return run_code_checks(lab, order, no_gpu, gpu, ctx, out, opts.profile);
}

int runner_main(int argc, char** argv, RunnerMode mode, void (*register_fn)(Lab&), const GpuHooks& gpu) {
    // (register_fn is null for a code runner whose checks come with the graded module: GpuHooks::prepare loads it.)
    CLI::App app{"Lab runner: grades one half of one lab and reports over the grader's line protocol. "
                 "Started by `grader`; run it by hand only to debug a check."};
    RunnerOptions opts;
    opts.mode = mode;
    int report_fd = -1;
    std::string report_file, ceilings_file;
    app.add_option("--report-fd", report_fd, "Write protocol lines to this file descriptor");
    app.add_option("--report", report_file, "Write protocol lines to this file");
    app.add_option("--answers", opts.answers_file, "answers.toml to grade");
    app.add_option("--seed", opts.seed, "Seed of the run");
    app.add_option("--student", opts.student, "Student whose exercise cases are graded (empty: the stated cases)");
    app.add_option("--course-seed", opts.course_seed, "The course's seed (with --student, draws each student's cases)");
    app.add_option("--ceilings", ceilings_file, "JSON with the ceilings the grader measured");
    app.add_flag("--plan", opts.plan_only, "Send the plan and stop");
    app.add_flag("--profile", opts.profile, "After the checks, read the lab's profiler evidence under Nsight Compute");
    app.add_option("--only", opts.only,
                   "Run only these checks (ids or globs, separated by commas; the checks they require run too)");
    app.add_option("--own-symbols", opts.own_symbols_file, "Symbols the graded code's objects define (from the grader)");
    std::string profile_target;
    app.add_option("--profile-target", profile_target,
                   "Run only this profile target of the lab (for a profiler started by a check), then stop");
    bool graded_calcs = false;
    app.add_flag("--graded-calcs", graded_calcs,
                 "Print the calculator runs that work this lab's graded questions, and stop (at exactly their inputs "
                 "the grader's calculator shows the method, not the numbers)");
    if (const int code = parse_runner_params(app, argc, argv, opts); code >= 0) return code;
    if (!read_side_files(opts, ceilings_file)) return 2;
    // The code runner's sandbox, observer and graded code, in that order (GpuHooks::prepare).
    if (gpu.prepare) {
        opts.prepared = gpu.prepare(opts);
        if (!opts.prepared.error.empty()) {
            std::fprintf(stderr, "runner: %s\n", opts.prepared.error.c_str());
            if (!profile_target.empty()) return 3;
        }
    }
    if (register_fn == nullptr && opts.prepared.register_checks) register_fn = opts.prepared.register_checks;
    if (!profile_target.empty()) return run_profile_target(profile_target, register_fn, opts, gpu);
    std::FILE* out = stdout;
    if (report_fd >= 0) out = fdopen(report_fd, "w");
    else if (!report_file.empty()) out = std::fopen(report_file.c_str(), "w");
    if (out == nullptr) {
        std::fprintf(stderr, "runner: cannot open the report channel\n");
        return 2;
    }
    Emitter emitter(out);
    if (graded_calcs) {
        print_graded_calcs(register_fn, opts);
        return 0;
    }
    try {
        if (register_fn == nullptr)
            throw std::runtime_error(opts.prepared.error.empty() ? "the graded code could not be loaded" : opts.prepared.error);
        Lab lab(opts.seed);
        register_fn(lab);
        return run_lab(lab, opts, gpu, emitter);
    } catch (const std::exception& e) {
        // (A runner says hello before anything else, even when it cannot go on.)
        emitter.send({{"type", "hello"}, {"protocol", kProtocolVersion}, {"mode", mode == RunnerMode::answers ? "answers" : "code"},
                      {"seed", opts.seed}});
        emitter.send({{"type", "fatal"}, {"reason", std::string("runner failed: ") + e.what()}});
        return 3;
    }
}

}  // namespace gpulab::grader
