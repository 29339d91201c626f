// What the parts of `grader batch` share (batch.cpp, calibration.cpp, gradebook.cpp, shards.cpp): files written
// whole, the child grader a worker runs, and the calibration a worker makes first. Internal to the grader.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab::grader {
struct BatchOptions;  // grader/batch.hpp: the parts include it
struct BatchResult;
struct Flag;
struct LabEntry;
}  // namespace gpulab::grader

namespace gpulab::grader::batch_detail {

namespace fs = std::filesystem;

inline constexpr int kExitUsage = 2;
inline constexpr int kExitGraderError = 3;
inline constexpr int kExitStopped = 130;

inline bool starts_with(const std::string& s, const std::string& head) { return s.rfind(head, 0) == 0; }
inline bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Writes @p text to @p path so that a reader (or a resumed batch) sees the old file or the new one, never
// half of one: a temporary file beside it, then a rename.
void write_atomically(const fs::path& path, const std::string& text);
// A JSON file's contents; nothing when it is missing or does not parse.
std::optional<nlohmann::json> read_json(const fs::path& path);
// "1h02m", "3m05s", "42s".
std::string format_duration(double seconds);

// The folder one child grader's run leaves its files in: a student's (OUT/students/ID) or a calibration's
// (OUT/calibration/HOST-gpu-G).
struct RunFolder {
    fs::path dir;
    std::string rel;  // relative to the output folder, as the gradebook names the files
    fs::path report() const { return dir / "report.json"; }
    fs::path junit() const { return dir / "report.xml"; }
    fs::path log() const { return dir / "grader.log"; }
    fs::path record() const { return dir / "record.json"; }
};

// Set when the batch is to stop (Ctrl-C, SIGTERM, a worker's grader error): the running graders are stopped.
extern std::atomic<bool> g_stop;

// How one child grader ended.
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
                    double timeout_s);
// The report a child grader wrote to @p partial, when it ran to its end (exit 0 or 1); else nothing.
std::optional<nlohmann::json> child_report(const ChildRun& run, const fs::path& partial);
// Why a child grader left no report: stopped at the time limit, not started, crashed, or what it said last.
std::string child_failure(const ChildRun& run, double timeout_s, const fs::path& log_path);

// A result's flags: its report's (report_flags()), or HUNG / ERROR when it has none.
std::vector<Flag> flags_of(const BatchResult& r);
// The GPU of a report's fingerprint, as a gradebook row has it: {name, uuid, driver_version} (null without
// one), and the same in one string ("none" without one).
std::pair<nlohmann::json, std::string> gpu_of(const nlohmann::json& report);

// This host's name ("localhost" when it has none).
std::string host_name();
// Grades the solutions on worker @p worker's GPU (a child `grader --solution`, as a submission is
// graded) and records the result in OUT/calibration/HOST-gpu-G/. Returns the gradebook's calibration entry;
// nothing when the batch was stopped meanwhile.
std::optional<nlohmann::json> calibrate(const BatchOptions& o, std::uint64_t seed, const std::vector<LabEntry>& labs,
                                        const fs::path& out, const fs::path& registry, int worker, const std::string& gpu,
                                        const std::string& host, const nlohmann::json& settings);
// The calibration of GPU @p gpu on this host recorded under @p settings (--resume does not calibrate it
// again); only one that graded the solutions counts.
std::optional<nlohmann::json> recorded_calibration(const fs::path& out, const std::string& host, const std::string& gpu,
                                                   const nlohmann::json& settings);
// Every calibration recorded in OUT/calibration under @p settings, by host and GPU: the gradebook's.
nlohmann::json recorded_calibrations(const fs::path& out, const nlohmann::json& settings);
// One line of a calibration for the terminal.
std::string calibration_line(const nlohmann::json& entry, bool recorded);

}  // namespace gpulab::grader::batch_detail
