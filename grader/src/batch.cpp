// `grader batch`: a class graded by parallel workers, each submission by a child `grader --submission`.
#include "grader/batch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "grader/html_report.hpp"
#include "grader/lab.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/similarity.hpp"
#include "batch_detail.hpp"
#include "grader/submission.hpp"
#include "labs/text.hpp"


namespace gpulab::grader {

using namespace batch_detail;

namespace {

// The archive names stage_submission() reads, longest first so that ".tar.gz" wins over ".gz".
constexpr const char* kArchiveExtensions[] = {".tar.gz", ".tar.xz", ".tar.bz2", ".tgz", ".tar", ".zip"};

std::string archive_extension(const std::string& name) {
    for (const char* ext : kArchiveExtensions)
        if (ends_with(name, ext) && name.size() > std::strlen(ext)) return ext;
    return "";
}

void on_stop_signal(int sig) {
    if (g_stop.exchange(true)) {  // a second Ctrl-C: go now (the graders get their parent-death signal)
        std::signal(sig, SIG_DFL);
        raise(sig);
    }
}

class Progress {
public:
    Progress(std::size_t total, std::vector<std::string> gpus, int workers)
        : total_(total), terminal_(isatty(2) != 0), workers_(static_cast<std::size_t>(workers)), start_(clock::now()) {
        for (int k = 0; k < workers; ++k)
            workers_[static_cast<std::size_t>(k)].gpu = gpus.empty() ? "" : gpus[static_cast<std::size_t>(k)];
    }

    void started(int worker, const std::string& student) {
        const std::lock_guard lock(m_);
        workers_.at(static_cast<std::size_t>(worker)).student = student;
        workers_.at(static_cast<std::size_t>(worker)).since = clock::now();
        redraw_locked();
    }

    void finished(int worker, const BatchResult& r, bool skipped, const std::vector<Flag>& flags) {
        const std::lock_guard lock(m_);
        workers_.at(static_cast<std::size_t>(worker)).student.clear();
        ++done_;
        std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + r.entry.student + ": ";
        if (skipped) {
            ++skipped_;
            line += "unchanged since its report, not graded again";
        } else {
            seconds_.push_back(r.seconds);
            if (r.outcome == "graded") {
                const nlohmann::json& t = r.report.at("totals");
                line += format_points(t.value("points", 0.0)) + "/" + format_points(t.value("max_points", 0.0)) + " points";
                if (t.value("pending_points", 0.0) > 0) line += " (" + format_points(t.value("pending_points", 0.0)) + " pending a GPU)";
            } else {
                line += r.outcome == "hung" ? "HUNG" : "ERROR";
                ++(r.outcome == "hung" ? hung_ : errors_);
            }
            line += " in " + format_duration(r.seconds) + " (worker " + std::to_string(worker) +
                    (r.gpu.empty() ? "" : ", GPU " + r.gpu) + ")";
        }
        std::string names;
        for (const Flag& f : flags)
            if (!contains(names, f.name)) names += " " + f.name;
        if (!names.empty()) line += "; flags:" + names;
        if (done_ < total_ && !skipped) line += "; " + eta_locked();  // (an unchanged one took no time: no estimate)
        clear_locked();
        std::cerr << line << "\n";
        redraw_locked();
    }

    // A worker's calibration is done: its line, not counted among the submissions.
    void calibrated(int worker, const std::string& line) {
        const std::lock_guard lock(m_);
        workers_.at(static_cast<std::size_t>(worker)).student.clear();
        clear_locked();
        std::cerr << line << "\n";
        redraw_locked();
    }

    // Redraws the status lines every second on a terminal, until stop().
    void tick() {
        const std::lock_guard lock(m_);
        redraw_locked();
    }

    void finish() {
        const std::lock_guard lock(m_);
        clear_locked();
    }

    // After the workers: what was done, for the last lines.
    [[nodiscard]] std::string summary() const {
        return std::to_string(done_ - skipped_) + " done now, " + std::to_string(skipped_) +
               " unchanged since their results (not graded again); of those done now " + std::to_string(hung_) +
               " HUNG, " + std::to_string(errors_) + " ERROR (no report)";
    }

private:
    using clock = std::chrono::steady_clock;
    struct Worker {
        std::string gpu, student;
        clock::time_point since;
    };

