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

#include "grader/lab.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/submission.hpp"


namespace gpulab::grader {
namespace fs = std::filesystem;
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitGraderError = 3;
constexpr int kExitStopped = 130;

// The archive names stage_submission() reads, longest first so that ".tar.gz" wins over ".gz".
constexpr const char* kArchiveExtensions[] = {".tar.gz", ".tar.xz", ".tar.bz2", ".tgz", ".tar", ".zip"};

// The order flags are listed in, and the one place their names are spelled.
constexpr const char* kFlagOrder[] = {"TAMPERED", "POLICY", "COMPILE_ERROR", "HUNG", "SUSPICIOUS", "ANSWERS_SYNTAX",
                                      "UNSTABLE", "SANDBOX", "ERROR"};

bool starts_with(const std::string& s, const std::string& head) { return s.rfind(head, 0) == 0; }

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A failure's first line and, when the lines below it give details (the compiler's first error, the
// policy's first violation), the first of those: "did not compile: vector_add.cu:3:10: fatal error: ...".
std::string with_first_detail(const std::string& s) {
    const std::size_t end = s.find('\n');
    if (end == std::string::npos) return s;
    std::string detail = first_line(s.substr(end + 1));
    detail.erase(0, detail.find_first_not_of(" \t"));
    std::string head = s.substr(0, end);
    while (!head.empty() && (head.back() == ':' || head.back() == ' ')) head.pop_back();
    return detail.empty() ? head : head + ": " + detail;
}

std::string archive_extension(const std::string& name) {
    for (const char* ext : kArchiveExtensions)
        if (ends_with(name, ext) && name.size() > std::strlen(ext)) return ext;
    return "";
}

// Writes @p text to @p path so that a reader (or a resumed batch) sees the old file or the new one, never
// half of one: a temporary file beside it, then a rename.
void write_atomically(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.flush();
        if (!f) throw std::runtime_error("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
}

std::optional<nlohmann::json> read_json(const fs::path& path) {
    std::ifstream f(path);
    if (!f) return std::nullopt;
    try {
        return nlohmann::json::parse(f);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string format_duration(double seconds) {
    const long s = std::lround(std::max(0.0, seconds));
    char buf[32];
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
    else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%lds", s);
    return buf;
}

// A frozen file of the course whose edit a student could hope would change a grade: the labs' sources,
// checks and CMake, the grader, the common code, the data sets and the build files (not handouts or
// figures, nor class.toml, where the student writes their id).
bool grading_file(const std::string& rel) {
    if (ends_with(rel, ".md") || ends_with(rel, ".svg") || ends_with(rel, ".png")) return false;
    for (const char* dir : {"labs/", "grader/", "common/", "datasets/", "solutions/"})
        if (starts_with(rel, dir)) return true;
    return rel == "CMakeLists.txt" || rel == "CMakePresets.json";
}

// ----- the child grader ---------------------------------------------------------------------------------

// Set by SIGINT/SIGTERM: the workers stop their graders and record nothing more.
std::atomic<bool> g_stop{false};

void on_stop_signal(int sig) {
    if (g_stop.exchange(true)) {  // a second Ctrl-C: go now (the graders get their parent-death signal)
        std::signal(sig, SIG_DFL);
        raise(sig);
    }
}

struct ChildRun {
    int exit_code = -1;        // when it exited
    int signal = 0;            // the signal that ended it
    bool timed_out = false;    // stopped at the time limit
    bool stopped = false;      // stopped because the batch is stopping
    std::string spawn_error;   // it could not be started
    double seconds = 0;
};

// Runs a grader in its own process group, its output to @p log_path, with CUDA_VISIBLE_DEVICES=@p gpu when
// @p gpu is not empty. At the time limit, or when the batch stops, it gets SIGTERM (it stops its own lab
// processes: stop_children_on_signals) and SIGKILL 10 s later. It gets SIGTERM too if this thread dies.
ChildRun run_grader(const std::vector<std::string>& argv, const std::string& gpu, const fs::path& log_path,
                    double timeout_s) {
    ChildRun r;
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) {
        r.spawn_error = "cannot open " + log_path.string() + ": " + std::strerror(errno);
        return r;
    }
    SpawnSpec spec;
    spec.argv = argv;
    spec.output_fd = log;
    spec.death_signal = SIGTERM;  // (it stops its own lab processes on SIGTERM: stop_children_on_signals)
    if (!gpu.empty()) spec.env["CUDA_VISIBLE_DEVICES"] = gpu;
    const auto start = std::chrono::steady_clock::now();
    const Spawned child = spawn_process(spec);
    close(log);
    r.spawn_error = child.error;
    if (child.pid < 0) return r;
    const Exited e = wait_process(child.pid, deadline_in(timeout_s), std::chrono::seconds(10), [] { return g_stop.load(); });
    r.exit_code = e.exit_code;
    r.signal = e.signal;
    r.timed_out = e.timed_out;
    r.stopped = e.stopped;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

// The last line the grader wrote that says what went wrong ("grader: ..."), else its last lines.
std::string grader_complaint(const fs::path& log_path) {
    std::ifstream f(log_path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(f, line);)
        if (!line.empty()) lines.push_back(line);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (starts_with(*it, "grader: ")) return it->substr(8);
    std::string tail;
    for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
        tail += (tail.empty() ? "" : " | ") + lines[i];
    return tail.empty() ? "no output" : tail;
}

// ----- progress on the terminal -------------------------------------------------------------------------

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
        if (done_ < total_) line += "; " + eta_locked();
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

// ----- GPUs ---------------------------------------------------------------------------------------------

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) out.push_back(item);
    }
    return out;
}

// The GPUs this process may use, as CUDA_VISIBLE_DEVICES values: the ones it already names (a scheduler's
// allocation), else every GPU nvidia-smi lists; none without a driver.
std::vector<std::string> visible_gpus() {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v != nullptr) {
        std::vector<std::string> gpus = split_commas(v);
        if (!gpus.empty() && gpus.front() == "-1") gpus.clear();
        return gpus;
    }
    const ChildOutcome o = run_child({"nvidia-smi", "--query-gpu=index", "--format=csv,noheader"}, 30);
    if (o.spawn_failed || o.timed_out || o.exit_code != 0) return {};
    std::vector<std::string> gpus;
    for (const std::string& line : split_lines(o.output))
        if (line.find_first_not_of("0123456789 ") == std::string::npos) gpus.push_back(split_commas(line).front());
    return gpus;
}

