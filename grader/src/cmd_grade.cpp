// `grader [labs] [options]`: grades the labs — the student's work, the solutions or a submission — on
// this GPU, prints the table and writes the reports; --watch grades again on every save.
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <thread>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "grader/html_report.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/submission.hpp"
#include "labs/device.hpp"
#include "labs/text.hpp"

namespace gpulab::grader::cli {

namespace {

struct Ceilings {
    bool available = false;
    std::string reason;
    nlohmann::json fingerprint, ceilings;
    std::string file;
};

Ceilings measure(const Registry& reg, bool verbose) {
    Ceilings c;
    if (reg.ceilings_command.empty()) {
        c.reason = "no ceilings program registered";
        return c;
    }
    // The ceilings program writes its JSON to a file named here; the code runners get the same file.
    char path[] = "/tmp/grader-ceilings-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
        c.reason = "cannot create a temporary file for the ceilings";
        return c;
    }
    close(fd);
    c.file = path;
    remove_on_signal(c.file);
    // (Without a driver there is nothing to measure: the ceilings program says so at once, and the run ends saying why
    // the GPU checks were skipped.)
    if (nvidia_driver_loaded())
        std::cerr << "Measuring this GPU's ceilings (copy bandwidth, BF16 GEMM, launch and memory latency) ...\n";
    std::vector<std::string> argv = reg.ceilings_command;
    argv.insert(argv.end(), {"--out", c.file});
    const ChildOutcome o = run_child(argv, 300, false);
    if (verbose) std::cerr << o.output << "\n";
    try {
        std::ifstream f(c.file);
        const nlohmann::json j = nlohmann::json::parse(f);
        c.available = j.value("available", false);
        c.reason = j.value("reason", "");
        if (c.available) {
            c.fingerprint = j.at("fingerprint");
            c.ceilings = j.at("ceilings");
        }
    } catch (const std::exception&) {
        c.available = false;
        c.reason = o.timed_out ? "measuring the ceilings timed out"
                   : o.signal ? "measuring the ceilings crashed: " + describe_signal(o.signal)
                              : "measuring the ceilings failed: " + o.output_tail;
    }
    if (!c.available) {
        std::remove(c.file.c_str());
        remove_on_signal(c.file, false);
        c.file.clear();
    }
    return c;
}

int expect_outcome(const RunReport& r, const std::string& expect) {
    std::size_t graded = 0;
    bool ok = true;
    for (const LabResult& l : r.labs) {
        if (!l.failures.empty()) ok = false;
        for (const CheckResult& c : l.checks) {
            if (c.status == Status::skipped) continue;
            ++graded;
            if (expect == "full" && c.status != Status::pass) ok = false;
            if (expect == "zero" && (c.points > 0 || c.status == Status::error || c.status == Status::not_run ||
                                     c.status == Status::suspicious || c.status == Status::tampered ||
                                     c.status == Status::invalid))
                ok = false;
        }
    }
    if (ok && graded == 0) return kExitNothingGraded;
    std::cerr << "expected " << (expect == "full" ? "full marks" : "zero points without errors") << ": "
              << (ok ? "yes" : "NO") << "\n";
    return ok ? kExitPassed : kExitFailed;
}

// The files a student edits in the selected labs (editable files and answers.toml), where they are: in the
// course tree, or in a submission's folder.
std::vector<std::filesystem::path> watched_files(const Registry& reg, const std::vector<LabEntry>& labs,
                                                 const std::string& submission) {
    std::vector<std::filesystem::path> out;
    const std::filesystem::path root = submission.empty() ? std::filesystem::path(reg.source_dir) : std::filesystem::path(submission);
    for (const LabEntry& l : labs) {
        for (const std::string& f : l.student_files) out.push_back(root / f);
        out.push_back(submission.empty() ? std::filesystem::path(l.student.answers) : root / l.dir / "answers.toml");
    }
    return out;
}

// Waits until one of @p files changes (its time or size; appearing or disappearing counts), polling.
void wait_for_change(const std::vector<std::filesystem::path>& files) {
    const auto stamp = [&] {
        std::vector<std::pair<long long, long long>> s;
        for (const auto& f : files) {
            std::error_code e1, e2;
            const auto t = std::filesystem::last_write_time(f, e1);
            const auto n = std::filesystem::file_size(f, e2);
            s.emplace_back(e1 ? -1 : static_cast<long long>(t.time_since_epoch().count()), e2 ? -1 : static_cast<long long>(n));
        }
        return s;
    };
    const auto before = stamp();
    while (stamp() == before) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let an editor finish writing
}

}  // namespace

