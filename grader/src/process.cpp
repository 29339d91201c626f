// The grader's child processes: spawn (own process group, parent-death signal, channel key and parameters on a
// pipe), pump (output and report channel under a deadline), reap, and stop on SIGINT/SIGTERM.
#include "grader/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "grader/protocol.hpp"

namespace gpulab::grader {

namespace {

constexpr std::size_t kMaxOutput = std::size_t(1) << 20;

}  // namespace

std::string last_lines(const std::string& text, std::size_t n) {
    std::size_t pos = text.size();
    if (pos > 0 && text[pos - 1] == '\n') --pos;
    for (std::size_t k = 0; k < n && pos != std::string::npos && pos > 0; ++k) {
        pos = text.rfind('\n', pos - 1);
    }
    return pos == std::string::npos || pos == 0 ? text : text.substr(pos + 1);
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(line);
    return out;
}

std::string describe_signal(int sig) {
    static const std::map<int, std::string> names{{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},
                                                  {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"},
                                                  {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGPIPE, "SIGPIPE"},
                                                  {SIGTRAP, "SIGTRAP"}};
    const auto it = names.find(sig);
    const std::string name = it != names.end() ? it->second : "signal " + std::to_string(sig);
    const char* text = strsignal(sig);
    return name + " (" + (text ? text : "unknown") + ")";
}

namespace {

// SIGPIPE ignored in the grader: a child that exits before it reads its key (a failed exec, a program that ends
// at once) must not take the grader with it; writing to a pipe nobody reads then gives EPIPE. A child gets the
// default disposition back before exec.
void ignore_sigpipe_once() {
    static const bool ignored = [] { return std::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
    (void)ignored;
}

// argv[0] as execve wants it: a name without '/' is looked up on PATH (the child's, else ours); "" when none.
std::string resolve_program(const std::string& name, const std::map<std::string, std::string>& env) {
    if (name.find('/') != std::string::npos) return name;
    const auto it = env.find("PATH");
    const char* ours = std::getenv("PATH");
    const std::string path = it != env.end() ? it->second : ours != nullptr ? ours : "/usr/local/bin:/usr/bin:/bin";
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

// The child's environment: ours, with the spec's variables set and the key pipe's named.
std::vector<std::string> child_environment(const SpawnSpec& spec) {
    std::map<std::string, std::string> set = spec.env;
    if (spec.handover) set[kChannelKeyFdVariable] = std::to_string(kChildKeyFd);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        if (!set.contains(std::string(entry.substr(0, entry.find('='))))) env_strings.emplace_back(entry);
    }
    for (const auto& [k, v] : set) env_strings.push_back(k + "=" + v);
    return env_strings;
}

}  // namespace

ChannelKey fresh_channel_key() {
    std::random_device rd;
    ChannelKey k{};
    for (std::size_t i = 0; i < k.size(); i += 4) {
        const unsigned v = rd();
        for (std::size_t j = 0; j < 4; ++j) k[i + j] = static_cast<std::uint8_t>(v >> (8 * j));
    }
    return k;
}

std::chrono::steady_clock::time_point deadline_in(double seconds) {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

Spawned spawn_process(const SpawnSpec& spec) {
    Spawned out;
    if (spec.argv.empty()) {
        out.error = "nothing to run";
        return out;
    }
    const std::string program = resolve_program(spec.argv[0], spec.env);
    if (program.empty()) {
        out.error = "cannot run " + spec.argv[0] + ": not found on PATH";
        return out;
    }
    std::vector<std::string> env_strings = child_environment(spec);
    std::vector<char*> envp, args;
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv = spec.argv;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);

    if (spec.handover) ignore_sigpipe_once();
    int status_pipe[2] = {-1, -1}, key_pipe[2] = {-1, -1};
    const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0 || pipe2(status_pipe, O_CLOEXEC) != 0 || (spec.handover && pipe2(key_pipe, O_CLOEXEC) != 0)) {
        out.error = std::string("cannot start ") + spec.argv[0] + ": " + std::strerror(errno);
        for (const int fd : {devnull, status_pipe[0], status_pipe[1], key_pipe[0], key_pipe[1]})
            if (fd >= 0) close(fd);
        return out;
    }
    const int output = spec.output_fd >= 0 ? spec.output_fd : devnull;
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        // Only async-signal-safe calls from here on.
        signal(SIGPIPE, SIG_DFL);
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, spec.death_signal);
        if (getppid() != parent) _exit(127);  // the parent is already gone
        // Lift what the child keeps above every target number first, so that no dup2 overwrites another.
        const int output_hi = fcntl(output, F_DUPFD, 64);
        const int report_hi = spec.report_fd >= 0 ? fcntl(spec.report_fd, F_DUPFD, 64) : -1;
        const int key_hi = key_pipe[0] >= 0 ? fcntl(key_pipe[0], F_DUPFD, 64) : -1;
        dup2(devnull, 0);
        dup2(output_hi, 1);
        dup2(output_hi, 2);
        if (report_hi >= 0) dup2(report_hi, 3);
        if (key_hi >= 0) dup2(key_hi, kChildKeyFd);
        for (int fd = 3; fd < 1024; ++fd) {
            const bool kept = (fd == 3 && report_hi >= 0) || (fd == kChildKeyFd && key_hi >= 0) || fd == status_pipe[1];
            if (!kept) close(fd);
        }
        execve(program.c_str(), args.data(), envp.data());
        const int err = errno;
        (void)!write(status_pipe[1], &err, sizeof err);
        _exit(127);
    }
    close(devnull);
    close(status_pipe[1]);
    if (key_pipe[0] >= 0) close(key_pipe[0]);
    if (pid < 0) {
        out.error = std::string("fork failed: ") + std::strerror(errno);
        close(status_pipe[0]);
        if (key_pipe[1] >= 0) close(key_pipe[1]);
        return out;
    }
    setpgid(pid, pid);
    out.pid = pid;
    // The key and the run's parameters. More than a pipe holds blocks until the child reads it, which it does
    // before anything else; a child that exits first makes the write fail (EPIPE), not hang.
    if (key_pipe[1] >= 0) {
        (void)write_all(key_pipe[1], *spec.handover);  // a child gone before reading it says so itself
        close(key_pipe[1]);
    }
    int exec_errno = 0;  // the pipe closes on a successful exec; an errno arrives when exec failed
    if (read(status_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno)
        out.error = "cannot run " + spec.argv[0] + ": " + std::strerror(exec_errno);
    close(status_pipe[0]);
    return out;
}

Exited wait_process(pid_t pid, std::chrono::steady_clock::time_point deadline, std::chrono::steady_clock::duration grace,
                    const std::function<bool()>& stop) {
    Exited e;
    int status = 0;
    bool reaped = false;
    std::optional<std::chrono::steady_clock::time_point> kill_at;  // SIGTERM sent: SIGKILL then
    auto pause = std::chrono::microseconds(500);
    for (;;) {
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            reaped = true;
            break;
        }
        if (w < 0 && errno != EINTR) break;  // not ours to wait for (already reaped elsewhere)
        const auto now = std::chrono::steady_clock::now();
        if (!kill_at && (now >= deadline || (stop && stop()))) {
            (now >= deadline ? e.timed_out : e.stopped) = true;
            if (grace <= std::chrono::steady_clock::duration::zero()) {
                kill(-pid, SIGKILL);
                kill_at = now + std::chrono::hours(24);
            } else {
                kill(-pid, SIGTERM);
                kill_at = now + grace;
            }
        } else if (kill_at && now >= *kill_at) {
            kill(-pid, SIGKILL);
            kill_at = now + std::chrono::hours(24);
        }
        std::this_thread::sleep_for(pause);
        pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(50));
    }
    kill(-pid, SIGKILL);  // whatever of its process group is left
    if (reaped && WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
    if (reaped && WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    return e;
}

namespace {

// The two channels of a lab's child: our ends of its report channel (its fd 3) and of its stdout + stderr.
struct Channels {
    pid_t pid = -1;
    int report_fd = -1;
    int output_fd = -1;
};

// Starts argv with the report channel at fd 3, the channel key and parameters on the key pipe, stdout and stderr
// on one pipe. Sets out.spawn_failed (and says why in out.output) when it cannot start.
Channels spawn_with_channels(const std::vector<std::string>& argv, const ChannelKey& key, const std::string& params,
                             ChildOutcome& out) {
    Channels c;
    int report[2], output[2];
    if (pipe2(report, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0) {
        out.spawn_failed = true;
        out.output = std::string("pipe failed: ") + std::strerror(errno);
        return c;
    }
    SpawnSpec spec;
    spec.argv = argv;
    spec.output_fd = output[1];
    spec.report_fd = report[1];
    spec.handover = channel_handover(key, params);
    const Spawned child = spawn_process(spec);
    close(report[1]);
    close(output[1]);
    if (!child.error.empty()) {
        out.spawn_failed = true;
        out.output = child.error;
    }
    if (child.pid < 0) {
        close(report[0]);
        close(output[0]);
        return c;
    }
    c.pid = child.pid;
    c.report_fd = report[0];
    c.output_fd = output[0];
    return c;
}

// Reads both channels until the child closes them or the deadline passes (then out.timed_out).
// Returns the report channel's bytes; stdout/stderr go to out.output (first MiB) and out.output_tail.
std::string pump(const Channels& c, std::chrono::steady_clock::time_point deadline, bool echo, ChildOutcome& out,
                 const std::function<void(const std::string&)>& on_progress) {
    std::string report_buf;
    std::size_t shown = 0;  // how far report_buf was looked at for progress lines
    bool report_open = true, output_open = true;
    while (report_open || output_open) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            out.timed_out = true;
            break;
        }
        const int wait_ms = static_cast<int>(std::min<double>(
            200.0, std::chrono::duration<double, std::milli>(deadline - now).count() + 1));
        pollfd fds[2] = {{report_open ? c.report_fd : -1, POLLIN, 0}, {output_open ? c.output_fd : -1, POLLIN, 0}};
        const int n = poll(fds, 2, wait_ms);
        if (n < 0 && errno != EINTR) break;
        char buf[65536];
        if (report_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t k = read(c.report_fd, buf, sizeof buf);
            if (k <= 0) report_open = false;
            else report_buf.append(buf, static_cast<std::size_t>(k));
            // Progress is for the eyes only: shown as it comes, authenticated and ordered later with the rest.
            for (std::size_t end; on_progress && (end = report_buf.find('\n', shown)) != std::string::npos; shown = end + 1) {
                if (end - shown < 18 || report_buf.find("\"progress\"", shown) > end) continue;
                try {
                    const nlohmann::json m = nlohmann::json::parse(report_buf.substr(shown + 17, end - shown - 17));
                    if (m.value("type", "") == "progress") on_progress(m.value("text", ""));
                } catch (const std::exception&) {
                }
            }
        }
        if (output_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t k = read(c.output_fd, buf, sizeof buf);
            if (k <= 0) {
                output_open = false;
            } else {
                if (echo) (void)!write(2, buf, static_cast<std::size_t>(k));
                const std::size_t room = kMaxOutput > out.output.size() ? kMaxOutput - out.output.size() : 0;
                out.output.append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(k)));
                out.output_tail.append(buf, static_cast<std::size_t>(k));
                if (out.output_tail.size() > 16384) out.output_tail.erase(0, out.output_tail.size() - 8192);
            }
        }
    }
    return report_buf;
}

