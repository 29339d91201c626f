// `grader batch`'s shared parts: files written whole, and the child grader a worker runs (batch_detail.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "batch_detail.hpp"
#include "grader/batch.hpp"
#include "grader/process.hpp"

namespace gpulab::grader::batch_detail {

std::atomic<bool> g_stop{false};

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

namespace {

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

}  // namespace

std::optional<nlohmann::json> child_report(const ChildRun& run, const fs::path& partial) {
    if (!run.spawn_error.empty() || run.timed_out || (run.exit_code != 0 && run.exit_code != 1)) return std::nullopt;
    return read_json(partial);
}

std::string child_failure(const ChildRun& run, double timeout_s, const fs::path& log_path) {
    return run.timed_out                ? "not graded within " + format_duration(timeout_s) + " (--timeout): stopped"
           : !run.spawn_error.empty() ? run.spawn_error
           : run.signal != 0          ? "the grader crashed: " + describe_signal(run.signal)
                                      : "the grader exited with code " + std::to_string(run.exit_code) + ": " +
                                            grader_complaint(log_path);
}

}  // namespace gpulab::grader::batch_detail
