// The grader's side: registry, child processes under a timeout, interpretation of what they did.
#include "grader/orchestrator.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "grader/policy.hpp"

namespace gpulab::grader {
namespace {

std::vector<std::string> string_list(const nlohmann::json& j, const char* key) {
    std::vector<std::string> out;
    if (!j.contains(key) || j[key].is_null()) return out;
    for (const auto& v : j[key]) out.push_back(v.get<std::string>());
    return out;
}


std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

}  // namespace


Registry load_registry(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("lab registry " + path + " not found: configure and build the project first "
                                     "(cmake --workflow --preset default)");
    Registry r;
    try {
        const nlohmann::json j = nlohmann::json::parse(f);
        r.source_dir = j.value("source_dir", "");
        r.ceilings_command = string_list(j, "ceilings_command");
        const std::vector<std::string> deps = string_list(j, "deps_command");
        const std::string build_dir = j.value("build_dir", "");
        for (const auto& l : j.at("labs")) {
            LabEntry e;
            e.id = l.at("id").get<std::string>();
            e.name = l.at("name").get<std::string>();
            e.title = l.value("title", e.name);
            e.dir = l.value("dir", "");
            e.runner_answers = string_list(l, "runner_answers");
            e.build_answers = string_list(l, "build_answers");
            e.code_points = l.value("code_points", 0.0);
            e.student_files = string_list(l, "student_files");
            e.submission_dir = l.value("submission_dir", "");
            // The registry names each implementation's targets with its suffix (runner_student, build_solution, ...).
            for (auto [targets, suffix] : {std::pair{&e.student, "_student"}, {&e.solution, "_solution"}, {&e.submission, "_submission"}}) {
                targets->runner = string_list(l, (std::string("runner") + suffix).c_str());
                targets->build = string_list(l, (std::string("build") + suffix).c_str());
                targets->objects = split_lines(l.value(std::string("objects") + suffix, ""));
            }
            e.student.answers = l.value("answers_student", "");
            e.solution.answers = l.value("answers_solution", "");
            e.submission.answers = e.submission_dir.empty() ? "" : e.submission_dir + "/answers.toml";
            if (l.contains("policy")) {
                e.policy_deny = string_list(l["policy"], "deny");
                e.policy_allow = string_list(l["policy"], "allow");
            }
            if (l.contains("calculators") && l["calculators"].is_array()) e.calculators = string_list(l, "calculators");
            e.deps_command = deps;
            e.build_dir = build_dir;
            r.labs.push_back(std::move(e));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("lab registry " + path + " is malformed: " + e.what());
    }
    std::sort(r.labs.begin(), r.labs.end(), [](const LabEntry& a, const LabEntry& b) { return a.id < b.id; });
    return r;
}

std::vector<LabEntry> select_labs(const Registry& registry, const std::vector<std::string>& selectors) {
    if (selectors.empty()) return registry.labs;
    std::vector<LabEntry> out;
    for (const std::string& raw : selectors) {
        const std::string s = lower(raw);
        const LabEntry* found = nullptr;
        for (const LabEntry& e : registry.labs) {
            const bool numeric = !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
            const bool by_number = numeric && std::stoi(s) == std::stoi(e.id);
            const std::string folder = e.id + "_" + e.name;
            if (by_number || s == lower(e.name) || s == lower(folder) || s == lower(e.id)) found = &e;
        }
        if (found == nullptr) {
            std::string known;
            for (const LabEntry& e : registry.labs) known += (known.empty() ? "" : ", ") + e.id + " (" + e.name + ")";
            throw std::invalid_argument("no lab '" + raw + "'; the labs are: " + known);
        }
        if (std::none_of(out.begin(), out.end(), [&](const LabEntry& e) { return e.id == found->id; })) out.push_back(*found);
    }
    return out;
}


const GradedTargets& graded_targets(const LabEntry& lab, Implementation impl) {
    switch (impl) {
        case Implementation::solution: return lab.solution;
        case Implementation::submission: return lab.submission;
        default: return lab.student;
    }
}

namespace {

// What a runner's messages said, read in the only order a runner writes them: hello, plan, then per check an
// optional start followed by its result (a check that ran has a start), warnings and a fatal anywhere in between,
// done last. Anything else is noted as tampering: no runner of this project sends it.
struct Transcript {
    std::vector<CheckDecl> plan;
    std::map<std::string, CheckResult> results;
    std::string running, fatal;
    bool hello = false, done = false;
    bool plan_only = false;        // the runner was asked for its plan alone (--plan): 'done' follows the plan
    std::string protocol_problem;  // an honest runner that cannot be graded (an old build, say)
    std::string tampered;          // what no runner of this project sends: someone else wrote on the channel

    [[nodiscard]] const CheckDecl* planned(const std::string& id) const {
        for (const CheckDecl& d : plan)
            if (d.id == id) return &d;
        return nullptr;
    }
    void wrong_order(const std::string& what) {
        if (tampered.empty()) tampered = what;
    }

    void read_start(const nlohmann::json& m) {
        const std::string id = m.at("id").get<std::string>();
        if (!planned(id)) wrong_order("a start of '" + id + "', which is not in the plan");
        else if (results.count(id)) wrong_order("a second start of '" + id + "'");
        else if (!running.empty()) wrong_order("a start of '" + id + "' while '" + running + "' runs");
        running = id;
    }
    void read_result(const nlohmann::json& m) {
        CheckResult c = m.at("result").get<CheckResult>();
        const CheckDecl* d = planned(c.id);
        const bool ran = c.status != Status::skipped && c.status != Status::not_run;
        if (d == nullptr) wrong_order("a result for '" + c.id + "', which is not in the plan");
        else if (d->kind != c.kind) wrong_order("a result for '" + c.id + "' of another kind than planned");
        else if (results.count(c.id)) wrong_order("a second result for '" + c.id + "'");
        else if (ran && running != c.id) wrong_order("a result for '" + c.id + "' that was never started");
        else if (!ran && !running.empty() && running != c.id) wrong_order("a result for '" + c.id + "' while '" + running + "' runs");
        if (c.id == running) running.clear();
        results.emplace(c.id, std::move(c));
    }
    void read_done() {
        if (!running.empty()) wrong_order("'done' while '" + running + "' runs");
        for (const CheckDecl& d : plan)
            if (!plan_only && !results.count(d.id)) wrong_order("'done' before a result for '" + d.id + "'");
        done = true;
    }

    // One message; what it says of the part as a whole (warnings, the device) goes to @p r.
    void read(const nlohmann::json& m, PartResult& r) {
        const std::string type = m.value("type", "");
        try {
            if (done) {
                wrong_order("a '" + type + "' message after 'done'");
            } else if (type == "hello") {
                if (hello) wrong_order("a second 'hello'");
                hello = true;
                if (m.value("protocol", 0) != kProtocolVersion)
                    protocol_problem = "runner speaks protocol " + std::to_string(m.value("protocol", 0)) +
                                       ", the grader " + std::to_string(kProtocolVersion) + ": rebuild the project";
            } else if (!hello) {
                wrong_order("a '" + type + "' message before 'hello'");
            } else if (type == "plan") {
                if (!plan.empty()) wrong_order("a second 'plan'");
                plan = m.at("checks").get<std::vector<CheckDecl>>();
            } else if (type == "start") {
                read_start(m);
            } else if (type == "result") {
                read_result(m);
            } else if (type == "warning") {
                r.warnings.push_back(m.value("message", ""));
            } else if (type == "profile") {
                // Evidence for the page (it grades nothing): after the checks, before 'done'.
                if (!running.empty()) wrong_order("a 'profile' message while '" + running + "' runs");
                if (!m.contains("evidence") || !m["evidence"].is_object()) wrong_order("a 'profile' message without evidence");
                else r.profile.push_back(m["evidence"]);
            } else if (type == "device") {
                read_device(m, r);
            } else if (type == "progress") {
                // shown live on a terminal while the runner works (run_child's on_progress); nothing to grade
            } else if (type == "fatal") {
                fatal = m.value("reason", "fatal error");
            } else if (type == "done") {
                read_done();
            } else {
                wrong_order("an unknown message type '" + type + "'");
            }
        } catch (const std::exception& e) {
            if (tampered.empty()) tampered = "a malformed '" + type + "' message: " + e.what();
        }
    }

    static void read_device(const nlohmann::json& m, PartResult& r) {
        r.device_available = m.at("available").get<bool>();
        r.no_device_reason = m.value("reason", "");
        r.observer = m.value("observer", "");
        r.sandbox = m.value("sandbox", "");
        r.sandbox_ms = m.value("sandbox_ms", 0.0);
        if (m.contains("sandbox_notes") && m["sandbox_notes"].is_array())
            r.sandbox_notes = m["sandbox_notes"].get<std::vector<std::string>>();
    }
};

// Why the part as a whole failed ("" when it did not): it did not start, its channel was tampered with, it hung,
// crashed, gave up, spoke another protocol, or its report ended early or with a bad exit.
std::string part_failure(const ChildOutcome& o, const Transcript& t, const std::string& part, double timeout_s) {
    const std::string during = t.running.empty() ? "" : " during check '" + t.running + "'";
    if (o.spawn_failed) return o.output;
    if (!t.tampered.empty())
        return "TAMPERED: the " + part + " runner's report channel carried " + t.tampered +
               ". Only the runner writes there; code that writes on it (or rewrites what is written) voids the whole part";
    if (o.timed_out)
        return "hung: no result within " + std::to_string(static_cast<int>(timeout_s)) + " s" + during +
               "; killed with its process group. A kernel that never ends, or a wait that is never "
               "satisfied (an event never recorded, a flag never set)?";
    if (o.signal != 0) return "crashed" + during + ": " + describe_signal(o.signal);
    if (!t.fatal.empty()) return t.fatal;
    if (!t.protocol_problem.empty()) return t.protocol_problem;
    if (!t.hello)
        return "the " + part + " runner produced no output" +
               (o.exit_code != 0 ? " and exited with code " + std::to_string(o.exit_code) : "");
    if (!t.done)
        return "the " + part + " runner stopped before finishing its report" + during +
               (o.exit_code != 0 ? " (exit code " + std::to_string(o.exit_code) + ")" : "");
    if (o.exit_code != 0) return "the " + part + " runner exited with code " + std::to_string(o.exit_code);
    return "";
}

}  // namespace

PartResult interpret(const ChildOutcome& o, const std::string& part, double fallback_points, double timeout_s,
                     bool plan_only) {
    PartResult r;
    Transcript t;
    t.plan_only = plan_only;
    for (const nlohmann::json& m : o.messages) t.read(m, r);
    if (!o.bad_lines.empty())
        t.tampered = "a line the runner did not write (no valid authentication for its place in the sequence): \"" +
                     o.bad_lines.front() + "\"";
    r.failure = part_failure(o, t, part, timeout_s);
    r.tampered = !o.spawn_failed && !t.tampered.empty();
    if (!r.failure.empty()) r.output_tail = o.output_tail;

    if (t.plan.empty()) {
        if (!r.failure.empty() && fallback_points > 0) {
            CheckResult c = result_for({part, part == "code" ? "code checks" : "answers",
                                        part == "code" ? CheckKind::correctness : CheckKind::answer, fallback_points});
            c.status = r.tampered ? Status::tampered : Status::not_run;
            c.message = (r.tampered ? "" : "not run: ") + r.failure;
            r.checks.push_back(c);
        }
        return r;
    }
    for (const CheckDecl& d : t.plan) {
        const auto it = t.results.find(d.id);
        CheckResult c = result_for(d);
        if (r.tampered) {
            c.status = Status::tampered;
            c.message = r.failure;
        } else if (it != t.results.end()) {
            c = it->second;
            c.max_points = d.max_points;  // the plan is authoritative
            c.points = std::clamp(c.points, 0.0, d.max_points);
        } else {
            c.message = "not run: " + (r.failure.empty() ? std::string("the runner did not report it") : r.failure);
            if (d.id == t.running && !r.failure.empty()) c.message = "this check was running when: " + r.failure;
        }
        r.checks.push_back(std::move(c));
    }
    return r;
}

std::vector<std::string> first_error_lines(const std::string& output, std::size_t max_lines) {
    std::vector<std::string> out;
    static const std::regex error_line(R"((\berror\b|\bError\b|FAILED:|undefined reference))");
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line) && out.size() < max_lines) {
        if (line.rfind("FAILED:", 0) == 0) continue;  // ninja's command echo: not the compiler's message
        if (std::regex_search(line, error_line)) out.push_back(line.size() > 300 ? line.substr(0, 300) + "..." : line);
    }
    if (out.empty()) out.push_back(last_lines(output, 5));
    return out;
}