// Waits for the child (killing its process group at the deadline, and afterwards whatever of the group
// is left) and records how it ended.
void reap(const Channels& c, std::chrono::steady_clock::time_point deadline, ChildOutcome& out) {
    // Both channels closed: the child is exiting; wait for it, but never past the deadline (already passed when
    // the pump timed out: then it is killed at once).
    const Exited e = wait_process(c.pid, deadline);
    close(c.report_fd);
    close(c.output_fd);
    if (e.timed_out) out.timed_out = true;
    if (!out.timed_out) {
        out.exit_code = e.exit_code;
        out.signal = e.signal;
    }
}

// The report channel's whole lines: "<mac> <json>" with the MAC of the next sequence number becomes a
// message; anything else (no MAC, a wrong one, a replayed or reordered line, garbage) a bad line. A
// last line without its newline is a write cut short by a crash: noted, not judged.
void parse_report(const std::string& report_buf, const ChannelKey& key, ChildOutcome& out) {
    std::uint64_t seq = 0;
    std::size_t pos = 0;
    while (pos < report_buf.size()) {
        const std::size_t end = report_buf.find('\n', pos);
        if (end == std::string::npos) {
            out.truncated = true;
            break;
        }
        const std::string line = report_buf.substr(pos, end - pos);
        pos = end + 1;
        if (line.empty()) continue;
        const std::size_t space = line.find(' ');
        bool ok = space == 16 && line.compare(0, 16, line_mac(key, seq, std::string_view(line).substr(17))) == 0;
        if (ok) {
            try {
                nlohmann::json j = nlohmann::json::parse(line.substr(17));
                if (!j.is_object() || !j.contains("type")) throw std::runtime_error("not a message");
                out.messages.push_back(std::move(j));
                ++seq;
            } catch (const std::exception&) {
                ok = false;
            }
        }
        if (!ok) out.bad_lines.push_back(line.size() > 200 ? line.substr(0, 200) + "..." : line);
    }
}

