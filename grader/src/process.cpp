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
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

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

// The three steps of running a child: spawn it with its channels, pump its output until it closes both
// or the deadline passes, reap it (and whatever is left of its process group).
struct Spawned {
    pid_t pid = -1;
    int report_fd = -1;  // our end of fd 3
    int output_fd = -1;  // our end of its stdout + stderr
};

constexpr int kKeyFd = 4;  // the child reads its channel key here (and closes it) before main

ChannelKey fresh_key() {
    std::random_device rd;
    ChannelKey k{};
    for (std::size_t i = 0; i < k.size(); i += 4) {
        const unsigned v = rd();
        for (std::size_t j = 0; j < 4; ++j) k[i + j] = static_cast<std::uint8_t>(v >> (8 * j));
    }
    return k;
}

// Starts argv in its own process group: fd 3 is the report channel, fd 4 holds the channel key (a pipe
// the parent fills and closes), stdout and stderr go to one pipe, stdin is /dev/null, every other
// descriptor is closed. Sets out.spawn_failed when it cannot start.
Spawned spawn(const std::vector<std::string>& argv, const ChannelKey& key, const std::string& params, ChildOutcome& out) {
    Spawned c;
    int report[2], output[2], status_pipe[2], key_pipe[2];
    if (pipe(report) != 0 || pipe(output) != 0 || pipe2(status_pipe, O_CLOEXEC) != 0 || pipe(key_pipe) != 0) {
        out.spawn_failed = true;
        out.output = std::string("pipe failed: ") + std::strerror(errno);
        return c;
    }
    // A child that exits before it reads its key (a failed exec, a program that ends at once) must not take
    // the grader with it: writing to a pipe nobody reads gives EPIPE here, not SIGPIPE. The child gets the
    // default disposition back before exec.
    static const bool sigpipe_ignored = [] { return std::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
    (void)sigpipe_ignored;
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        out.spawn_failed = true;
        out.output = std::string("fork failed: ") + std::strerror(errno);
        return c;
    }
    if (pid == 0) {
        std::signal(SIGPIPE, SIG_DFL);
        setpgid(0, 0);
        // The child is killed when the grader dies, however it dies (even SIGKILL): a hung lab never
        // outlives the grader that was to time it out. (If the grader is already gone, stop here.)
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        // Lift the ends the child keeps above every target number first, so no dup2 overwrites another.
        const int report_w = fcntl(report[1], F_DUPFD, 64), output_w = fcntl(output[1], F_DUPFD, 64);
        const int key_r = fcntl(key_pipe[0], F_DUPFD, 64);
        dup2(output_w, 1);
        dup2(output_w, 2);
        dup2(report_w, 3);
        dup2(key_r, kKeyFd);
        setenv(kChannelKeyFdVariable, std::to_string(kKeyFd).c_str(), 1);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        for (int fd = kKeyFd + 1; fd < 1024; ++fd)
            if (fd != status_pipe[1]) close(fd);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        const int err = errno;
        (void)!write(status_pipe[1], &err, sizeof err);
        _exit(127);
    }
    setpgid(pid, pid);
    close(report[1]);
    close(output[1]);
    close(status_pipe[1]);
    close(key_pipe[0]);
    // The key and the run's parameters. More than a pipe holds blocks until the child reads it, which it does
    // before anything else; a child that exits first makes the write fail (EPIPE), not hang.
    const std::string handover = channel_handover(key, params);
    for (std::size_t at = 0; at < handover.size();) {
        const ssize_t k = write(key_pipe[1], handover.data() + at, handover.size() - at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        at += static_cast<std::size_t>(k);
    }
    close(key_pipe[1]);
    int exec_errno = 0;  // the pipe closes on a successful exec; an errno arrives when exec failed
    if (read(status_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
        out.spawn_failed = true;
        out.output = "cannot run " + argv[0] + ": " + std::strerror(exec_errno);
    }
    close(status_pipe[0]);
    c.pid = pid;
    c.report_fd = report[0];
    c.output_fd = output[0];
    return c;
}

// Reads both channels until the child closes them or the deadline passes (then out.timed_out).
// Returns the report channel's bytes; stdout/stderr go to out.output (first MiB) and out.output_tail.
std::string pump(const Spawned& c, std::chrono::steady_clock::time_point deadline, bool echo, ChildOutcome& out,
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
void reap(const Spawned& c, std::chrono::steady_clock::time_point deadline, ChildOutcome& out) {
    int status = 0;
    if (out.timed_out) {
        kill(-c.pid, SIGKILL);
        waitpid(c.pid, &status, 0);
    } else {
        // Both channels closed: the child is exiting; wait for it, but never past the deadline.
        while (waitpid(c.pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() >= deadline) {
                out.timed_out = true;
                kill(-c.pid, SIGKILL);
                waitpid(c.pid, &status, 0);
                break;
            }
            usleep(2000);
        }
        kill(-c.pid, SIGKILL);  // leftovers of its process group, if any
    }
    close(c.report_fd);
    close(c.output_fd);
    if (!out.timed_out) {
        if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
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
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(timeout_s));
    const ChannelKey key = fresh_key();
    const Spawned child = spawn(argv, key, params, out);
    if (child.pid < 0) return out;
    const ActiveChild active(child.pid);
    const std::string report = pump(child, deadline, echo, out, on_progress);
    reap(child, deadline, out);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.output_tail = last_lines(out.output_tail, 12);
    parse_report(report, key, out);
    return out;
}

void stop_children_on_signals() {
    struct sigaction action {};
    action.sa_handler = stop_children_and_exit;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

}  // namespace gpulab::grader