    std::string eta_locked() const {
        const std::size_t left = total_ - done_;
        if (left == 0) return "done";
        if (seconds_.empty()) return "ETA after the first submission";
        double mean = 0;
        for (double s : seconds_) mean += s;
        mean /= static_cast<double>(seconds_.size());
        return "ETA " + format_duration(mean * static_cast<double>(left) / static_cast<double>(workers_.size()));
    }

    void clear_locked() {
        if (!terminal_ || drawn_ == 0) return;
        for (std::size_t i = 0; i < drawn_; ++i) std::cerr << "\033[1A\033[2K";
        std::cerr << "\r" << std::flush;
        drawn_ = 0;
    }

    void redraw_locked() {
        if (!terminal_) return;
        clear_locked();
        std::cerr << "  " << done_ << "/" << total_ << " done (" << skipped_ << " unchanged, " << hung_ << " HUNG, "
                  << errors_ << " ERROR), " << format_duration(std::chrono::duration<double>(clock::now() - start_).count())
                  << " so far, " << eta_locked() << "\n";
        for (std::size_t k = 0; k < workers_.size(); ++k) {
            const Worker& w = workers_[k];
            std::cerr << "  worker " << k << (w.gpu.empty() ? "" : " (GPU " + w.gpu + ")") << ": "
                      << (w.student.empty() ? "idle"
                                            : w.student + " for " + format_duration(std::chrono::duration<double>(clock::now() - w.since).count()))
                      << "\n";
        }
        std::cerr << std::flush;
        drawn_ = workers_.size() + 1;
    }

