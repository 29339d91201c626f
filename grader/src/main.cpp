// grader: grades the labs (student work or reference solutions) and reports.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <variant>

#include <CLI/CLI.hpp>
#include <toml++/toml.h>

#include "grader/batch.hpp"
#include "grader/orchestrator.hpp"
#include "grader/report.hpp"
#include "grader/submission.hpp"
#include "labs/models/calc.hpp"

#ifndef LABS_REGISTRY_PATH
#define LABS_REGISTRY_PATH "labs.json"
#endif

namespace {

using namespace gpulab::grader;

// Exit codes: documented in docs/grading.md.
constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitGraderError = 3;
constexpr int kExitNothingGraded = 77;  // --expect only: everything was skipped (ctest: SKIPPED)

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

struct ClassConfig;
ClassConfig read_class_config(const std::string& source_dir);
void redact_graded(gpulab::models::Derivation& d);

// `grader calc`: the chapter's models as a calculator. Parameters are model-specific, so they are
// parsed here rather than by CLI11: --name value (or --name=value); --device, --json, --help.
int calc_main(const std::vector<std::string>& args) {
    namespace m = gpulab::models;
    const std::string usage = "usage: grader calc --list | grader calc MODEL --help | "
                              "grader calc MODEL [--param value ...] [--device NAME] [--json]\n";
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << usage << "\n" << m::calc_list();
        return args.empty() ? kExitUsage : kExitPassed;
    }
    if (args[0] == "--list") {
        std::cout << m::calc_list();
        return kExitPassed;
    }
    try {
        const std::string model = args[0];
        std::map<std::string, std::string> params;
        std::optional<std::string> device;
        bool json = false, help = false;
        for (std::size_t i = 1; i < args.size(); ++i) {
            std::string a = args[i];
            if (a.rfind("--", 0) != 0) throw m::CalcError(model + ": unexpected '" + a + "' (parameters look like --name value)");
            a = a.substr(2);
            std::string value;
            bool has_value = false;
            if (const auto eq = a.find('='); eq != std::string::npos) {
                value = a.substr(eq + 1);
                a = a.substr(0, eq);
                has_value = true;
            }
            if (a == "json") { json = true; continue; }
            if (a == "help") { help = true; continue; }
            if (!has_value && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) value = args[++i];
            if (a == "device") {
                if (value.empty()) throw m::CalcError(model + ": missing value for --device");
                device = value;
            } else {
                params[a] = value;
            }
        }
        if (help) {
            std::cout << m::calc_help(m::calc_model(model));
            return kExitPassed;
        }
        m::Derivation d = m::calculate(model, params, device);
        redact_graded(d);
        if (json) std::cout << m::to_json(d).dump(2) << "\n";
        else std::cout << m::to_text(d);
        return kExitPassed;
    } catch (const std::exception& e) {
        std::cerr << "grader calc: " << e.what() << "\n";
        return kExitUsage;
    }
}