// @p text with each build slot's number ("batch-slots/3/", in a quoted compiler message) read "batch-slots/K/":
// which worker graded a submission changes nothing in its gradebook row but the worker itself.
std::string without_slot(std::string text) {
    const std::string head = "batch-slots/";
    for (std::size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
        const std::size_t digits = at + head.size();
        std::size_t end = digits;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        if (end > digits && end < text.size() && text[end] == '/') text.replace(digits, end - digits, "K");
    }
    return text;
}

// ----- records ------------------------------------------------------------------------------------------

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

// The per-student folder's files, relative to the output folder.
struct StudentFiles {
    fs::path dir;
    std::string rel;
    fs::path report() const { return dir / "report.json"; }
    fs::path junit() const { return dir / "report.xml"; }
    fs::path log() const { return dir / "grader.log"; }
    fs::path record() const { return dir / "record.json"; }
};

StudentFiles files_of(const fs::path& out, const std::string& student) {
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
    const StudentFiles f = files_of(out, e.student);
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
    const StudentFiles f = files_of(out, e.student);
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
    const auto report = run.spawn_error.empty() && !run.timed_out && (run.exit_code == 0 || run.exit_code == 1)
                            ? read_json(partial_json)
                            : std::nullopt;
    if (report) {
        r.outcome = "graded";
        r.report = *report;
        // The hash of what was graded (the files may have changed since they were looked at).
        if (r.report.contains("submission"))
            r.content_hash = content_hash(r.report["submission"].value("used", nlohmann::json::array()),
                                          r.report["submission"].value("missing", nlohmann::json::array()));
        fs::rename(partial_json, f.report());
        r.report_file = f.rel + "/report.json";
        if (fs::exists(partial_xml)) {
            fs::rename(partial_xml, f.junit());
            r.junit_file = f.rel + "/report.xml";
        }
    } else {
        r.outcome = run.timed_out ? "hung" : "error";
        r.error = run.timed_out ? "not graded within " + format_duration(o.timeout_s) + " (--timeout): stopped"
                  : !run.spawn_error.empty() ? run.spawn_error
                  : run.signal != 0          ? "the grader crashed: " + describe_signal(run.signal)
                                             : "the grader exited with code " + std::to_string(run.exit_code) + ": " +
                                                   grader_complaint(f.log());
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

std::vector<Flag> flags_of(const BatchResult& r) {
    std::vector<Flag> flags;
    if (r.outcome == "graded") flags = report_flags(r.report);
    else flags.push_back({r.outcome == "hung" ? "HUNG" : "ERROR", "", r.error});
    return flags;
}

// ----- calibration --------------------------------------------------------------------------------------

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
    return buf;
}

// @p s with every character but letters, digits, '.', '_' and '-' made '_': a folder's name.
std::string safe_name(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    return s;
}

// The GPU of a report's fingerprint, as a gradebook row has it: {name, uuid, driver_version} (null without
// one), and the same in one string ("none" without one).
std::pair<nlohmann::json, std::string> gpu_of(const nlohmann::json& report) {
    const nlohmann::json fp = report.is_object() ? report.value("fingerprint", nlohmann::json()) : nlohmann::json();
    if (!fp.is_object() || !fp.contains("device")) return {nlohmann::json(), "none"};
    const nlohmann::json& d = fp["device"];
    return {{{"name", d.value("name", "")}, {"uuid", d.value("uuid", "")}, {"driver_version", fp.value("driver_version", "")}},
            d.value("name", "") + " " + d.value("uuid", "") + " driver " + fp.value("driver_version", "")};
}

// Where the calibration of GPU @p gpu on this host is kept: OUT/calibration/HOST-gpu-G (HOST-no-gpu without
// one). One per host and GPU, so that a batch resumed on another node (a requeued shard) keeps the first
// node's calibration beside its own.
struct CalibrationFiles {
    fs::path dir;
    std::string rel;
    fs::path report() const { return dir / "report.json"; }
    fs::path log() const { return dir / "grader.log"; }
    fs::path record() const { return dir / "record.json"; }
};

CalibrationFiles calibration_files(const fs::path& out, const std::string& host, const std::string& gpu) {
    const std::string name = safe_name(host) + (gpu.empty() ? "-no-gpu" : "-gpu-" + safe_name(gpu));
    return {out / "calibration" / name, "calibration/" + name};
}

// What the calibrations run: the code of the labs (their performance checks and the correctness checks
// those require), or the checks --only names.
std::string calibration_only(const std::string& only) {
    return only == "all" || only == "answers" || only == "code" ? "code" : only;
}

// Grades the reference solutions on worker @p worker's GPU (a child `grader --solution`, as a submission is
// graded) and records the result in OUT/calibration/HOST-gpu-G/. Returns the gradebook's calibration entry;
// nothing when the batch was stopped meanwhile.
std::optional<nlohmann::json> calibrate(const BatchOptions& o, std::uint64_t seed, const std::vector<LabEntry>& labs,
                                        const fs::path& out, const fs::path& registry, int worker, const std::string& gpu,
                                        const std::string& host, const nlohmann::json& settings) {
    const CalibrationFiles f = calibration_files(out, host, gpu);
    fs::create_directories(f.dir);
    const fs::path partial = f.dir / "report.json.partial";
    std::error_code ec;
    fs::remove(partial, ec);
    std::vector<std::string> argv = {o.grader_exe, "--registry", registry.string(), "--solution", "--seed", std::to_string(seed),
                                     "--json", partial.string(), "--no-color", "--timeout", std::to_string(o.lab_timeout_s),
                                     "--only", calibration_only(o.only)};
    if (o.retry_invalid > 0) argv.insert(argv.end(), {"--retry-invalid", std::to_string(o.retry_invalid)});
    if (o.no_ceilings) argv.push_back("--no-ceilings");
    for (const LabEntry& l : labs) argv.push_back(l.id);
    const ChildRun run = run_grader(argv, gpu, f.log(), o.timeout_s);
    if (run.stopped) {
        fs::remove(partial, ec);
        return std::nullopt;
    }
    const auto report = run.spawn_error.empty() && !run.timed_out && (run.exit_code == 0 || run.exit_code == 1)
                            ? read_json(partial)
                            : std::nullopt;
    nlohmann::json entry = {{"host", host}, {"worker", worker}, {"cuda_visible_devices", gpu},
                            {"shard", {{"index", o.shard_index}, {"count", o.shard_count}}}, {"calibrated_at", utc_now_iso8601()},
                            {"seconds", run.seconds}, {"log", f.rel + "/grader.log"}};
    if (report) {
        fs::rename(partial, f.report());
        const auto [g, fingerprint] = gpu_of(*report);
        entry.update({{"outcome", "graded"}, {"error", ""}, {"gpu", g}, {"gpu_fingerprint", fingerprint},
                      {"no_gpu_reason", report->value("no_gpu_reason", "")}, {"checks", calibration_checks(*report)},
                      {"report", f.rel + "/report.json"}});
    } else {
        entry.update({{"outcome", run.timed_out ? "hung" : "error"},
                      {"error", run.timed_out ? "not graded within " + format_duration(o.timeout_s) + " (--timeout): stopped"
                                : !run.spawn_error.empty() ? run.spawn_error
                                : run.signal != 0          ? "the grader crashed: " + describe_signal(run.signal)
                                                           : "the grader exited with code " + std::to_string(run.exit_code) +
                                                                 ": " + grader_complaint(f.log())},
                      {"gpu", nullptr}, {"gpu_fingerprint", "none"}, {"no_gpu_reason", ""}, {"checks", nlohmann::json::array()},
                      {"report", nullptr}});
        fs::remove(partial, ec);
        fs::remove(f.report(), ec);
    }
    write_atomically(f.record(), nlohmann::json{{"settings", settings}, {"entry", entry}}.dump(2) + "\n");
    return entry;
}

// The calibration of GPU @p gpu on this host recorded under @p settings (--resume does not calibrate it
// again); only one that graded the references counts.
std::optional<nlohmann::json> recorded_calibration(const fs::path& out, const std::string& host, const std::string& gpu,
                                                   const nlohmann::json& settings) {
    const CalibrationFiles f = calibration_files(out, host, gpu);
    const auto record = read_json(f.record());
    if (!record || record->value("settings", nlohmann::json()) != settings || !record->contains("entry")) return std::nullopt;
    const nlohmann::json& entry = (*record)["entry"];
    if (entry.value("outcome", "") != "graded" || !fs::exists(f.report())) return std::nullopt;
    return entry;
}

// Every calibration recorded in OUT/calibration under @p settings, by host and GPU: the gradebook's.
nlohmann::json recorded_calibrations(const fs::path& out, const nlohmann::json& settings) {
    std::vector<nlohmann::json> entries;
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(out / "calibration", ec)) {
        const auto record = read_json(d.path() / "record.json");
        if (record && record->value("settings", nlohmann::json()) == settings && record->contains("entry"))
            entries.push_back((*record)["entry"]);
    }
    std::sort(entries.begin(), entries.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return std::make_tuple(a.value("host", ""), a.value("cuda_visible_devices", ""), a.value("worker", 0)) <
               std::make_tuple(b.value("host", ""), b.value("cuda_visible_devices", ""), b.value("worker", 0));
    });
    return entries;
}