double LabResult::points() const {
    double s = 0;
    for (const CheckResult& c : checks) s += c.points;
    return tidy_points(s);
}

double LabResult::max_points() const {
    double s = 0;
    for (const CheckResult& c : checks) s += c.max_points;
    return tidy_points(s);
}

double LabResult::pending_points() const {
    double s = 0;
    for (const CheckResult& c : checks)
        if (c.status == Status::skipped) s += c.max_points;
    return tidy_points(s);
}

namespace {

// One build at a time in a build tree: two builds at once (two graders, or the workers of `grader batch`)
// would run two build tools on the same logs and shared targets. An exclusive flock on a file in the build
// tree, held while building and while the build tool is asked for an object's headers; "" locks nothing.
class BuildTreeLock {
public:
    explicit BuildTreeLock(const std::string& build_dir) {
        if (build_dir.empty()) return;
        fd_ = open((build_dir + "/.grader-build.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) return;  // a read-only build tree: nothing is built there either
        if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
        if (isatty(2) != 0) std::fprintf(stderr, "  waiting for another build in %s ...\r", build_dir.c_str());
        while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
        }
        if (isatty(2) != 0) std::fprintf(stderr, "\033[2K\r");
    }
    ~BuildTreeLock() {
        if (fd_ >= 0) close(fd_);  // closing releases the lock
    }
    BuildTreeLock(const BuildTreeLock&) = delete;
    BuildTreeLock& operator=(const BuildTreeLock&) = delete;

private:
    int fd_ = -1;
};

// Builds with `command`; on failure returns the reason with the compiler's first error lines.
std::string build(const std::vector<std::string>& command, const std::string& build_dir, const std::string& what,
                  const GradeOptions& opts, std::string& tail, double* seconds = nullptr) {
    if (!opts.build || command.empty()) return "";
    const BuildTreeLock lock(build_dir);
    // On a terminal, say what is being built while it builds (minutes on a small machine); elsewhere stay quiet.
    const bool terminal = isatty(2) != 0 && !opts.verbose;
    if (terminal) std::fprintf(stderr, "  building %s ...\r", what.c_str());
    const ChildOutcome b = run_child(command, std::max(opts.timeout_s, 900.0), opts.verbose);
    if (terminal) std::fprintf(stderr, "\033[2K\r");
    if (seconds != nullptr) *seconds = b.seconds;
    if (!b.timed_out && b.signal == 0 && b.exit_code == 0 && !b.spawn_failed) return "";
    // The linker speaks last: "undefined reference" with no compiler error before it means the code
    // compiled but a function the checks call is missing or was renamed.
    bool compiler_error = false, link_error = false;
    std::istringstream output(b.output);
    for (std::string line; std::getline(output, line);) {
        if (line.find("undefined reference") != std::string::npos) link_error = true;
        else if (line.find("error:") != std::string::npos && line.find("ld returned") == std::string::npos &&
                 line.rfind("FAILED:", 0) != 0)
            compiler_error = true;
    }
    std::string reason = what + " did not compile";
    if (link_error && !compiler_error)
        reason = what + " compiled but did not link: a function the checks call is missing (renamed? a changed "
                        "signature? it must match the lab's header exactly)";
    if (b.timed_out) reason = what + ": the build timed out";
    if (b.spawn_failed) reason = what + ": cannot run the build: " + b.output;
    const auto lines = first_error_lines(b.output);
    for (const std::string& l : lines) reason += "\n    " + l;
    tail = b.output_tail;
    return reason;
}

}  // namespace

// The code policy, checked on the compiled objects before any of their code runs. Returns why the code
// may not run ("" when it complies) and the symbols the objects define (their kernels among them), which the
// runner receives with its parameters (never through a file the graded code could reach).
std::string check_code_policy(const LabEntry& lab, const std::vector<std::string>& objects, std::vector<std::string>& own_symbols) {
    if (objects.empty()) return "";
    const CodePolicy policy = lab_policy(lab.policy_deny, lab.policy_allow);
    std::vector<std::string> defined;
    std::string problems;
    std::size_t count = 0;
    const BuildTreeLock lock(lab.deps_command.empty() ? "" : lab.build_dir);  // the build tool's logs are read
    for (std::string object : objects) {
        // The build tool knows the object by its path inside the build tree.
        if (!lab.build_dir.empty() && object.rfind(lab.build_dir + "/", 0) == 0) object.erase(0, lab.build_dir.size() + 1);
        for (std::size_t p; (p = object.find("/./")) != std::string::npos;) object.erase(p, 2);
        const std::string full = lab.build_dir.empty() || object.front() == '/' ? object : lab.build_dir + "/" + object;
        std::vector<std::string> deps = lab.deps_command;
        const ScanResult scan = scan_object(full, policy);
        if (!scan.error.empty()) return "the code policy could not be checked: " + scan.error;
        std::vector<Violation> violations = scan.violations;
        if (!deps.empty()) {  // headers: ask the build tool, with the object's path as it knows it
            deps.push_back(object);
            const ChildOutcome o = run_child(deps, 60, false);
            if (o.spawn_failed || o.exit_code != 0) return "the code policy could not be checked: cannot list the headers of " + object;
            std::vector<std::string> headers;
            for (const std::string& line : split_lines(o.output))
                if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) headers.push_back(line.substr(line.find_first_not_of(" \t")));
            for (const Violation& v : check_policy({}, {}, {}, "", headers, policy)) violations.push_back(v);
        }
        defined.insert(defined.end(), scan.defined_symbols.begin(), scan.defined_symbols.end());
        for (const Violation& v : violations) {
            if (++count <= 6) problems += "\n    " + v.what + " — " + v.why;
        }
    }
    if (count > 6) problems += "\n    ... and " + std::to_string(count - 6) + " more";
    if (count > 0) {
        std::string files;
        for (const std::string& f : lab.student_files) files += (files.empty() ? "" : ", ") + f;
        return "code policy: " + (files.empty() ? std::string("the code") : files) + " uses what a graded lab may not "
               "(checked on the compiled object; nothing of it ran):" + problems;
    }
    own_symbols = std::move(defined);
    return "";
}