namespace {

// What the command line asks for.
struct GradeCli {
    std::vector<std::string> selectors;
    bool solution = false, list = false, verbose = false, no_build = false, no_colour = false, no_ceilings = false;
    bool watch = false, profile = false;
    std::uint64_t seed = 0;
    std::string json_file, junit_file, csv_file, html_file, only = "all", registry_path = LABS_REGISTRY_PATH, expect, submission;
    double timeout = 300;
    int retry_invalid = 0, watch_rounds = 0;
    std::string student;
    std::optional<std::uint64_t> course_seed;
    std::vector<std::string> hide;
};

// The command's options (a table: one entry per option).
void add_options(CLI::App& app, GradeCli& o) {
    app.set_version_flag("--version", "grader " + grader_version() + " (report schema " + std::to_string(kReportSchemaVersion) + ")");
    app.add_option("labs", o.selectors, "Labs to grade, by number or name (e.g. 00, 5, fusion); default: all");
    app.add_flag("--solution", o.solution, "Grade the solutions instead of your work");
    app.add_option("--submission", o.submission,
                   "Grade a submission (a directory, a git repository at HEAD, or an archive): only its editable "
                   "files are used, on this course's checks; every other file that differs is listed as ignored")
        ->excludes("--solution");
    app.add_option("--seed", o.seed, "Seed for the random inputs (a run prints its seed; pass it to reproduce)")
        ->check(seed_validator());
    app.add_option("--json", o.json_file, "Also write the report as JSON (schema: docs/report-schema.json); '-' writes "
                                          "it to stdout and the table to stderr");
    app.add_option("--junit", o.junit_file, "Also write the report as JUnit XML");
    app.add_option("--csv", o.csv_file, "Also write a gradebook CSV (one row per check, one total row per lab)");
    app.add_option("--html", o.html_file, "Also write the report as one self-contained web page: each check, and each "
                                          "performance check's roofline and timings (grader report does it for a saved "
                                          "report)");
    app.add_option("--timeout", o.timeout, "Seconds each lab process may run before it is killed")->check(CLI::PositiveNumber);
    app.add_option("--only", o.only,
                   "Grade only the answers (answers), only the code (code), or only the checks named: ids as the "
                   "handouts and the table write them, or globs, comma-separated ('correct.n1000', 'correct.*')");
    app.add_option("--retry-invalid", o.retry_invalid,
                   "Regrade a check whose measurement was INVALID (its baseline moved, another process used the "
                   "GPU, work was left running) up to N times, each in a new process; the report keeps every attempt")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--student", o.student,
                   "Grade the exercise cases of this student id (default: [student] id in class.toml; none: the "
                   "stated cases)");
    app.add_option("--course-seed", o.course_seed, "The course's seed, which draws each student's cases (default: "
                                                   "[course] seed in class.toml)");
    app.add_option("--hide", o.hide,
                   "A folder the graded code may not read, besides the course and the build tree, which it never can "
                   "(`grader batch` hides the class's submissions and its output this way)")
        ->group("");
    app.add_flag("--watch", o.watch,
                 "After grading, wait until you save an editable file or answers.toml of these labs, then grade "
                 "again (Ctrl-C stops)");
    app.add_option("--watch-rounds", o.watch_rounds, "For tests: stop --watch after this many rounds")->group("");
    app.add_flag("--list", o.list, "List the labs and exit");
    app.add_flag("--verbose,-v", o.verbose, "Show every check's message and the labs' own output");
    app.add_flag("--profile", o.profile, "After each lab's checks, read its evidence under Nsight Compute (bank conflicts, "
                                         "occupancy, stalls: what the lab teaches; at most 30 s a lab; it grades nothing) "
                                         "for the --html page");
    app.add_flag("--no-build", o.no_build, "Do not rebuild the labs first");
    app.add_flag("--no-color", o.no_colour, "No colours in the table");
    app.add_flag("--no-ceilings", o.no_ceilings,
                 "Do not measure the GPU's ceilings (answers that need them are SKIPPED; performance checks are not "
                 "compared with the start of the run)");
    app.add_option("--registry", o.registry_path, "Lab registry written by the build")->capture_default_str();
    app.add_option("--expect", o.expect, "For tests: exit 0 only if every graded check is full (full) or scores 0 "
                                         "without errors (zero); 77 when nothing could be graded")
        ->check(CLI::IsMember({"full", "zero"}));
}