// One line of a calibration for the terminal: "calibration on GPU 0 (host): the references' 3 performance
// checks: 3 pass", and the checks' ratios.
std::string calibration_line(const nlohmann::json& entry, bool recorded) {
    const std::string gpu = entry.value("cuda_visible_devices", "");
    std::string line = "calibration " + (gpu.empty() ? std::string("without a GPU") : "on GPU " + gpu) + " (" +
                       entry.value("host", "") + (recorded ? ", as recorded: --resume" : "") + "): ";
    if (entry.value("outcome", "") != "graded") return line + "no report: " + entry.value("error", "");
    std::map<std::string, int> statuses;
    std::string ratios;
    for (const nlohmann::json& c : entry["checks"]) {
        ++statuses[c.value("status", "")];
        if (c["ratio"].is_number()) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.3g", c["ratio"].get<double>());
            ratios += (ratios.empty() ? "" : ", ") + c.value("lab", "") + " " + c.value("id", "") + " " + buf;
        }
    }
    line += "the references' " + std::to_string(entry["checks"].size()) + " performance check(s):";
    for (const auto& [status, n] : statuses) line += " " + std::to_string(n) + " " + status;
    if (!ratios.empty()) line += "; ratios " + ratios;
    return line;
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

std::vector<Flag> report_flags(const nlohmann::json& report) {
    std::vector<Flag> flags;
    const auto add = [&](const char* name, const std::string& lab, const std::string& why) {
        for (const Flag& f : flags)
            if (f.name == name && f.lab == lab) return;  // one per lab and flag: the first reason
        flags.push_back({name, lab, without_slot(why)});
    };
    for (const nlohmann::json& lab : report.value("labs", nlohmann::json::array())) {
        const std::string id = lab.value("id", "");
        for (const nlohmann::json& f : lab.value("failures", nlohmann::json::array())) {
            // A part's failure reads "code: <why>" or "answers: <why>", as grade_lab writes it.
            const std::string text = f.get<std::string>();
            const std::string why = text.substr(text.find(": ") == std::string::npos ? 0 : text.find(": ") + 2);
            if (starts_with(why, "TAMPERED")) add("TAMPERED", id, first_line(why));
            if (starts_with(text, "code: code policy:")) add("POLICY", id, with_first_detail(why));
            if (starts_with(text, "code: ") && (contains(first_line(why), " did not compile") ||
                                                contains(first_line(why), " compiled but did not link")))
                add("COMPILE_ERROR", id, with_first_detail(why));
            if (starts_with(why, "hung:")) add("HUNG", id, first_line(why));
        }
        std::string unstable;  // every check of the lab with a fairness note, with its notes
        for (const nlohmann::json& c : lab.value("checks", nlohmann::json::array())) {
            const std::string status = c.value("status", "");
            if (status == "tampered") add("TAMPERED", id, c.value("id", "") + ": " + first_line(c.value("message", "")));
            if (status == "suspicious") add("SUSPICIOUS", id, c.value("id", "") + ": " + first_line(c.value("message", "")));
            std::string notes;
            for (const nlohmann::json& n : c.value("fairness", nlohmann::json::array()))
                if (n.is_object()) notes += (notes.empty() ? "" : "; ") + n.value("note", "");
            if (!notes.empty()) unstable += (unstable.empty() ? "" : " | ") + c.value("id", "") + ": " + notes;
        }
        if (!unstable.empty()) add("UNSTABLE", id, unstable);
        // The graded code ran in a weaker sandbox than the grader's (the kernel lacked Landlock or seccomp).
        if (lab.contains("sandbox") && lab["sandbox"].is_object() && lab["sandbox"].value("level", "") != "seccomp+landlock") {
            std::string notes;
            for (const nlohmann::json& n : lab["sandbox"].value("notes", nlohmann::json::array()))
                notes += (notes.empty() ? "" : "; ") + n.get<std::string>();
            add("SANDBOX", id, "sandbox: " + lab["sandbox"].value("level", "") + (notes.empty() ? "" : " (" + notes + ")"));
        }
        for (const nlohmann::json& w : lab.value("warnings", nlohmann::json::array()))
            if (starts_with(w.get<std::string>(), "answers file does not parse")) add("ANSWERS_SYNTAX", id, w.get<std::string>());
    }
    if (report.contains("submission") && report["submission"].is_object()) {
        std::string edited;
        for (const nlohmann::json& f : report["submission"].value("ignored", nlohmann::json::array()))
            if (grading_file(f.get<std::string>())) edited += (edited.empty() ? "" : ", ") + f.get<std::string>();
        if (!edited.empty())
            add("TAMPERED", "", "frozen files of the course edited (not used: graded on the course's own): " + edited);
    }
    std::stable_sort(flags.begin(), flags.end(), [](const Flag& a, const Flag& b) {
        const auto rank = [](const std::string& n) {
            return std::find_if(std::begin(kFlagOrder), std::end(kFlagOrder), [&](const char* o) { return n == o; }) - std::begin(kFlagOrder);
        };
        return rank(a.name) < rank(b.name);
    });
    return flags;
}