    std::mutex m_;
    std::size_t total_, done_ = 0, skipped_ = 0, hung_ = 0, errors_ = 0, drawn_ = 0;
    bool terminal_;
    std::vector<Worker> workers_;
    std::vector<double> seconds_;
    clock::time_point start_;
};

// The GPUs this process may use, as CUDA_VISIBLE_DEVICES values: the ones it already names (a scheduler's
// allocation), else every GPU nvidia-smi lists; none without a driver.
std::vector<std::string> visible_gpus() {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v != nullptr) {
        std::vector<std::string> gpus = split(v);
        if (!gpus.empty() && gpus.front() == "-1") gpus.clear();
        return gpus;
    }
    const ChildOutcome o = run_child({"nvidia-smi", "--query-gpu=index", "--format=csv,noheader"}, 30);
    if (o.spawn_failed || o.timed_out || o.exit_code != 0) return {};
    std::vector<std::string> gpus;
    for (const std::string& line : split_lines(o.output))
        if (line.find_first_not_of("0123456789 ") == std::string::npos) gpus.push_back(split(line).front());
    return gpus;
}

// What a result depends on besides the files: a record made under other settings is not reused.
nlohmann::json settings_of(const BatchOptions& o, std::uint64_t seed, const std::vector<LabEntry>& labs) {
    nlohmann::json ids = nlohmann::json::array();
    for (const LabEntry& l : labs) ids.push_back(l.id);
    return {{"seed", seed},       {"labs", ids},        {"only", o.only},
            {"course_seed", o.course_seed}, {"retry_invalid", o.retry_invalid}, {"ceilings", !o.no_ceilings},
            {"grader_version", grader_version()}};
}

// The content hash of what a submission would be graded on now; for one that cannot be read (a broken
// archive), the hash of the file itself, so that an unchanged broken archive is not graded again either.
std::string current_hash(const BatchEntry& e, const std::vector<LabEntry>& labs) {
    const StagedSubmission s = inspect_submission(e.path, labs);
    if (s.error.empty()) return content_hash(s.used, s.missing);
    if (!fs::is_regular_file(e.path)) return "";
    const ChildOutcome o = run_child({"sha256sum", e.path}, 300);
    return o.exit_code == 0 ? "file:" + o.output.substr(0, o.output.find(' ')) : "";
}

// The per-student folder.
RunFolder files_of(const fs::path& out, const std::string& student) {
    return {out / "students" / student, "students/" + student};
}

nlohmann::json record_json(const BatchResult& r, const nlohmann::json& settings) {
    return {{"student", r.entry.student}, {"submission", r.entry.path}, {"settings", settings},
            {"content_hash", r.content_hash}, {"outcome", r.outcome}, {"error", r.error}, {"seconds", r.seconds},
            {"worker", r.worker}, {"gpu", r.gpu}, {"finished_at", utc_now_iso8601()}};
}

// A finished result for @p e recorded under @p settings for files that hash to @p hash: reused by --resume.
std::optional<BatchResult> reusable(const BatchEntry& e, const fs::path& out, const nlohmann::json& settings,
                                    const std::string& hash) {
    const RunFolder f = files_of(out, e.student);
    const auto record = read_json(f.record());
    if (!record || hash.empty() || record->value("content_hash", "") != hash || record->value("settings", nlohmann::json()) != settings)
        return std::nullopt;
    BatchResult r;
    r.entry = e;
    r.outcome = record->value("outcome", "");
    r.error = record->value("error", "");
    r.content_hash = hash;
    r.seconds = record->value("seconds", 0.0);
    r.worker = record->value("worker", 0);
    r.gpu = record->value("gpu", "");
    r.log_file = f.rel + "/grader.log";
    if (r.outcome == "graded") {
        const auto report = read_json(f.report());
        if (!report) return std::nullopt;
        r.report = *report;
        r.report_file = f.rel + "/report.json";
        if (fs::exists(f.junit())) r.junit_file = f.rel + "/report.xml";
    } else if (r.outcome != "hung" && r.outcome != "error") {
        return std::nullopt;
    }
    return r;
}

// Grades one submission with a child grader (worker @p worker's registry and GPU) and records the result.
// Returns nothing when the batch was stopped meanwhile: nothing is recorded then.
std::optional<BatchResult> grade_one(const BatchEntry& e, const BatchOptions& o, std::uint64_t seed,
                                     const std::vector<LabEntry>& labs, const fs::path& out, const fs::path& registry,
                                     int worker, const std::string& gpu, const std::string& hash,
                                     const nlohmann::json& settings) {
    const RunFolder f = files_of(out, e.student);
    fs::create_directories(f.dir);
    const fs::path partial_json = f.dir / "report.json.partial", partial_xml = f.dir / "report.xml.partial";
    std::error_code ec;
    fs::remove(partial_json, ec);
    fs::remove(partial_xml, ec);
    std::vector<std::string> argv = {o.grader_exe, "--registry", registry.string(), "--submission", e.path,
                                     "--seed", std::to_string(seed), "--json", partial_json.string(),
                                     "--junit", partial_xml.string(), "--no-color",
                                     "--timeout", std::to_string(o.lab_timeout_s)};
    if (o.only != "all") argv.insert(argv.end(), {"--only", o.only});
    if (o.retry_invalid > 0) argv.insert(argv.end(), {"--retry-invalid", std::to_string(o.retry_invalid)});
    // The class's other submissions and the gradebook being written are not the graded code's to read.
    argv.insert(argv.end(), {"--hide", out.string(), "--hide", fs::path(e.path).parent_path().string()});
    if (o.no_ceilings) argv.push_back("--no-ceilings");
    // Per-student exercise cases only where the course has a seed for them; else everyone answers the
    // stated cases (docs/instructor.md).
    if (o.course_seed != 0)
        argv.insert(argv.end(), {"--student", e.student, "--course-seed", std::to_string(o.course_seed)});
    for (const LabEntry& l : labs) argv.push_back(l.id);

    const ChildRun run = run_grader(argv, gpu, f.log(), o.timeout_s);
    if (run.stopped) {
        fs::remove(partial_json, ec);
        fs::remove(partial_xml, ec);
        return std::nullopt;
    }
    BatchResult r;
    r.entry = e;
    r.seconds = run.seconds;
    r.worker = worker;
    r.gpu = gpu;
    r.content_hash = hash;
    r.log_file = f.rel + "/grader.log";
    const auto report = child_report(run, partial_json);
    if (report) {
        r.outcome = "graded";
        r.report = *report;
        // The hash of what was graded (the files may have changed since they were looked at).
        if (r.report.contains("submission"))
            r.content_hash = content_hash(r.report["submission"].value("used", nlohmann::json::array()),
                                          r.report["submission"].value("missing", nlohmann::json::array()));
        fs::rename(partial_json, f.report());
        r.report_file = f.rel + "/report.json";
        // The student's page beside the report (grader/html_report.hpp): what a student opens first.
        write_atomically(f.dir / "report.html", report_html(r.report, r.report_file));
        if (fs::exists(partial_xml)) {
            fs::rename(partial_xml, f.junit());
            r.junit_file = f.rel + "/report.xml";
        }
    } else {
        r.outcome = run.timed_out ? "hung" : "error";
        r.error = child_failure(run, o.timeout_s, f.log());
        for (const fs::path& p : {partial_json, partial_xml, f.report(), f.junit()}) fs::remove(p, ec);
    }
    write_atomically(f.record(), record_json(r, settings).dump(2) + "\n");
    return r;
}

// The registry worker @p k's graders read: the course's, each lab's submission members replaced by its
// slot @p k (its own staging folder and targets).
void write_worker_registry(const nlohmann::json& registry, int k, const fs::path& path) {
    nlohmann::json r = registry;
    for (nlohmann::json& lab : r.at("labs")) {
        const nlohmann::json& slot = lab.at("batch_slots").at(static_cast<std::size_t>(k));
        for (const char* key : {"runner_submission", "build_submission", "objects_submission", "submission_dir"})
            lab[key] = slot.at(key);
        lab.erase("batch_slots");
    }
    write_atomically(path, r.dump(1) + "\n");
}


}  // namespace