// The files a student edits in the selected labs (editable files and answers.toml), where they are: in the
// course tree, or in a submission's folder.
std::vector<std::filesystem::path> watched_files(const Registry& reg, const std::vector<LabEntry>& labs,
                                                 const std::string& submission) {
    std::vector<std::filesystem::path> out;
    const std::filesystem::path root = submission.empty() ? std::filesystem::path(reg.source_dir) : std::filesystem::path(submission);
    for (const LabEntry& l : labs) {
        for (const std::string& f : l.student_files) out.push_back(root / f);
        out.push_back(submission.empty() ? std::filesystem::path(l.answers_student) : root / l.dir / "answers.toml");
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

// The registry and the labs the selectors pick; false (after saying why) on an unknown lab. A missing
// registry throws: a grader error, not a usage error.
bool load_labs(const std::string& registry_path, const std::vector<std::string>& selectors, Registry& reg,
               std::vector<LabEntry>& labs) {
    try {
        reg = load_registry(registry_path);
        labs = select_labs(reg, selectors);
        return true;
    } catch (const std::invalid_argument& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return false;
    }
}

// class.toml at the top of the course tree: the course's seed (the instructor sets it once per class) and
// the student's id (each student writes their own). Command-line options override both.
struct ClassConfig {
    std::uint64_t course_seed = 0;
    std::string student;
    std::string error;
};

ClassConfig read_class_config(const std::string& source_dir) {
    ClassConfig c;
    const std::string path = source_dir + "/class.toml";
    if (source_dir.empty() || !std::filesystem::exists(path)) return c;
    try {
        const toml::table t = toml::parse_file(path);
        c.course_seed = static_cast<std::uint64_t>(t["course"]["seed"].value_or<std::int64_t>(0));
        c.student = t["student"]["id"].value_or<std::string>("");
    } catch (const toml::parse_error& e) {
        c.error = "class.toml:" + std::to_string(e.source().begin.line) + ": " + std::string(e.description());
    }
    return c;
}

// The calculator checks the student's working, it does not do the exercises: a derived quantity that
// answers a graded question of a lab (at the stated case, or the student's own from class.toml) is shown
// as graded instead of its value. Each lab's answers runner says which numbers answer which questions;
// a quantity in bytes or FLOP is tried in the units the questions use (KiB, MiB, GiB, GFLOP). Small whole
// numbers (up to 16) are everywhere and stay. A lab that names the calculators able to answer its questions
// (labs_add_lab CALCULATORS) is asked only about theirs: another model's numbers that happen to equal one of
// its keys (a pipeline timeline's 6.5 µs and lab 09's mean call time) are not its answers. Without a registry
// (no build) nothing is redacted.
void redact_graded(gpulab::models::Derivation& d) {
    namespace m = gpulab::models;
    Registry reg;
    try {
        reg = load_registry(LABS_REGISTRY_PATH);
    } catch (const std::exception&) {
        return;
    }
    const ClassConfig config = read_class_config(reg.source_dir);
    // A key's unit is in its name (traffic.mib_64x64, local_kib, gflop); a number answers it only in that unit.
    const auto unit_of_key = [](const std::string& key) {
        for (const char* u : {"kib", "mib", "gib", "gflop", "bytes", "rounds", "blocks", "warps", "percent", "us", "ms"})
            if (std::regex_search(key, std::regex(std::string("(^|[._])") + u + "([._]|$)"))) return std::string(u);
        return std::string();  // a count or a ratio
    };
    std::map<std::string, std::set<std::pair<std::size_t, std::string>>> candidates;  // number -> (quantity, unit)
    for (std::size_t i = 0; i < d.quantities.size(); ++i) {
        const m::Quantity& q = d.quantities[i];
        if (q.kind == m::QuantityKind::input || !std::holds_alternative<double>(q.value)) continue;
        const double v = std::get<double>(q.value);
        std::string own;  // the quantity's own unit as the keys name it; "" for counts and ratios
        for (const auto& [unit, tag] : {std::pair{"KiB", "kib"}, {"MiB", "mib"}, {"GiB", "gib"}, {"GFLOP", "gflop"},
                                        {"bytes", "bytes"}, {"FLOP", "flop"}, {"rounds", "rounds"}, {"blocks", "blocks"},
                                        {"warps", "warps"}, {"µs", "us"}, {"ms", "ms"}})
            if (q.unit == unit) own = tag;
        std::vector<std::pair<double, std::string>> forms{{v, own}};
        if (q.unit == "fraction") forms.push_back({v * 100, "percent"});  // a key in percent answers it too
        if (q.unit == "µs") forms.push_back({v / 1000, "ms"});
        if (q.unit == "ms") forms.push_back({v * 1000, "us"});
        if (q.unit == "bytes") forms.insert(forms.end(), {{v / 1024, "kib"}, {v / (1024.0 * 1024), "mib"}, {v / (1024.0 * 1024 * 1024), "gib"}});
        if (q.unit == "FLOP") forms.push_back({v / 1e9, "gflop"});
        for (const auto& [f, tag] : forms) {
            // A small whole number answers only a key with a unit ("1 round"): bare, it is everywhere.
            if (!std::isfinite(f) || (tag.empty() && f == std::round(f) && std::fabs(f) <= 16)) continue;
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", f);
            candidates[buf].insert({i, tag});
        }
    }
    if (candidates.empty()) return;
    std::string list;
    for (const auto& [text, where] : candidates) list += (list.empty() ? "" : ",") + text;
    std::map<std::size_t, std::string> graded;  // quantity -> "lab 03 traffic.mib_64x64"
    for (const LabEntry& lab : reg.labs) {
        if (!lab.calculators.empty() && std::find(lab.calculators.begin(), lab.calculators.end(), d.model) == lab.calculators.end())
            continue;
        std::vector<std::string> argv = lab.runner_answers;
        argv.insert(argv.end(), {"--which-keys", list});
        if (!config.student.empty())
            argv.insert(argv.end(), {"--student", config.student, "--course-seed", std::to_string(config.course_seed)});
        const ChildOutcome o = run_child(argv, 30);
        for (const std::string& line : split_lines(o.output)) {
            const auto space = line.find(' ');
            if (space == std::string::npos) continue;
            const auto it = candidates.find(line.substr(0, space));
            if (it == candidates.end()) continue;
            const std::string key = line.substr(space + 1);
            for (const auto& [i, tag] : it->second)
                if (tag == unit_of_key(key) && !graded.count(i)) graded[i] = "lab " + lab.id + " " + key;
        }
    }
    for (const auto& [i, which] : graded) {
        d.quantities[i].value = "(graded: " + which + " — work it out)";
        d.quantities[i].unit.clear();
    }
}

// `grader exercises`: writes each exercise case of the selected labs (the stated one, or the student's own)
// into the `# case NAME: ...` lines of the student's answers.toml files.
int exercises_main(int argc, char** argv) {
    CLI::App app{"Writes your exercise cases into your answers.toml files: each `# case NAME: ...` line gets the "
                 "parameters you are graded on (your own with a student id, else the stated ones)."};
    std::vector<std::string> selectors;
    std::string student, registry_path = LABS_REGISTRY_PATH;
    std::optional<std::uint64_t> course_seed;
    app.add_option("labs", selectors, "Labs, by number or name; default: all");
    app.add_option("--student", student, "Your student id (default: [student] id in class.toml)");
    app.add_option("--course-seed", course_seed, "The course's seed (default: [course] seed in class.toml)");
    app.add_option("--registry", registry_path, "Lab registry written by the build")->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitPassed : kExitUsage;
    }
    Registry reg;
    std::vector<LabEntry> labs;
    if (!load_labs(registry_path, selectors, reg, labs)) return kExitUsage;
    const ClassConfig config = read_class_config(reg.source_dir);
    if (!config.error.empty()) {
        std::cerr << "grader exercises: " << config.error << "\n";
        return kExitUsage;
    }
    if (student.empty()) student = config.student;
    const std::uint64_t seed = course_seed.value_or(config.course_seed);
    int problems = 0;
    for (const LabEntry& lab : labs) {
        std::vector<std::string> argv_runner = lab.runner_answers;
        argv_runner.insert(argv_runner.end(), {"--report-fd", "3", "--answers", lab.answers_student});
        if (!student.empty()) argv_runner.insert(argv_runner.end(), {"--student", student, "--course-seed", std::to_string(seed)});
        const PartResult part = interpret(run_child(argv_runner, 60), "answers", 0, 60);
        std::map<std::string, std::string> cases;  // name -> "m = 96, n = 80"
        for (const CheckResult& c : part.checks)
            if (c.details.is_object() && c.details.contains("case"))
                cases[c.details["case"].value("name", "")] = c.details["case"].value("text", "");
        if (cases.empty()) continue;
        std::ifstream in(lab.answers_student);
        std::string text, line;
        std::map<std::string, bool> written;
        while (std::getline(in, line)) {
            for (const auto& [name, values] : cases) {
                const std::string mark = "# case " + name + ":";
                if (line.rfind(mark, 0) != 0) continue;
                line = mark + " " + values + (student.empty() ? "" : "  (student " + student + ")");
                written[name] = true;
            }
            text += line + "\n";
        }
        in.close();
        std::ofstream(lab.answers_student) << text;
        for (const auto& [name, values] : cases) {
            if (written[name]) {
                std::cout << "lab " << lab.id << ": case " << name << ": " << values << "\n";
            } else {
                std::cout << "lab " << lab.id << ": case " << name << ": " << values << " — no '# case " << name
                          << ":' line in " << lab.answers_student << " to write it into\n";
                ++problems;
            }
        }
    }
    std::cout << (student.empty() ? "the stated cases (no student id: set [student] id in class.toml or pass --student)"
                                  : "the cases of student " + student)
              << "\n";
    return problems == 0 ? kExitPassed : kExitFailed;
}

// `grader batch`: grades a class (gpulab::grader::run_batch, grader/include/grader/batch.hpp).
int batch_main(int argc, char** argv) {
    CLI::App app{"Grades a class: each submission (a directory, a git repository at HEAD, or an archive; or a "
                 "folder of them) as `grader --submission` grades it, in parallel workers pinned to the GPUs, "
                 "with one seed for the class; then writes the gradebook (CSV and JSON) beside the per-student "
                 "reports. The student id is the folder's or the archive's name.", "grader batch"};
    std::vector<std::string> paths;
    std::string registry_path = LABS_REGISTRY_PATH, out_dir, labs_list;
    BatchOptions o;
    std::optional<std::uint64_t> seed, course_seed;
    app.add_option("submissions", paths, "Submissions, or folders of submissions")->required();
    app.add_option("--out", out_dir, "Where the reports and the gradebook go (default: build/batch)");
    app.add_option("--workers", o.workers, "Submissions graded at once (default: one per GPU, or 2 without a GPU)")
        ->check(CLI::PositiveNumber);
    app.add_option("--gpus", o.gpus, "GPUs for the workers: all (the visible ones), or CUDA_VISIBLE_DEVICES values "
                                     "such as 0,2,3; each worker is pinned to one")
        ->capture_default_str();
    app.add_option("--seed", seed, "The class's seed (default: drawn once and printed; with --resume, the earlier run's)");
    app.add_option("--timeout", o.timeout_s, "Seconds one submission may take before it is stopped and flagged HUNG")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--lab-timeout", o.lab_timeout_s, "Seconds each lab process may run (grader --timeout)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_flag("--resume", o.resume, "Do not grade again a submission whose result is in --out for the same files "
                                       "(content hash) and settings");
    app.add_option("--labs", labs_list, "Labs to grade, comma-separated (default: all)");
    app.add_option("--only", o.only, "What to grade, as grader --only says (answers, code, or check ids)")->capture_default_str();
    app.add_option("--retry-invalid", o.retry_invalid, "As grader --retry-invalid")->check(CLI::NonNegativeNumber);
    app.add_flag("--no-ceilings", o.no_ceilings, "As grader --no-ceilings");
    app.add_flag("--calibrate", o.calibrate, "Before grading, each worker grades the reference solutions on its GPU; the "
                                             "gradebook records their performance checks (ratio, points) per GPU, and "
                                             "calibration.csv too, so that GPUs and nodes can be compared");
    app.add_option("--course-seed", course_seed, "The course's seed (default: [course] seed in class.toml); when it is "
                                                 "not 0, each student is graded on their own exercise cases");
    app.add_option("--registry", registry_path, "Lab registry written by the build")->capture_default_str();
    std::string shard_text;
    app.add_option("--first-slot", o.first_slot, "Worker K stages and builds in the build tree's slot FIRST+K: batches "
                                                 "that share one build tree (shards on a cluster) need disjoint slots")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--shard", shard_text, "I/N: grade only shard I (0-based) of N; the students, sorted by id, are dealt "
                                          "round robin; its results go to OUT/shard-I-of-N (grader gradebook merge joins them)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitPassed : kExitUsage;
    }
    std::vector<std::string> passed_over;
    Shard shard;
    try {
        if (!shard_text.empty()) shard = parse_shard(shard_text);
        o.entries = find_submissions(paths, passed_over);
        for (const BatchEntry& e : o.entries) o.class_students.push_back(e.student);
        o.shard_index = shard.index;
        o.shard_count = shard.count;
        o.entries = select_shard(o.entries, shard);
        if (o.entries.empty())
            throw std::invalid_argument("shard " + shard_text + " of a class of " + std::to_string(o.class_students.size()) +
                                        " has no student: use fewer shards");
    } catch (const std::invalid_argument& e) {
        std::cerr << "grader batch: " << e.what() << "\n";
        return kExitUsage;
    }
    for (const std::string& p : passed_over) std::cerr << "grader batch: passed over " << p << " (not a folder or an archive)\n";
    Registry reg;
    std::vector<LabEntry> labs;
    if (!load_labs(registry_path, {}, reg, labs)) return kExitUsage;
    const ClassConfig config = read_class_config(reg.source_dir);
    if (!config.error.empty()) {
        std::cerr << "grader batch: " << config.error << "\n";
        return kExitUsage;
    }
    std::stringstream selectors(labs_list);
    for (std::string s; std::getline(selectors, s, ',');)
        if (!s.empty()) o.labs.push_back(s);
    o.registry_path = registry_path;
    o.out_dir = shard_out_dir(out_dir.empty() ? (std::filesystem::path(registry_path).parent_path() / "batch").string() : out_dir, shard);
    o.grader_exe = std::filesystem::read_symlink("/proc/self/exe").string();
    o.seed = seed;
    o.course_seed = course_seed.value_or(config.course_seed);
    return run_batch(o);
}