nlohmann::json gradebook_json(const GradebookInfo& info, const std::vector<BatchResult>& results) {
    nlohmann::json labs = nlohmann::json::array();
    // Each lab's maximum, from the reports (the same for every student whose lab ran to its plan; the
    // largest, should a lab process have failed before saying its plan).
    std::map<std::string, double> lab_max;
    for (const BatchResult& r : results)
        if (r.outcome == "graded")
            for (const nlohmann::json& l : r.report.value("labs", nlohmann::json::array())) {
                double& m = lab_max[l.value("id", "")];
                m = std::max(m, l.value("max_points", 0.0));
            }
    for (const LabEntry& l : info.labs) {
        const auto it = lab_max.find(l.id);
        labs.push_back({{"id", l.id}, {"name", l.name}, {"title", l.title},
                        {"max_points", it == lab_max.end() ? nlohmann::json() : nlohmann::json(it->second)}});
    }
    nlohmann::json students = nlohmann::json::array();
    for (const BatchResult& r : results) {
        nlohmann::json row_labs = nlohmann::json::object();
        double points = 0, max_points = 0, pending = 0;
        for (const LabEntry& l : info.labs) {
            nlohmann::json cell = {{"points", 0.0}, {"max_points", lab_max.count(l.id) ? nlohmann::json(lab_max[l.id]) : nlohmann::json()},
                                   {"pending_points", 0.0}};
            for (const nlohmann::json& rl : r.report.is_object() ? r.report.value("labs", nlohmann::json::array()) : nlohmann::json::array())
                if (rl.value("id", "") == l.id)
                    cell = {{"points", rl.value("points", 0.0)}, {"max_points", rl.value("max_points", 0.0)},
                            {"pending_points", rl.value("pending_points", 0.0)}};
            points += cell["points"].get<double>();
            pending += cell["pending_points"].get<double>();
            if (cell["max_points"].is_number()) max_points += cell["max_points"].get<double>();
            row_labs[l.id] = cell;
        }
        nlohmann::json flags = nlohmann::json::array(), details = nlohmann::json::array();
        for (const Flag& f : flags_of(r)) {
            if (std::find(flags.begin(), flags.end(), f.name) == flags.end()) flags.push_back(f.name);
            details.push_back({{"flag", f.name}, {"lab", f.lab}, {"why", f.why}});
        }
        const nlohmann::json fp = r.report.is_object() ? r.report.value("fingerprint", nlohmann::json()) : nlohmann::json();
        std::string fingerprint = "none";
        nlohmann::json gpu;
        if (fp.is_object() && fp.contains("device")) {
            const nlohmann::json& d = fp["device"];
            gpu = {{"name", d.value("name", "")}, {"uuid", d.value("uuid", "")}, {"driver_version", fp.value("driver_version", "")}};
            fingerprint = d.value("name", "") + " " + d.value("uuid", "") + " driver " + fp.value("driver_version", "");
        }
        students.push_back({{"student", r.entry.student},
                            {"submission", r.entry.path},
                            {"outcome", r.outcome},
                            {"error", r.error},
                            {"content_hash", r.content_hash},
                            {"labs", row_labs},
                            {"total_points", points},
                            {"max_points", max_points},
                            {"pending_points", pending},
                            {"flags", flags},
                            {"flag_details", details},
                            {"gpu", gpu},
                            {"gpu_fingerprint", fingerprint},
                            {"no_gpu_reason", r.report.is_object() ? r.report.value("no_gpu_reason", "") : ""},
                            {"seconds", r.seconds},
                            {"worker", r.worker},
                            {"cuda_visible_devices", r.gpu},
                            {"report", r.report_file.empty() ? nlohmann::json() : nlohmann::json(r.report_file)},
                            {"junit", r.junit_file.empty() ? nlohmann::json() : nlohmann::json(r.junit_file)},
                            {"log", r.log_file}});
    }
    return {{"schema_version", kGradebookSchemaVersion},
            {"grader_version", grader_version()},
            {"created_at", utc_now_iso8601()},
            {"seed", info.seed},
            {"course_seed", info.course_seed},
            {"only", info.only},
            {"labs", labs},
            {"students", students},
            {"calibration", info.calibration.is_array() ? info.calibration : nlohmann::json::array()}};
}