std::string student_id_of(const std::string& path) {
    fs::path p = fs::path(path).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    if (p.filename() == "." || p.filename() == "..") p = fs::absolute(p).lexically_normal();
    std::string name = p.filename().string();
    const std::string ext = archive_extension(name);
    if (!ext.empty() && !fs::is_directory(path)) name.erase(name.size() - ext.size());
    return name;
}

bool is_submission(const std::string& path) {
    if (fs::is_directory(path)) return fs::exists(fs::path(path) / "labs") || fs::exists(fs::path(path) / ".git");
    return !archive_extension(fs::path(path).filename().string()).empty();
}

std::vector<BatchEntry> find_submissions(const std::vector<std::string>& args, std::vector<std::string>& passed_over) {
    std::vector<BatchEntry> entries;
    const auto add = [&](const fs::path& p) { entries.push_back({student_id_of(p.string()), fs::absolute(p).lexically_normal().string()}); };
    for (const std::string& arg : args) {
        if (!fs::exists(arg)) throw std::invalid_argument("no submission or folder " + arg);
        if (is_submission(arg) || !fs::is_directory(arg)) {
            add(arg);
            continue;
        }
        std::vector<fs::path> children;
        for (const auto& d : fs::directory_iterator(arg)) children.push_back(d.path());
        std::sort(children.begin(), children.end());
        for (const fs::path& c : children) {
            const std::string name = c.filename().string();
            if (starts_with(name, ".")) continue;
            if (fs::is_directory(c) || !archive_extension(name).empty()) add(c);
            else passed_over.push_back(c.string());
        }
    }
    std::sort(entries.begin(), entries.end(), [](const BatchEntry& a, const BatchEntry& b) { return a.student < b.student; });
    for (std::size_t i = 1; i < entries.size(); ++i)
        if (entries[i].student == entries[i - 1].student)
            throw std::invalid_argument("two submissions of student '" + entries[i].student + "': " + entries[i - 1].path +
                                        " and " + entries[i].path + " (the id is the folder's or the archive's name)");
    if (entries.empty()) throw std::invalid_argument("no submissions found (folders or archives)");
    return entries;
}