// `grader gradebook merge`: joins the gradebooks of a class's shards (gpulab::grader::merge_gradebooks).
int gradebook_main(int argc, char** argv) {
    CLI::App app{"Gradebooks of a class graded in shards (grader batch --shard I/N).", "grader gradebook"};
    app.require_subcommand(1);
    CLI::App* merge = app.add_subcommand("merge", "Joins the shards' gradebooks into one gradebook.csv and gradebook.json, "
                                                  "refusing shards of another grading and naming any shard or student missing "
                                                  "or twice");
    std::string out;
    std::vector<std::string> dirs;
    merge->add_option("--out", out, "Where the merged gradebook goes")->required();
    merge->add_option("shards", dirs, "The shards' folders (OUT/shard-I-of-N, as grader batch --shard wrote them)")->required();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitPassed : kExitUsage;
    }
    return merge_gradebooks(out, dirs);
}

int run(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "calc") return calc_main(std::vector<std::string>(argv + 2, argv + argc));
    if (argc >= 2 && std::string(argv[1]) == "exercises") return exercises_main(argc - 1, argv + 1);
    if (argc >= 2 && std::string(argv[1]) == "batch") return batch_main(argc - 1, argv + 1);
    if (argc >= 2 && std::string(argv[1]) == "gradebook") return gradebook_main(argc - 1, argv + 1);
    CLI::App app{"Grades the labs: your answers, and your code's correctness and speed on this GPU.\n"
                 "With no arguments it grades your current work in every lab.\n"
                 "The chapter's models as a calculator: grader calc --list\n"
                 "Instructors, a whole class: grader batch --help"};
    app.set_version_flag("--version", "grader " + grader_version() + " (report schema " + std::to_string(kReportSchemaVersion) + ")");
    std::vector<std::string> selectors;
    bool solution = false, list = false, verbose = false, no_build = false, no_colour = false, no_ceilings = false;
    std::uint64_t seed = 0;
    std::string json_file, junit_file, csv_file, only = "all", registry_path = LABS_REGISTRY_PATH, expect, submission;
    double timeout = 300;
    int retry_invalid = 0, watch_rounds = 0;
    bool watch = false;
    std::string student;
    std::optional<std::uint64_t> course_seed;
    app.add_option("labs", selectors, "Labs to grade, by number or name (e.g. 00, 5, fusion); default: all");
    app.add_flag("--solution", solution, "Grade the reference solutions instead of your work");
    app.add_option("--submission", submission,
                   "Grade a submission (a directory, a git repository at HEAD, or an archive): only its editable "
                   "files are used, on this course's checks; every other file that differs is listed as ignored")
        ->excludes("--solution");
    app.add_option("--seed", seed, "Seed for the random inputs (a run prints its seed; pass it to reproduce)");
    app.add_option("--json", json_file, "Also write the report as JSON (schema: docs/report-schema.json); '-' writes "
                                        "it to stdout and the table to stderr");
    app.add_option("--junit", junit_file, "Also write the report as JUnit XML");
    app.add_option("--csv", csv_file, "Also write a gradebook CSV (one row per check, one total row per lab)");
    app.add_option("--timeout", timeout, "Seconds each lab process may run before it is killed")->check(CLI::PositiveNumber);
    app.add_option("--only", only,
                   "Grade only the answers (answers), only the code (code), or only the checks named: ids as the "
                   "handouts and the table write them, or globs, comma-separated ('correct.n1000', 'correct.*')");
    app.add_option("--retry-invalid", retry_invalid,
                   "Regrade a check whose measurement was INVALID (its reference moved, another process used the "
                   "GPU, work was left running) up to N times, each in a new process; the report keeps every attempt")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--student", student,
                   "Grade the exercise cases of this student id (default: [student] id in class.toml; none: the "
                   "stated cases)");
    app.add_option("--course-seed", course_seed, "The course's seed, which draws each student's cases (default: "
                                                 "[course] seed in class.toml)");
    std::vector<std::string> hide;
    app.add_option("--hide", hide,
                   "A folder the graded code may not read, besides the course and the build tree, which it never can "
                   "(`grader batch` hides the class's submissions and its output this way)")
        ->group("");
    app.add_flag("--watch", watch,
                 "After grading, wait until you save an editable file or answers.toml of these labs, then grade "
                 "again (Ctrl-C stops)");
    app.add_option("--watch-rounds", watch_rounds, "For tests: stop --watch after this many rounds")->group("");
    app.add_flag("--list", list, "List the labs and exit");
    app.add_flag("--verbose,-v", verbose, "Show every check's message and the labs' own output");
    app.add_flag("--no-build", no_build, "Do not rebuild the labs first");
    app.add_flag("--no-color", no_colour, "No colours in the table");
    app.add_flag("--no-ceilings", no_ceilings,
                 "Do not measure the GPU's ceilings (answers that need them are SKIPPED; performance checks are not "
                 "compared with the start of the run)");
    app.add_option("--registry", registry_path, "Lab registry written by the build")->capture_default_str();
    app.add_option("--expect", expect, "For tests: exit 0 only if every graded check is full (full) or scores 0 "
                                       "without errors (zero); 77 when nothing could be graded")
        ->check(CLI::IsMember({"full", "zero"}));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? kExitPassed : kExitUsage;
    }

    Registry reg;
    std::vector<LabEntry> labs;
    if (!load_labs(registry_path, selectors, reg, labs)) return kExitUsage;
    if (list) {
        for (const LabEntry& l : reg.labs) {
            std::cout << l.id << "  " << l.name << "  — " << l.title << "\n";
            for (const std::string& f : l.student_files) std::cout << "      edit: " << f << "\n";
            if (!l.answers_student.empty()) {
                std::string answers = l.answers_student;
                if (!reg.source_dir.empty() && answers.rfind(reg.source_dir + "/", 0) == 0) answers.erase(0, reg.source_dir.size() + 1);
                std::cout << "      answer: " << answers << "\n";
            }
        }
        return kExitPassed;
    }
    if (seed == 0) seed = fresh_seed();
    if (!submission.empty()) {  // a submission that cannot be staged is a usage error: say so before measuring
        const StagedSubmission check = stage_submission(submission, reg, labs);
        if (!check.error.empty()) {
            std::cerr << "grader: " << check.error << "\n";
            return kExitUsage;
        }
    }

    GradeOptions opts;
    opts.implementation = solution ? Implementation::solution
                          : !submission.empty() ? Implementation::submission
                                                : Implementation::student;
    opts.answers = only != "code";
    opts.code = only != "answers";
    if (only != "all" && only != "answers" && only != "code") opts.only_checks = only;
    opts.build = !no_build;
    opts.timeout_s = timeout;
    opts.verbose = verbose;
    opts.seed = seed;
    opts.retry_invalid = retry_invalid;
    opts.hidden_paths = hide;
    if (!submission.empty()) opts.hidden_paths.push_back(submission);  // its other files are not the graded code's
    const ClassConfig config = read_class_config(reg.source_dir);
    if (!config.error.empty()) {
        std::cerr << "grader: " << config.error << "\n";
        return kExitUsage;
    }
    // The reference answers are the stated cases' answers: a student id never applies to them.
    opts.student = solution ? "" : student.empty() ? config.student : student;
    opts.course_seed = course_seed.value_or(config.course_seed);

    // The ceilings are measured once, before the first round; each round grades the labs anew.
    Ceilings c;
    if (!no_ceilings) c = measure(reg, verbose);
    else c.reason = "ceilings not measured (--no-ceilings)";
    opts.ceilings_file = c.file;

    // One round: stage the submission (again, when watching), grade the labs, print and write the reports.
    const auto grade_round = [&]() -> int {
        StagedSubmission staged;
        if (!submission.empty()) {
            staged = stage_submission(submission, reg, labs);
            if (!staged.error.empty()) {
                std::cerr << "grader: " << staged.error << "\n";
                return kExitUsage;
            }
        }
        RunReport report;
        report.implementation = solution ? "solution" : !submission.empty() ? "submission" : "student";
        if (!submission.empty()) report.submission = staged;
        if (!opts.student.empty()) report.student = {{"id", opts.student}, {"course_seed", opts.course_seed}};
        report.seed = seed;
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

        // `--json -` writes the JSON to stdout; the table then goes to stderr, so that stdout is JSON alone.
        const bool json_stdout = json_file == "-";
        std::ostream& table = json_stdout ? std::cerr : std::cout;
        const bool colour = !no_colour && isatty(json_stdout ? 2 : 1) && std::getenv("NO_COLOR") == nullptr;
        print_report(table, report, colour, verbose);
        if (!opts.only_checks.empty()) {
            std::size_t graded = 0;
            for (const LabResult& l : report.labs) graded += l.checks.size();
            if (graded == 0) {
                std::cerr << "grader: no check matches '" << opts.only_checks
                          << "' (the first column of the table shows each check's id)\n";
                return kExitUsage;
            }
        }
        if (json_stdout) {
            std::cout << to_json(report).dump(2) << "\n";
        } else if (!json_file.empty()) {
            std::ofstream f(json_file);
            f << to_json(report).dump(2) << "\n";
            if (!f) throw std::runtime_error("cannot write " + json_file);
        }
        if (!junit_file.empty()) {
            std::ofstream f(junit_file);
            f << to_junit(report);
            if (!f) throw std::runtime_error("cannot write " + junit_file);
        }
        if (!csv_file.empty()) {
            std::ofstream f(csv_file);
            f << to_csv(report);
            if (!f) throw std::runtime_error("cannot write " + csv_file);
        }
        if (!expect.empty()) return expect_outcome(report, expect);
        return report.all_that_ran_passed() ? kExitPassed : kExitFailed;
    };
    // `--watch`: after each round, wait until an editable file or answers.toml of the graded labs changes.
    const std::vector<std::filesystem::path> watched = watched_files(reg, labs, submission);
    for (int round = 1;; ++round) {
        const int rc = grade_round();
        if (!watch || (watch_rounds > 0 && round >= watch_rounds)) {
            if (!c.file.empty()) std::remove(c.file.c_str());
            return rc;
        }
        std::cerr << "\nwatching " << watched.size() << " file(s) of lab" << (labs.size() > 1 ? "s" : "");
        for (const LabEntry& l : labs) std::cerr << " " << l.id;
        std::cerr << ": save one to regrade (Ctrl-C stops)\n";
        wait_for_change(watched);
    }
}

}  // namespace

int main(int argc, char** argv) {
    gpulab::grader::stop_children_on_signals();
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return kExitGraderError;
    } catch (...) {
        std::cerr << "grader: unexpected error\n";
        return kExitGraderError;
    }
}