// `grader --list`: each lab, the files its student edits and its answers file.
void list_labs(const Registry& reg) {
    for (const LabEntry& l : reg.labs) {
        std::cout << l.id << "  " << l.name << "  — " << l.title << "\n";
        for (const std::string& f : l.student_files) std::cout << "      edit: " << f << "\n";
        if (!l.student.answers.empty()) {
            std::string answers = l.student.answers;
            if (!reg.source_dir.empty() && answers.rfind(reg.source_dir + "/", 0) == 0) answers.erase(0, reg.source_dir.size() + 1);
            std::cout << "      answer: " << answers << "\n";
        }
    }
}

// How each lab is graded, from the command line and class.toml.
GradeOptions grade_options(const GradeCli& cli, const ClassConfig& config) {
    GradeOptions opts;
    opts.implementation = cli.solution              ? Implementation::solution
                          : !cli.submission.empty() ? Implementation::submission
                                                    : Implementation::student;
    opts.answers = cli.only != "code";
    opts.code = cli.only != "answers";
    if (cli.only != "all" && cli.only != "answers" && cli.only != "code") opts.only_checks = cli.only;
    opts.build = !cli.no_build;
    opts.profile = cli.profile;
    opts.timeout_s = cli.timeout;
    opts.verbose = cli.verbose;
    opts.seed = cli.seed;
    opts.retry_invalid = cli.retry_invalid;
    opts.hidden_paths = cli.hide;
    if (!cli.submission.empty()) opts.hidden_paths.push_back(cli.submission);  // its other files are not the graded code's
    // The solutions' answers are the stated cases' answers: a student id never applies to them.
    opts.student = cli.solution ? "" : cli.student.empty() ? config.student : cli.student;
    opts.course_seed = cli.course_seed.value_or(config.course_seed);
    return opts;
}