namespace {

// Regrades the INVALID checks of a code part, each time in a new runner process with `--only` (which also
// runs the correctness checks they require, and times their baselines alone again), up to
// opts.retry_invalid times. A retried check keeps its earlier attempts; the last attempt counts.
void retry_invalid(PartResult& part, const std::vector<std::string>& argv, const nlohmann::json& params,
                   const GradeOptions& opts) {
    for (int attempt = 2; attempt <= opts.retry_invalid + 1 && part.failure.empty(); ++attempt) {
        std::string ids;
        for (const CheckResult& c : part.checks)
            if (c.status == Status::invalid) ids += (ids.empty() ? "" : ",") + c.id;
        if (ids.empty()) return;
        std::vector<std::string> again_args;  // the same parameters, with --only naming the INVALID checks
        const std::vector<std::string> args = params.at("args").get<std::vector<std::string>>();
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i] == "--only" && i + 1 < args.size()) ++i;
            else if (args[i] != "--profile") again_args.push_back(args[i]);  // the evidence was read the first time
        }
        again_args.insert(again_args.end(), {"--only", ids});
        nlohmann::json again_params = params;
        again_params["args"] = again_args;
        const PartResult again =
            interpret(run_child(argv, opts.timeout_s, opts.verbose, {}, again_params.dump()), "code", 0, opts.timeout_s);
        if (again.tampered) {  // whatever wrote on the channel voids the whole part, as in the first attempt
            part.tampered = true;
            part.failure = again.failure;
            part.output_tail = again.output_tail;
            for (CheckResult& c : part.checks) {
                c.status = Status::tampered;
                c.points = 0;
                c.message = again.failure;
            }
            return;
        }
        for (CheckResult& c : part.checks) {
            if (c.status != Status::invalid) continue;
            const auto it = std::find_if(again.checks.begin(), again.checks.end(),
                                         [&](const CheckResult& a) { return a.id == c.id; });
            nlohmann::json earlier = {{"attempt", attempt - 1}, {"status", std::string(to_string(c.status))},
                                      {"points", c.points}, {"measured", c.measured}, {"message", c.message}};
            std::vector<nlohmann::json> attempts = c.attempts;
            attempts.push_back(std::move(earlier));
            if (it == again.checks.end()) {
                c.attempts = attempts;
                c.message = "retry " + std::to_string(attempt - 1) + " did not report it" +
                            (again.failure.empty() ? "" : ": " + again.failure) + "; attempt 1: " + c.message;
                continue;
            }
            const double max_points = c.max_points;
            c = *it;
            c.max_points = max_points;
            c.points = std::clamp(c.points, 0.0, max_points);
            c.attempts = std::move(attempts);
            c.message = "attempt " + std::to_string(attempt) + " (" + std::to_string(attempt - 1) + " earlier, INVALID): " +
                        c.message;
        }
        if (!again.failure.empty())
            part.warnings.push_back("retry " + std::to_string(attempt - 1) + " of the INVALID checks failed: " + again.failure);
    }
}

}  // namespace