nlohmann::json calibration_checks(const nlohmann::json& report) {
    nlohmann::json checks = nlohmann::json::array();
    for (const nlohmann::json& lab : report.value("labs", nlohmann::json::array()))
        for (const nlohmann::json& c : lab.value("checks", nlohmann::json::array())) {
            if (c.value("kind", "") != "performance") continue;
            const nlohmann::json details = c.value("details", nlohmann::json::object());
            const auto number = [&](const char* key) {
                return details.is_object() && details.contains(key) && details[key].is_number() ? details[key] : nlohmann::json();
            };
            checks.push_back({{"lab", lab.value("id", "")}, {"id", c.value("id", "")}, {"title", c.value("title", "")},
                              {"status", c.value("status", "")}, {"ratio", number("ratio")}, {"measured", c.value("measured", "")},
                              {"points", c.value("points", 0.0)}, {"max_points", c.value("max_points", 0.0)},
                              {"pass_bar", number("pass_bar")}, {"full_bar", number("full_bar")},
                              {"fairness", c.value("fairness", nlohmann::json::array())}});
        }
    return checks;
}

std::string calibration_csv(const nlohmann::json& g) {
    std::ostringstream x;
    x << "shard,host,cuda_visible_devices,gpu_fingerprint,lab,check,status,ratio,points,max_points,pass_bar,full_bar,fairness\n";
    const auto number = [](const nlohmann::json& v) {
        if (!v.is_number()) return std::string();
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
        return std::string(buf);
    };
    for (const nlohmann::json& e : g.value("calibration", nlohmann::json::array())) {
        const std::string head = std::to_string(e["shard"].value("index", 0)) + "/" + std::to_string(e["shard"].value("count", 1)) +
                                 ',' + csv_field(e.value("host", "")) + ',' + csv_field(e.value("cuda_visible_devices", "")) +
                                 ',' + csv_field(e.value("gpu_fingerprint", "")) + ',';
        if (e.value("outcome", "") != "graded") {  // no report: one row says why
            x << head << ",," << e.value("outcome", "") << ",,,,,," << csv_field(e.value("error", "")) << '\n';
            continue;
        }
        for (const nlohmann::json& c : e["checks"]) {
            std::string notes;
            for (const nlohmann::json& n : c.value("fairness", nlohmann::json::array()))
                notes += (notes.empty() ? "" : "; ") + n.value("note", "");
            x << head << c.value("lab", "") << ',' << csv_field(c.value("id", "")) << ',' << c.value("status", "") << ','
              << number(c["ratio"]) << ',' << format_points(c.value("points", 0.0)) << ','
              << format_points(c.value("max_points", 0.0)) << ',' << number(c["pass_bar"]) << ',' << number(c["full_bar"])
              << ',' << csv_field(notes) << '\n';
        }
    }
    return x.str();
}

std::vector<std::string> calibration_spread(const nlohmann::json& calibration) {
    struct Range {
        double lo = 0, hi = 0;
        int n = 0;
    };
    std::map<std::pair<std::string, std::string>, Range> ranges;  // (lab, check) -> its ratios
    for (const nlohmann::json& e : calibration)
        for (const nlohmann::json& c : e.value("checks", nlohmann::json::array())) {
            const std::string status = c.value("status", "");
            if (!c["ratio"].is_number() || (status != "pass" && status != "partial" && status != "fail")) continue;
            const double v = c["ratio"].get<double>();
            Range& r = ranges[{c.value("lab", ""), c.value("id", "")}];
            r.lo = r.n == 0 ? v : std::min(r.lo, v);
            r.hi = r.n == 0 ? v : std::max(r.hi, v);
            ++r.n;
        }
    std::vector<std::string> lines;
    for (const auto& [check, r] : ranges) {
        if (r.n < 2) continue;
        char buf[200];
        std::snprintf(buf, sizeof buf, "lab %s %s: the references' ratios %.3g to %.3g over %d calibrations (%.1f%% apart)",
                      check.first.c_str(), check.second.c_str(), r.lo, r.hi, r.n, r.lo > 0 ? 100 * (r.hi / r.lo - 1) : 0.0);
        lines.push_back(buf);
    }
    return lines;
}

std::string gradebook_csv(const nlohmann::json& g) {
    std::ostringstream x;
    x << "student";
    for (const nlohmann::json& l : g.at("labs")) x << ",lab" << l.at("id").get<std::string>() << "_points";
    x << ",total_points,max_points,pending_points,flags,seed,grader_version,gpu_fingerprint\n";
    for (const nlohmann::json& s : g.at("students")) {
        x << csv_field(s.at("student").get<std::string>());
        for (const nlohmann::json& l : g.at("labs"))
            x << ',' << format_points(s.at("labs").at(l.at("id").get<std::string>()).at("points").get<double>());
        std::string flags;
        for (const nlohmann::json& f : s.at("flags")) {
            if (!flags.empty()) flags += ' ';
            flags += f.get<std::string>();
        }
        x << ',' << format_points(s.at("total_points").get<double>()) << ',' << format_points(s.at("max_points").get<double>())
          << ',' << format_points(s.at("pending_points").get<double>()) << ',' << csv_field(flags) << ','
          << g.at("seed").get<std::uint64_t>() << ',' << csv_field(g.at("grader_version").get<std::string>()) << ','
          << csv_field(s.at("gpu_fingerprint").get<std::string>()) << '\n';
    }
    return x.str();
}