// Every selected lab graded once, the run's fingerprint and ceilings beside them.
RunReport grade_labs(const GradeCli& cli, const GradeOptions& opts, const Ceilings& c, const std::vector<LabEntry>& labs,
                     const StagedSubmission& staged) {
    RunReport report;
    report.implementation = cli.solution ? "solution" : !cli.submission.empty() ? "submission" : "student";
    if (!cli.submission.empty()) report.submission = staged;
    if (!opts.student.empty()) report.student = {{"id", opts.student}, {"course_seed", opts.course_seed}};
    report.seed = cli.seed;
    report.started_at = utc_now_iso8601();
    report.gpu_available = c.available;
    report.no_gpu_reason = c.available ? "" : c.reason;
    report.fingerprint = c.fingerprint;
    report.ceilings = c.ceilings;
    for (const LabEntry& lab : labs) {
        std::cerr << "Grading lab " << lab.id << " (" << lab.name << "), " << report.implementation << " ...\n";
        report.labs.push_back(grade_lab(lab, opts));
    }
    // Without measured ceilings (--no-ceilings, or they failed), the code runners say whether there was a GPU.
    if (!c.available)
        for (const LabResult& l : report.labs)
            if (l.device_available) {
                report.gpu_available = *l.device_available;
                report.no_gpu_reason = *l.device_available ? "" : l.no_device_reason;
                if (*l.device_available) break;
            }
    return report;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

// `--only` that names no check of the selected labs is refused before anything is measured or graded, with the
// ids it could name. They come from the runners' plans (--plan: each lab's code is built, nothing is graded or
// timed); a lab whose plan cannot be had (its code does not build) leaves the question open, and grading goes on,
// where its build error is reported. @return true when the run should stop.
bool refuse_unmatched_only(const GradeOptions& opts, const std::vector<LabEntry>& labs) {
    if (opts.only_checks.empty()) return false;
    GradeOptions plan = opts;
    plan.only_checks.clear();
    plan.plan_only = true;
    const std::vector<std::string> patterns = split(opts.only_checks);
    std::vector<std::pair<std::string, std::vector<std::string>>> ids;  // per lab
    for (const LabEntry& lab : labs) {
        const LabResult r = grade_lab(lab, plan);
        if (!r.failures.empty()) return false;
        std::vector<std::string> lab_ids;
        for (const CheckResult& c : r.checks) {
            for (const std::string& p : patterns)
                if (fnmatch(p.c_str(), c.id.c_str(), 0) == 0) return false;
            lab_ids.push_back(c.id);
        }
        ids.emplace_back(lab.id, std::move(lab_ids));
    }
    std::cerr << "grader: --only '" << opts.only_checks << "' names no check of the " << (labs.size() == 1 ? "lab" : "labs")
              << " graded; the ids (globs such as 'correct.*' match them; 'answers' and 'code' name a half):\n";
    for (const auto& [lab, lab_ids] : ids) {
        std::string line = "  lab " + lab + ":";
        for (const std::string& id : lab_ids) {
            if (line.size() + 1 + id.size() > 110) std::cerr << line << "\n", line = "         ";
            line += " " + id;
        }
        std::cerr << line << "\n";
    }
    return true;
}

// The table, then the reports the command line asked for; the exit code.
int publish(const GradeCli& cli, const GradeOptions& opts, const RunReport& report) {
    // `--json -` writes the JSON to stdout; the table then goes to stderr, so that stdout is JSON alone.
    const bool json_stdout = cli.json_file == "-";
    std::ostream& table = json_stdout ? std::cerr : std::cout;
    const bool colour = !cli.no_colour && isatty(json_stdout ? 2 : 1) && std::getenv("NO_COLOR") == nullptr;
    print_report(table, report, colour, cli.verbose);
    if (!opts.only_checks.empty()) {
        std::size_t graded = 0;
        for (const LabResult& l : report.labs) graded += l.checks.size();
        if (graded == 0) {
            std::cerr << "grader: no check matches '" << opts.only_checks
                      << "' (the first column of the table shows each check's id)\n";
            return kExitUsage;
        }
    }
    if (json_stdout) std::cout << to_json(report).dump(2) << "\n";
    else if (!cli.json_file.empty()) write_file(cli.json_file, to_json(report).dump(2) + "\n");
    if (!cli.junit_file.empty()) write_file(cli.junit_file, to_junit(report));
    if (!cli.csv_file.empty()) write_file(cli.csv_file, to_csv(report));
    if (!cli.html_file.empty()) write_file(cli.html_file, report_html(to_json(report), "this run"));
    if (!cli.expect.empty()) return expect_outcome(report, cli.expect);
    return report.all_that_ran_passed() ? kExitPassed : kExitFailed;
}

}  // namespace