namespace {

// The answers part: the lab's answer key built, then its runner on the answers file of what is graded.
PartResult grade_answers(const LabEntry& lab, const GradeOptions& opts) {
    const std::string& file = graded_targets(lab, opts.implementation).answers;
    std::string tail;
    PartResult part;
    part.failure = build(lab.build_answers, lab.build_dir, "the answer key of lab " + lab.id, opts, tail);
    if (!part.failure.empty()) {
        part.output_tail = tail;
        return part;
    }
    std::vector<std::string> argv = lab.runner_answers;
    argv.insert(argv.end(), {"--report-fd", "3", "--answers", file});
    if (!opts.only_checks.empty()) argv.insert(argv.end(), {"--only", opts.only_checks});
    if (opts.plan_only) argv.emplace_back("--plan");
    if (!opts.student.empty()) argv.insert(argv.end(), {"--student", opts.student, "--course-seed", std::to_string(opts.course_seed)});
    if (!opts.ceilings_file.empty()) argv.insert(argv.end(), {"--ceilings", opts.ceilings_file});
    return interpret(run_child(argv, opts.timeout_s, opts.verbose), "answers", 0, opts.timeout_s, opts.plan_only);
}

// How the code part names what it grades, and why there is no runner for it.
struct Graded {
    const GradedTargets& targets;
    std::string label;        // "your code"
    std::string missing_why;  // why there is no runner
};

Graded graded_code(const LabEntry& lab, Implementation impl) {
    const GradedTargets& t = graded_targets(lab, impl);
    switch (impl) {
        case Implementation::solution:
            return {t, "the solution", "solutions are not built (LABS_BUILD_SOLUTIONS=OFF)"};
        case Implementation::submission:
            return {t, "the submission's code", "this build has no runner for submissions (reconfigure it)"};
        default:
            return {t, "your code", "no runner for the student's code"};
    }
}

// Runs the code runner. Its command line is its program alone: the seed, the checks, the ceilings and the graded
// code's own symbols reach it on the key pipe, before the graded code is loaded.
PartResult run_code_runner(const LabEntry& lab, const GradeOptions& opts, const std::vector<std::string>& runner,
                           const std::vector<std::string>& own_symbols) {
    std::vector<std::string> args = {"--report-fd", "3", "--seed", std::to_string(opts.seed)};
    if (!opts.only_checks.empty()) args.insert(args.end(), {"--only", opts.only_checks});
    if (opts.plan_only) args.emplace_back("--plan");
    if (opts.profile && !opts.plan_only) args.emplace_back("--profile");
    nlohmann::json params = {{"args", args}, {"own_symbols", own_symbols}};
    if (!opts.ceilings_file.empty()) {
        std::ifstream f(opts.ceilings_file);
        try {
            const nlohmann::json j = nlohmann::json::parse(f);
            params["ceilings"] = j.contains("ceilings") ? j["ceilings"] : j;
        } catch (const std::exception&) {
        }
    }
    if (!opts.hidden_paths.empty()) params["hidden"] = opts.hidden_paths;
    // On a terminal, one live line says which check runs and how its timing goes.
    const bool terminal = isatty(2) != 0 && !opts.verbose;
    const auto show = [&](const std::string& text) {
        std::fprintf(stderr, "\033[2K\r  lab %s: %.100s", lab.id.c_str(), text.c_str());
        std::fflush(stderr);
    };
    PartResult part = interpret(run_child(runner, opts.timeout_s, opts.verbose,
                                          terminal ? show : std::function<void(const std::string&)>{}, params.dump()),
                                "code", lab.code_points, opts.timeout_s, opts.plan_only);
    if (terminal) std::fprintf(stderr, "\033[2K\r");
    if (!opts.plan_only) retry_invalid(part, runner, params, opts);
    return part;
}

// The code part: built, scanned by the code policy, then run; a line in @p notes says it compiled.
PartResult grade_code(const LabEntry& lab, const GradeOptions& opts, std::vector<std::string>& notes) {
    const Graded g = graded_code(lab, opts.implementation);
    PartResult part;
    if (g.targets.runner.empty()) {
        part.failure = g.missing_why;
    } else {
        std::string tail;
        double build_seconds = 0;
        part.failure = build(g.targets.build, lab.build_dir, g.label, opts, tail, &build_seconds);
        if (part.failure.empty() && opts.build) {
            std::string files;
            for (const std::string& f : lab.student_files)
                files += (files.empty() ? "" : ", ") + std::filesystem::path(f).filename().string();
            char buf[64];
            std::snprintf(buf, sizeof buf, " (built in %.0f s)", build_seconds);
            notes.push_back((opts.implementation == Implementation::solution ? "the solution"
                             : files.empty()                                  ? "the code"
                                                                              : files) +
                            " compiled and linked" + buf);
        }
        part.output_tail = tail;
        std::vector<std::string> own_symbols;
        if (part.failure.empty()) part.failure = check_code_policy(lab, g.targets.objects, own_symbols);
        if (part.failure.empty()) part = run_code_runner(lab, opts, g.targets.runner, own_symbols);
    }
    if (part.failure.empty() && opts.only_checks.empty()) {  // with --only, a part of the plan runs
        double declared = 0;
        for (const CheckResult& c : part.checks) declared += c.max_points;
        if (std::fabs(declared - lab.code_points) > 1e-9)
            part.failure = "lab definition error: checks.cu declares " + std::to_string(declared) +
                           " points of code checks, CMakeLists.txt (CODE_POINTS) says " + std::to_string(lab.code_points);
    }
    if (part.checks.empty() && !part.failure.empty() && lab.code_points > 0) {
        CheckResult c = result_for({"code", "code checks", CheckKind::correctness, lab.code_points});
        const bool policy = part.failure.rfind("code policy:", 0) == 0;
        c.status = policy ? Status::fail : Status::not_run;
        c.message = (policy ? "" : "not run: ") + part.failure;
        part.checks.push_back(c);
    }
    return part;
}

// A part's checks, warnings, device and failure, added to the lab's result.
void add_part(LabResult& res, const PartResult& part, const std::string& name) {
    res.checks.insert(res.checks.end(), part.checks.begin(), part.checks.end());
    res.warnings.insert(res.warnings.end(), part.warnings.begin(), part.warnings.end());
    if (part.device_available) {
        res.device_available = part.device_available;
        res.no_device_reason = part.no_device_reason;
    }
    if (!part.failure.empty()) {
        res.failures.push_back(name + ": " + part.failure);
        if (!part.output_tail.empty() || name == "answers") res.output_tail = part.output_tail;
    }
}

}  // namespace

LabResult grade_lab(const LabEntry& lab, const GradeOptions& opts) {
    LabResult res;
    res.id = lab.id;
    res.name = lab.name;
    res.title = lab.title;
    const auto start = std::chrono::steady_clock::now();
    if (opts.answers) add_part(res, grade_answers(lab, opts), "answers");
    if (opts.code) {
        const PartResult part = grade_code(lab, opts, res.notes);
        add_part(res, part, "code");
        res.observer = part.observer;
        res.sandbox = part.sandbox;
        res.sandbox_notes = part.sandbox_notes;
        res.sandbox_ms = part.sandbox_ms;
        res.profile = part.profile;
        if (!part.sandbox.empty() && part.sandbox != "seccomp+landlock") {
            std::string why;
            for (const std::string& x : part.sandbox_notes) why += (why.empty() ? "" : "; ") + x;
            res.warnings.push_back("the graded code ran in a weaker sandbox than the grader's (" + part.sandbox +
                                   "): " + (why.empty() ? std::string("no reason given") : why));
        }
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
}

}  // namespace gpulab::grader