// The children running now (each the leader of its process group), for a signal handler to stop: a
// fixed table of atomics, since the handler may not take a lock or allocate.
std::array<std::atomic<pid_t>, 64> g_active_children{};

// Registers a running child for the lifetime of the object (run_child's scope).
class ActiveChild {
public:
    explicit ActiveChild(pid_t pid) {
        for (auto& slot : g_active_children) {
            pid_t empty = 0;
            if (slot.compare_exchange_strong(empty, pid)) {
                slot_ = &slot;
                return;
            }
        }
    }
    ~ActiveChild() {
        if (slot_ != nullptr) slot_->store(0);
    }
    ActiveChild(const ActiveChild&) = delete;
    ActiveChild& operator=(const ActiveChild&) = delete;

private:
    std::atomic<pid_t>* slot_ = nullptr;
};

// Files to remove when a signal ends the grader (each a path of at most 255 bytes; empty slots are free).
std::array<std::array<char, 256>, 8> g_remove_on_signal{};
std::mutex g_remove_on_signal_mutex;

// SIGINT/SIGTERM: ask every running child's process group to stop (a build then removes what it half
// wrote), give them up to 3 s, kill what is left, then end as the signal says. Only async-signal-safe calls.
void stop_children_and_exit(int sig) {
    for (auto& slot : g_active_children)
        if (const pid_t pid = slot.load(); pid > 0) kill(-pid, SIGTERM);
    for (int waited_ms = 0; waited_ms < 3000; waited_ms += 50) {
        bool running = false;
        for (auto& slot : g_active_children)
            if (const pid_t pid = slot.load(); pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0) running = true;
        if (!running) break;
        const timespec pause{0, 50 * 1000 * 1000};
        nanosleep(&pause, nullptr);
    }
    for (auto& slot : g_active_children)
        if (const pid_t pid = slot.load(); pid > 0) kill(-pid, SIGKILL);
    for (const auto& path : g_remove_on_signal)
        if (path[0] != '\0') unlink(path.data());
    const char* said = sig == SIGINT ? "\ngrader: interrupted: the running lab was stopped, nothing more is graded\n"
                                     : "\ngrader: terminated: the running lab was stopped, nothing more is graded\n";
    ssize_t ignored = write(STDERR_FILENO, said, strlen(said));
    (void)ignored;
    std::signal(sig, SIG_DFL);
    raise(sig);
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_s, bool echo,
                       const std::function<void(const std::string&)>& on_progress, const std::string& params) {
    ChildOutcome out;
    if (argv.empty()) {
        out.spawn_failed = true;
        out.output = "nothing to run";
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = deadline_in(timeout_s);
    const ChannelKey key = fresh_channel_key();
    const Channels child = spawn_with_channels(argv, key, params, out);
    if (child.pid < 0) return out;
    const ActiveChild active(child.pid);
    const std::string report = pump(child, deadline, echo, out, on_progress);
    reap(child, deadline, out);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.output_tail = last_lines(out.output_tail, 12);
    parse_report(report, key, out);
    return out;
}

void remove_on_signal(const std::string& path, bool remove) {
    if (path.empty() || path.size() >= 256) return;
    const std::lock_guard<std::mutex> lock(g_remove_on_signal_mutex);
    for (auto& slot : g_remove_on_signal) {
        const bool match = path == slot.data();
        if (remove && slot[0] == '\0') {
            std::memcpy(slot.data(), path.c_str(), path.size() + 1);
            return;
        }
        if (!remove && match) slot[0] = '\0';
    }
}

void stop_children_on_signals() {
    struct sigaction action {};
    action.sa_handler = stop_children_and_exit;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

bool write_all(int fd, const std::string& data) {
    for (std::size_t at = 0; at < data.size();) {
        const ssize_t k = write(fd, data.data() + at, data.size() - at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;  // EPIPE: the reader is gone before reading it
        at += static_cast<std::size_t>(k);
    }
    return true;
}

}  // namespace gpulab::grader