int grade_main(int argc, char** argv) {
    CLI::App app{"Grades the labs: your answers, and your code's correctness and speed on this GPU.\n"
                 "With no arguments it grades your current work in every lab.\n"
                 "The chapter's models as a calculator: grader calc --list\n"
                 "Instructors, a whole class: grader batch --help"};
    GradeCli cli;
    add_options(app, cli);
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
    Registry reg;
    std::vector<LabEntry> labs;
    if (!load_labs(cli.registry_path, cli.selectors, reg, labs)) return kExitUsage;
    if (cli.list) {
        list_labs(reg);
        return kExitPassed;
    }
    if (cli.seed == 0) cli.seed = fresh_seed();
    // `--solution` where no selected lab has one: a student's release has none, a build may leave them out.
    if (cli.solution && std::none_of(labs.begin(), labs.end(), [](const LabEntry& l) { return !l.solution.runner.empty(); })) {
        if (!std::filesystem::exists(std::filesystem::path(reg.source_dir) / "solutions"))
            std::cerr << "grader: --solution: solutions are not part of this course (a student's copy: your "
                         "instructor keeps them); grade your own work with `grader`\n";
        else
            std::cerr << "grader: --solution: this build leaves the solutions out (LABS_BUILD_SOLUTIONS=OFF): configure "
                         "with -DLABS_BUILD_SOLUTIONS=ON, or use the default or instructor preset\n";
        return kExitUsage;
    }
    // The report files are checked before grading (minutes on a GPU), not when they are written.
    for (const auto& [option, path] : {std::pair{"--json", cli.json_file}, {"--junit", cli.junit_file}, {"--csv", cli.csv_file},
                                 {"--html", cli.html_file}})
        if (!path.empty() && !(option == std::string("--json") && path == "-"))
            if (const std::string why = unwritable_reason(path); !why.empty()) {
                std::cerr << "grader: " << option << ": " << why << "\n";
                return kExitUsage;
            }
    // A submission that cannot be staged, or a class.toml that does not parse, is a usage error: said before measuring.
    if (!cli.submission.empty()) {
        const StagedSubmission check = stage_submission(cli.submission, reg, labs);
        if (!check.error.empty()) {
            std::cerr << "grader: " << check.error << "\n";
            return kExitUsage;
        }
    }
    const auto config = class_config(reg, "grader");
    if (!config) return kExitUsage;
    GradeOptions opts = grade_options(cli, *config);
    if (refuse_unmatched_only(opts, labs)) return kExitUsage;
    // The ceilings are measured once, before the first round; each round grades the labs anew.
    Ceilings c;
    if (!cli.no_ceilings) c = measure(reg, cli.verbose);
    else c.reason = "ceilings not measured (--no-ceilings)";
    opts.ceilings_file = c.file;
    // `--watch`: after each round, wait until an editable file or answers.toml of the graded labs changes.
    const std::vector<std::filesystem::path> watched = watched_files(reg, labs, cli.submission);
    for (int round = 1;; ++round) {
        StagedSubmission staged;  // staged again each round: the files may have changed
        if (!cli.submission.empty()) staged = stage_submission(cli.submission, reg, labs);
        const int rc = !staged.error.empty() ? (std::cerr << "grader: " << staged.error << "\n", kExitUsage)
                                             : publish(cli, opts, grade_labs(cli, opts, c, labs, staged));
        if (!cli.watch || (cli.watch_rounds > 0 && round >= cli.watch_rounds)) {
            if (!c.file.empty()) std::remove(c.file.c_str()), remove_on_signal(c.file, false);
            return rc;
        }
        std::cerr << "\nwatching " << watched.size() << " file(s) of lab" << (labs.size() > 1 ? "s" : "");
        for (const LabEntry& l : labs) std::cerr << " " << l.id;
        std::cerr << ": save one to regrade (Ctrl-C stops)\n";
        wait_for_change(watched);
    }
}

}  // namespace gpulab::grader::cli