int run_batch(const BatchOptions& o) {
    // The course, its labs, and the slots its build has for workers.
    Registry reg;
    std::vector<LabEntry> labs;
    nlohmann::json registry_json;
    try {
        reg = load_registry(o.registry_path);
        labs = select_labs(reg, o.labs);
        std::ifstream f(o.registry_path);
        registry_json = nlohmann::json::parse(f);
    } catch (const std::invalid_argument& e) {
        std::cerr << "grader batch: " << e.what() << "\n";
        return kExitUsage;
    }
    std::size_t slots = std::numeric_limits<std::size_t>::max();
    for (const nlohmann::json& lab : registry_json.at("labs"))
        slots = std::min(slots, lab.contains("batch_slots") ? lab["batch_slots"].size() : std::size_t(0));

    // Workers and their GPUs.
    std::vector<std::string> gpus = o.gpus == "all" ? visible_gpus() : split_commas(o.gpus);
    if (o.gpus != "all" && gpus.empty()) {
        std::cerr << "grader batch: --gpus takes 'all' or CUDA_VISIBLE_DEVICES values, comma-separated (0,2,3)\n";
        return kExitUsage;
    }
    int workers = o.workers > 0 ? o.workers : gpus.empty() ? 2 : static_cast<int>(gpus.size());
    if (!gpus.empty() && static_cast<std::size_t>(workers) > gpus.size()) {
        std::cerr << "grader batch: " << workers << " workers for " << gpus.size() << " GPU(s): two graders on one GPU "
                  << "make each other's performance checks INVALID (docs/grading.md); use --workers " << gpus.size()
                  << " or more GPUs (--gpus)\n";
        return kExitUsage;
    }
    if (!gpus.empty()) gpus.resize(static_cast<std::size_t>(workers));
    if (o.first_slot < 0 || static_cast<std::size_t>(o.first_slot + workers) > slots) {
        std::cerr << "grader batch: this build has " << slots << " worker slot(s) per lab; for " << workers
                  << " workers from slot " << o.first_slot << " reconfigure with -DLABS_BATCH_SLOTS=" << o.first_slot + workers
                  << (slots == 0 ? " (or reconfigure: the build predates grader batch)" : "") << "\n";
        return kExitUsage;
    }

    // The output folder: one batch at a time writes there.
    const fs::path out = fs::absolute(o.out_dir);
    fs::create_directories(out / "students");
    fs::create_directories(out / "work");
    const int lock = open((out / "work" / "batch.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        std::cerr << "grader batch: another grader batch is writing to " << out.string() << "\n";
        return kExitUsage;
    }
    const fs::path batch_file = out / "batch.json";
    std::uint64_t seed = 0;
    if (o.seed) seed = *o.seed;
    else if (const auto earlier = read_json(batch_file);
             o.resume && earlier && earlier->contains("settings") && (*earlier)["settings"].contains("seed"))
        seed = (*earlier)["settings"]["seed"].get<std::uint64_t>();
    else seed = fresh_seed();
    const nlohmann::json settings = settings_of(o, seed, labs);
    nlohmann::json class_students = nlohmann::json::array();
    if (o.class_students.empty())
        for (const BatchEntry& e : o.entries) class_students.push_back(e.student);
    else
        for (const std::string& s : o.class_students) class_students.push_back(s);
    write_atomically(batch_file, nlohmann::json{{"settings", settings}, {"started_at", utc_now_iso8601()},
                                                {"submissions", o.entries.size()}, {"workers", workers}, {"gpus", gpus},
                                                {"shard", {{"index", o.shard_index}, {"count", o.shard_count},
                                                           {"class_students", class_students}}}}
                                         .dump(2) + "\n");
    std::error_code ec;
    fs::remove(out / "gradebook.csv", ec);  // written again once every submission has its result
    fs::remove(out / "gradebook.json", ec);
    fs::remove(out / "calibration.csv", ec);
    // Calibrations describe the grading that made them: a batch started afresh drops the earlier ones, a
    // resumed one keeps those made under its settings (and reuses this host's, GPU by GPU).
    if (!o.resume) fs::remove_all(out / "calibration", ec);
    const std::string host = host_name();
    for (int k = 0; k < workers; ++k)
        write_worker_registry(registry_json, o.first_slot + k, out / "work" / ("registry-" + std::to_string(k) + ".json"));

    std::cerr << "grader batch: " << o.entries.size() << " submission(s), " << labs.size() << " lab(s), " << workers
              << " worker(s) " << (gpus.empty() ? std::string("without a GPU (GPU checks are SKIPPED)") : "on GPU(s) " + [&] {
                     std::string s;
                     for (const std::string& g : gpus) s += (s.empty() ? "" : ",") + g;
                     return s;
                 }())
              << "; seed " << seed << " for the whole class (--seed " << seed << " reproduces it)"
              << (o.resume ? "; resuming" : "") << "\n";

    g_stop = false;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    struct sigaction old_int {}, old_term {};
    sigaction(SIGINT, &action, &old_int);
    sigaction(SIGTERM, &action, &old_term);

    Progress progress(o.entries.size(), gpus, workers);
    std::vector<std::optional<BatchResult>> results(o.entries.size());
    std::atomic<std::size_t> next{0};
    std::string failure;  // a grader error in a worker (a disk that is full): the batch stops
    std::mutex failure_m;
    const auto work = [&](int k) {
        const std::string gpu = gpus.empty() ? "" : gpus[static_cast<std::size_t>(k)];
        const fs::path registry = out / "work" / ("registry-" + std::to_string(k) + ".json");
        // --calibrate: first the reference solutions, on this worker's GPU (once per GPU; without one, by
        // worker 0 only, the others grading meanwhile).
        const bool first_on_gpu = gpus.empty() ? k == 0 : std::find(gpus.begin(), gpus.begin() + k, gpu) == gpus.begin() + k;
        if (o.calibrate && first_on_gpu && !g_stop) {
            try {
                if (const auto recorded = o.resume ? recorded_calibration(out, host, gpu, settings) : std::nullopt) {
                    progress.calibrated(k, calibration_line(*recorded, true));
                } else {
                    progress.started(k, "calibration (the reference solutions)");
                    if (const auto entry = calibrate(o, seed, labs, out, registry, k, gpu, host, settings))
                        progress.calibrated(k, calibration_line(*entry, false));
                }
            } catch (const std::exception& ex) {
                const std::lock_guard lock(failure_m);
                failure = std::string("calibration: ") + ex.what();
                g_stop = true;
            }
        }
        for (std::size_t i; !g_stop && (i = next++) < o.entries.size();) {
            const BatchEntry& e = o.entries[i];
            try {
                progress.started(k, e.student);
                const std::string hash = current_hash(e, labs);
                if (o.resume) {
                    if (auto r = reusable(e, out, settings, hash)) {
                        results[i] = std::move(r);
                        progress.finished(k, *results[i], true, flags_of(*results[i]));
                        continue;
                    }
                }
                results[i] = grade_one(e, o, seed, labs, out, registry, k, gpu, hash, settings);
                if (results[i]) progress.finished(k, *results[i], false, flags_of(*results[i]));
            } catch (const std::exception& ex) {
                const std::lock_guard lock(failure_m);
                failure = e.student + ": " + ex.what();
                g_stop = true;
            }
        }
    };
    std::vector<std::thread> threads;
    for (int k = 0; k < workers; ++k) threads.emplace_back(work, k);
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
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);

    const std::size_t finished = static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [](const auto& r) { return r.has_value(); }));
    std::cerr << "grader batch: " << progress.summary() << "\n";
    if (!failure.empty()) {
        std::cerr << "grader batch: stopped: " << failure << "\n";
        return kExitGraderError;
    }
    if (finished < results.size()) {
        std::cerr << "grader batch: stopped with " << finished << " of " << results.size()
                  << " submissions done; the same command with --resume grades the rest\n";
        return kExitStopped;
    }
    std::vector<BatchResult> done;
    for (auto& r : results) done.push_back(std::move(*r));
    const nlohmann::json gradebook =
        gradebook_json({seed, o.course_seed, o.only, labs, recorded_calibrations(out, settings)}, done);
    write_atomically(out / "gradebook.json", gradebook.dump(2) + "\n");
    write_atomically(out / "gradebook.csv", gradebook_csv(gradebook));
    if (!gradebook["calibration"].empty()) {
        write_atomically(out / "calibration.csv", calibration_csv(gradebook));
        for (const std::string& line : calibration_spread(gradebook["calibration"])) std::cerr << "grader batch: " << line << "\n";
    }
    std::cerr << "grader batch: gradebook " << (out / "gradebook.csv").string() << " and " << (out / "gradebook.json").string()
              << (gradebook["calibration"].empty() ? "" : ", the references' calibration in " + (out / "calibration.csv").string())
              << "; reports in " << (out / "students").string() << "/<student>/\n";
    return 0;
}