namespace {

// A usage error of the batch, said on the terminal.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// The course as the batch grades it: its labs, its registry, the worker slots its build has.
struct Course {
    Registry reg;  // the course (its source tree: what similarity compares against)
    std::vector<LabEntry> labs;
    nlohmann::json registry;
    std::size_t slots = 0;
};

Course load_course(const BatchOptions& o) {
    Course c;
    try {
        c.reg = load_registry(o.registry_path);
        c.labs = select_labs(c.reg, o.labs);
        std::ifstream f(o.registry_path);
        c.registry = nlohmann::json::parse(f);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    c.slots = std::numeric_limits<std::size_t>::max();
    for (const nlohmann::json& lab : c.registry.at("labs"))
        c.slots = std::min(c.slots, lab.contains("batch_slots") ? lab["batch_slots"].size() : std::size_t(0));
    return c;
}

// The workers: how many, and the GPU each is pinned to (none without a GPU).
struct Workers {
    int count = 0;
    std::vector<std::string> gpus;
};

Workers plan_workers(const BatchOptions& o, std::size_t slots) {
    Workers w;
    w.gpus = o.gpus == "all" ? visible_gpus() : split(o.gpus);
    if (o.gpus != "all" && w.gpus.empty())
        throw UsageError("--gpus takes 'all' or CUDA_VISIBLE_DEVICES values, comma-separated (0,2,3)");
    w.count = o.workers > 0 ? o.workers : w.gpus.empty() ? 2 : static_cast<int>(w.gpus.size());
    if (!w.gpus.empty() && static_cast<std::size_t>(w.count) > w.gpus.size())
        throw UsageError(std::to_string(w.count) + " workers for " + std::to_string(w.gpus.size()) +
                         " GPU(s): two graders on one GPU make each other's performance checks INVALID "
                         "(docs/grading.md); use --workers " + std::to_string(w.gpus.size()) + " or more GPUs (--gpus)");
    if (!w.gpus.empty()) w.gpus.resize(static_cast<std::size_t>(w.count));
    if (o.first_slot < 0 || static_cast<std::size_t>(o.first_slot + w.count) > slots)
        throw UsageError("this build has " + std::to_string(slots) + " worker slot(s) per lab; for " + std::to_string(w.count) +
                         " workers from slot " + std::to_string(o.first_slot) + " reconfigure with -DLABS_BATCH_SLOTS=" +
                         std::to_string(o.first_slot + w.count) +
                         (slots == 0 ? " (or reconfigure: the build predates grader batch)" : ""));
    return w;
}

// The output folder, held by this batch alone (a lock kept open until the process ends), with the batch's
// record of its settings; the class's seed (the earlier run's when resuming).
struct Output {
    fs::path dir;
    std::uint64_t seed = 0;
    nlohmann::json settings;
};

Output open_output(const BatchOptions& o, const Course& course, const Workers& w) {
    Output out;
    out.dir = fs::absolute(o.out_dir);
    fs::create_directories(out.dir / "students");
    fs::create_directories(out.dir / "work");
    const int lock = open((out.dir / "work" / "batch.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) throw UsageError("another grader batch is writing to " + out.dir.string());
    const fs::path batch_file = out.dir / "batch.json";
    if (o.seed) out.seed = *o.seed;
    else if (const auto earlier = read_json(batch_file);
             o.resume && earlier && earlier->contains("settings") && (*earlier)["settings"].contains("seed"))
        out.seed = (*earlier)["settings"]["seed"].get<std::uint64_t>();
    else out.seed = fresh_seed();
    out.settings = settings_of(o, out.seed, course.labs);
    nlohmann::json class_students = nlohmann::json::array();
    if (o.class_students.empty())
        for (const BatchEntry& e : o.entries) class_students.push_back(e.student);
    else
        for (const std::string& s : o.class_students) class_students.push_back(s);
    write_atomically(batch_file, nlohmann::json{{"settings", out.settings}, {"started_at", utc_now_iso8601()},
                                                {"submissions", o.entries.size()}, {"workers", w.count}, {"gpus", w.gpus},
                                                {"shard", {{"index", o.shard_index}, {"count", o.shard_count},
                                                           {"class_students", class_students}}}}
                                         .dump(2) + "\n");
    std::error_code ec;
    fs::remove(out.dir / "gradebook.csv", ec);  // written again once every submission has its result
    fs::remove(out.dir / "gradebook.json", ec);
    fs::remove(out.dir / "calibration.csv", ec);
    // Calibrations describe the grading that made them: a batch started afresh drops the earlier ones, a
    // resumed one keeps those made under its settings (and reuses this host's, GPU by GPU).
    if (!o.resume) fs::remove_all(out.dir / "calibration", ec);
    for (int k = 0; k < w.count; ++k)
        write_worker_registry(course.registry, o.first_slot + k, out.dir / "work" / ("registry-" + std::to_string(k) + ".json"));
    return out;
}

// What the workers did: each submission's result (nothing where the batch stopped first), and the grader
// error that stopped it, if any.
struct Graded {
    std::vector<std::optional<BatchResult>> results;
    std::string failure;
};

// SIGINT and SIGTERM stop the batch while it is in scope: the running graders are stopped, nothing half-graded
// is recorded.
class StopOnSignals {
public:
    StopOnSignals() {
        g_stop = false;
        struct sigaction action {};
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &old_int_);
        sigaction(SIGTERM, &action, &old_term_);
    }
    ~StopOnSignals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;

private:
    struct sigaction old_int_ {}, old_term_ {};
};

// The workers, each a thread running one child grader at a time on its GPU: first (--calibrate) the solutions,
// once per GPU, then the submissions, each taken by the next free worker.
Graded grade_class(const BatchOptions& o, const Course& course, const Workers& w, const Output& out, Progress& progress) {
    Graded g;
    g.results.resize(o.entries.size());
    std::atomic<std::size_t> next{0};
    std::mutex failure_m;
    const auto fail = [&](const std::string& why) {
        const std::lock_guard lock(failure_m);
        g.failure = why;
        g_stop = true;
    };
    const std::string host = host_name();
    const auto work = [&](int k) {
        const std::string gpu = w.gpus.empty() ? "" : w.gpus[static_cast<std::size_t>(k)];
        const fs::path registry = out.dir / "work" / ("registry-" + std::to_string(k) + ".json");
        // --calibrate: first the solutions, on this worker's GPU (once per GPU; without one, by
        // worker 0 only, the others grading meanwhile).
        const bool first_on_gpu =
            w.gpus.empty() ? k == 0 : std::find(w.gpus.begin(), w.gpus.begin() + k, gpu) == w.gpus.begin() + k;
        if (o.calibrate && first_on_gpu && !g_stop) {
            try {
                if (const auto recorded = o.resume ? recorded_calibration(out.dir, host, gpu, out.settings) : std::nullopt) {
                    progress.calibrated(k, calibration_line(*recorded, true));
                } else {
                    progress.started(k, "calibration (the solutions)");
                    if (const auto entry = calibrate(o, out.seed, course.labs, out.dir, registry, k, gpu, host, out.settings))
                        progress.calibrated(k, calibration_line(*entry, false));
                }
            } catch (const std::exception& ex) {
                fail(std::string("calibration: ") + ex.what());
            }
        }
        for (std::size_t i; !g_stop && (i = next++) < o.entries.size();) {
            const BatchEntry& e = o.entries[i];
            try {
                progress.started(k, e.student);
                const std::string hash = current_hash(e, course.labs);
                if (o.resume) {
                    if (auto r = reusable(e, out.dir, out.settings, hash)) {
                        g.results[i] = std::move(r);
                        progress.finished(k, *g.results[i], true, flags_of(*g.results[i]));
                        continue;
                    }
                }
                g.results[i] = grade_one(e, o, out.seed, course.labs, out.dir, registry, k, gpu, hash, out.settings);
                if (g.results[i]) progress.finished(k, *g.results[i], false, flags_of(*g.results[i]));
            } catch (const std::exception& ex) {
                fail(e.student + ": " + ex.what());
            }
        }
    };
    std::vector<std::thread> threads;
    for (int k = 0; k < w.count; ++k) threads.emplace_back(work, k);
    std::atomic<bool> all_done{false};
    std::thread ticker([&] {
        while (!all_done) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            progress.tick();
        }
    });
    for (std::thread& t : threads) t.join();
    all_done = true;
    ticker.join();
    progress.finish();
    return g;
}

// The gradebook (JSON and CSV) and, with calibrations, calibration.csv and the solutions' spread.
void write_gradebook(const BatchOptions& o, const Course& course, const Output& out, std::vector<BatchResult> done) {
    nlohmann::json gradebook =
        gradebook_json({out.seed, o.course_seed, o.only, course.labs, recorded_calibrations(out.dir, out.settings)}, done);
    // Copying noticed (grader/similarity.hpp): the whole class's files compared, after grading.
    if (o.similarity) {
        SimilarityRun sim;
        sim.flag_share = o.flag_share.value_or(kDefaultFlagShare);
        sim.flag_run = o.flag_run.value_or(kDefaultFlagRun);
        if (o.shard_count > 1) {
            sim.why_not = "a shard holds part of the class: compare the whole class with grader similarity once the shards are merged";
        } else {
            SimilarityOptions so;
            for (const BatchResult& r : done) so.entries.push_back(r.entry);
            so.registry = course.reg;
            so.labs = course.labs;
            so.out_dir = out.dir.string();
            so.flag_share = o.flag_share;
            so.flag_run = o.flag_run;
            std::cerr << "grader batch: comparing the class's code (copying noticed: grader similarity)\n";
            sim = run_similarity(so);
        }
        apply_similarity(gradebook, sim);
        report_similarity(sim, "grader batch");
    }
    write_atomically(out.dir / "gradebook.json", gradebook.dump(2) + "\n");
    write_atomically(out.dir / "gradebook.csv", gradebook_csv(gradebook));
    write_atomically(out.dir / "class.html", class_html(gradebook, out.dir.string()));
    // With a calibration, each student's page places the reference solution, as measured on their GPU, beside their code.
    if (!gradebook["calibration"].empty())
        for (const BatchResult& r : done)
            if (r.outcome == "graded" && !r.report_file.empty())
                write_atomically(out.dir / fs::path(r.report_file).parent_path() / "report.html",
                                 report_html(r.report, r.report_file, reference_ratios(gradebook, r.report)));
    if (!gradebook["calibration"].empty()) {
        write_atomically(out.dir / "calibration.csv", calibration_csv(gradebook));
        for (const std::string& line : calibration_spread(gradebook["calibration"])) std::cerr << "grader batch: " << line << "\n";
    }
    std::cerr << "grader batch: gradebook " << (out.dir / "gradebook.csv").string() << " and "
              << (out.dir / "gradebook.json").string()
              << (gradebook["calibration"].empty() ? "" : ", the solutions' calibration in " + (out.dir / "calibration.csv").string())
              << "; reports in " << (out.dir / "students").string() << "/<student>/\n";
}

}  // namespace

int run_batch(const BatchOptions& o) {
    Course course;
    Workers w;
    Output out;
    try {
        course = load_course(o);
        w = plan_workers(o, course.slots);
        out = open_output(o, course, w);
    } catch (const UsageError& e) {
        std::cerr << "grader batch: " << e.what() << "\n";
        return kExitUsage;
    }
    std::cerr << "grader batch: " << o.entries.size() << " submission(s), " << course.labs.size() << " lab(s), " << w.count
              << " worker(s) " << (w.gpus.empty() ? std::string("without a GPU (GPU checks are SKIPPED)") : "on GPU(s) " + join(w.gpus))
              << "; seed " << out.seed << " for the whole class (--seed " << out.seed << " reproduces it)"
              << (o.resume ? "; resuming" : "") << "\n";
    Progress progress(o.entries.size(), w.gpus, w.count);
    Graded g;
    {
        const StopOnSignals stop_on_signals;
        g = grade_class(o, course, w, out, progress);
    }
    const std::size_t finished = static_cast<std::size_t>(
        std::count_if(g.results.begin(), g.results.end(), [](const auto& r) { return r.has_value(); }));
    std::cerr << "grader batch: " << progress.summary() << "\n";
    if (!g.failure.empty()) {
        std::cerr << "grader batch: stopped: " << g.failure << "\n";
        return kExitGraderError;
    }
    if (finished < g.results.size()) {
        std::cerr << "grader batch: stopped with " << finished << " of " << g.results.size()
                  << " submissions done; the same command with --resume grades the rest\n";
        return kExitStopped;
    }
    std::vector<BatchResult> done;
    for (auto& r : g.results) done.push_back(std::move(*r));
    write_gradebook(o, course, out, std::move(done));
    return 0;
}

}  // namespace gpulab::grader