Shard parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    const auto whole = [&](const std::string& s) {
        if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("--shard takes I/N, two whole numbers with 0 <= I < N (0-based: 0/3, 1/3, 2/3), not '" + text + "'");
        return std::stoi(s);
    };
    if (slash == std::string::npos) whole("");
    const Shard shard{whole(text.substr(0, slash)), whole(text.substr(slash + 1))};
    if (shard.count < 1) throw std::invalid_argument("--shard " + text + ": a class has at least 1 shard");
    if (shard.index >= shard.count)
        throw std::invalid_argument("--shard " + text + ": shards are numbered from 0, so the last of " + std::to_string(shard.count) +
                                    " is " + std::to_string(shard.count - 1) + "/" + std::to_string(shard.count));
    return shard;
}

std::vector<BatchEntry> select_shard(const std::vector<BatchEntry>& entries, Shard shard) {
    std::vector<BatchEntry> sorted = entries, mine;
    std::stable_sort(sorted.begin(), sorted.end(), [](const BatchEntry& a, const BatchEntry& b) { return a.student < b.student; });
    for (std::size_t k = 0; k < sorted.size(); ++k)
        if (k % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index)) mine.push_back(sorted[k]);
    return mine;
}

std::string shard_out_dir(const std::string& out, Shard shard) {
    if (shard.count == 1) return out;
    return (fs::path(out) / ("shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count))).string();
}

int merge_gradebooks(const std::string& out_dir, const std::vector<std::string>& shard_dirs) {
    const auto say = [](const std::string& s) { std::cerr << "grader gradebook merge: " << s << "\n"; };
    if (shard_dirs.empty()) {
        say("no shard folder given");
        return kExitUsage;
    }
    const fs::path out = fs::absolute(out_dir).lexically_normal();
    std::vector<std::string> problems;
    std::optional<nlohmann::json> first_book, first_shard;
    std::string first_dir;
    std::map<int, std::string> shard_of;       // index -> folder
    std::map<std::string, std::vector<std::string>> rows_of;  // student -> folders with a row
    std::vector<BatchResult> results;
    std::vector<nlohmann::json> calibrations;  // every shard's, its files' paths relative to OUT
    for (const std::string& d : shard_dirs) {
        const fs::path dir = fs::absolute(d).lexically_normal();
        const auto batch = read_json(dir / "batch.json");
        const auto book = read_json(dir / "gradebook.json");
        if (!batch || !batch->contains("shard")) {
            problems.push_back(dir.string() + " is no folder a grader batch wrote (no batch.json with its shard)");
            continue;
        }
        const nlohmann::json& shard = (*batch)["shard"];
        const int index = shard.value("index", -1), count = shard.value("count", 0);
        const std::string name = dir.string() + " (shard " + std::to_string(index) + "/" + std::to_string(count) + ")";
        if (!book) {
            problems.push_back(name + " has no gradebook: its batch has not finished (run it again with --resume)");
            continue;
        }
        if (!first_book) {
            first_book = *book;
            first_shard = shard;
            first_dir = dir.string();
        } else {
            for (const char* key : {"seed", "course_seed", "only", "grader_version"})
                if ((*book)[key] != (*first_book)[key])
                    problems.push_back(name + " was graded with " + key + " " + (*book)[key].dump() + ", " + first_dir + " with " +
                                       (*first_book)[key].dump() + ": not one grading of the class");
            nlohmann::json ids = nlohmann::json::array(), first_ids = nlohmann::json::array();
            for (const nlohmann::json& l : (*book)["labs"]) ids.push_back(l["id"]);
            for (const nlohmann::json& l : (*first_book)["labs"]) first_ids.push_back(l["id"]);
            if (ids != first_ids)
                problems.push_back(name + " graded labs " + ids.dump() + ", " + first_dir + " labs " + first_ids.dump());
            if (count != first_shard->value("count", 0))
                problems.push_back(name + " is one of " + std::to_string(count) + " shards, " + first_dir + " one of " +
                                   std::to_string(first_shard->value("count", 0)));
            else if (shard["class_students"] != (*first_shard)["class_students"])
                problems.push_back(name + " was split from another class than " + first_dir + " (its submissions differ)");
        }
        for (nlohmann::json e : book->value("calibration", nlohmann::json::array())) {
            for (const char* key : {"report", "log"})
                if (e.contains(key) && e[key].is_string())
                    e[key] = (dir / e[key].get<std::string>()).lexically_relative(out).string();
            calibrations.push_back(std::move(e));
        }
        if (const auto [it, fresh] = shard_of.emplace(index, dir.string()); !fresh)
            problems.push_back("shard " + std::to_string(index) + " is given twice: " + it->second + " and " + dir.string());
        for (const nlohmann::json& row : (*book)["students"]) {
            BatchResult r;
            r.entry = {row.at("student").get<std::string>(), row.at("submission").get<std::string>()};
            rows_of[r.entry.student].push_back(dir.string());
            r.outcome = row.at("outcome").get<std::string>();
            r.error = row.at("error").get<std::string>();
            r.content_hash = row.at("content_hash").get<std::string>();
            r.seconds = row.at("seconds").get<double>();
            r.worker = row.at("worker").get<int>();
            r.gpu = row.at("cuda_visible_devices").get<std::string>();
            const auto rebased = [&](const nlohmann::json& rel) {
                return rel.is_string() ? (dir / rel.get<std::string>()).lexically_relative(out).string() : std::string();
            };
            r.report_file = rebased(row.at("report"));
            r.junit_file = rebased(row.at("junit"));
            r.log_file = rebased(row.at("log"));
            if (r.outcome == "graded") {
                const auto report = row.at("report").is_string() ? read_json(dir / row["report"].get<std::string>()) : std::nullopt;
                if (!report) {
                    problems.push_back(name + ": the report of " + r.entry.student + " cannot be read");
                    continue;
                }
                r.report = *report;
            }
            results.push_back(std::move(r));
        }
    }
    if (first_shard) {
        const int count = first_shard->value("count", 0);
        for (int i = 0; i < count; ++i)
            if (!shard_of.count(i)) problems.push_back("shard " + std::to_string(i) + "/" + std::to_string(count) + " is missing");
        for (const nlohmann::json& s : (*first_shard)["class_students"])
            if (!rows_of.count(s.get<std::string>())) problems.push_back("student " + s.get<std::string>() + " is in no shard's gradebook");
    }
    for (const auto& [student, dirs] : rows_of)
        if (dirs.size() > 1) {
            std::string where;
            for (const std::string& d : dirs) where += " " + d;
            problems.push_back("student " + student + " is in " + std::to_string(dirs.size()) + " shards:" + where);
        }
    if (!problems.empty()) {
        for (const std::string& p : problems) say(p);
        say("nothing written");
        return 1;
    }
    std::stable_sort(results.begin(), results.end(), [](const BatchResult& a, const BatchResult& b) { return a.entry.student < b.entry.student; });
    GradebookInfo info;
    info.seed = first_book->at("seed").get<std::uint64_t>();
    info.course_seed = first_book->at("course_seed").get<std::uint64_t>();
    info.only = first_book->at("only").get<std::string>();
    for (const nlohmann::json& l : first_book->at("labs")) {
        LabEntry e;
        e.id = l.at("id").get<std::string>();
        e.name = l.at("name").get<std::string>();
        e.title = l.at("title").get<std::string>();
        info.labs.push_back(e);
    }
    // Every shard's calibration (one per node and GPU that graded), by shard, then host and GPU.
    std::stable_sort(calibrations.begin(), calibrations.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return std::make_tuple(a["shard"].value("index", 0), a.value("host", ""), a.value("cuda_visible_devices", "")) <
               std::make_tuple(b["shard"].value("index", 0), b.value("host", ""), b.value("cuda_visible_devices", ""));
    });
    info.calibration = calibrations;
    nlohmann::json gradebook = gradebook_json(info, results);
    gradebook["grader_version"] = first_book->at("grader_version");  // the shards' grader, not this one
    fs::create_directories(out);
    write_atomically(out / "gradebook.json", gradebook.dump(2) + "\n");
    write_atomically(out / "gradebook.csv", gradebook_csv(gradebook));
    std::error_code ec;
    if (!calibrations.empty()) write_atomically(out / "calibration.csv", calibration_csv(gradebook));
    else fs::remove(out / "calibration.csv", ec);
    for (const std::string& line : calibration_spread(gradebook["calibration"])) say(line);
    say(std::to_string(results.size()) + " students from " + std::to_string(shard_of.size()) + " shard(s): " +
        (out / "gradebook.csv").string() + " and " + (out / "gradebook.json").string() +
        (calibrations.empty() ? "" : "; " + std::to_string(calibrations.size()) + " calibration(s) in " + (out / "calibration.csv").string()));
    return 0;
}

}  // namespace gpulab::grader
