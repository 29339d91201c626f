/**
 * @file process.hpp
 * @brief The grader's child processes: started in their own process group with an authenticated report channel
 * and the run's parameters on a key pipe, their output pumped, reaped under a time limit, stopped on signals —
 * and the text helpers for what they print. Used by the orchestrator (labs), the code policy's tools, the
 * submission stager, `grader batch` (its workers' graders) and the runner's tool launcher.
 */
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/protocol.hpp"

namespace gpulab::grader {

/**
 * @brief How to start one child process (spawn_process()). Every child the grader starts — a lab's runner, a
 * build or policy tool, a worker's grader in `grader batch`, a tool run of the runner's launcher — is started
 * the same way: in a process group of its own (so that stopping it stops everything it started), with a
 * parent-death signal (a child never outlives the process that was to time it out), stdin from /dev/null,
 * every descriptor of ours closed but the ones named here, and a failed exec reported, not silent.
 */
struct SpawnSpec {
    std::vector<std::string> argv;            ///< program and arguments; a program without '/' is looked up on PATH
    std::map<std::string, std::string> env;   ///< variables set (or replaced) in the child; the rest of ours are kept
    int output_fd = -1;                       ///< its stdout and stderr (-1: /dev/null); ours stays open
    int report_fd = -1;                       ///< becomes its descriptor 3, the report channel (-1: none)
    /// When set: a pipe at descriptor kChildKeyFd ($LABS_CHANNEL_KEY_FD names it) that is filled with this
    /// (channel_handover(): the key, then the run's parameters) and closed once the child has started.
    std::optional<std::string> handover;
    int death_signal = SIGKILL;               ///< what the child gets when we die
};

/** @brief The descriptor a child reads its channel key and parameters from (SpawnSpec::handover). */
inline constexpr int kChildKeyFd = 4;

/** @brief A started child: its pid (the leader of its own process group), or why it did not start. */
struct Spawned {
    pid_t pid = -1;     ///< > 0 when it started (even if its exec then failed: see error)
    std::string error;  ///< "" when its program runs; else why not ("cannot run X: No such file or directory")
};

/**
 * @brief Starts a child as SpawnSpec says. Everything the child needs is made before fork (in a threaded
 * process only async-signal-safe calls may follow it). When the exec fails the child exits 127 and error says
 * why; it is still to be waited for (wait_process()).
 */
[[nodiscard]] Spawned spawn_process(const SpawnSpec& spec);

/** @brief How a child ended (wait_process()). */
struct Exited {
    int exit_code = -1;      ///< its exit status, when it exited
    int signal = 0;          ///< the signal that ended it (0: none)
    bool timed_out = false;  ///< stopped at the deadline
    bool stopped = false;    ///< stopped because @p stop said so
};

/**
 * @brief Waits for a child started by spawn_process(). At @p deadline, or as soon as @p stop returns true, its
 * process group gets SIGTERM and, @p grace later, SIGKILL (a zero grace: SIGKILL at once). Whatever is left of its
 * process group once it has ended is killed too.
 * @param pid the child @param deadline when it is stopped @param grace between SIGTERM and SIGKILL
 * @param stop asked every few milliseconds whether to stop it now (e.g. the batch is stopping)
 */
Exited wait_process(pid_t pid, std::chrono::steady_clock::time_point deadline,
                    std::chrono::steady_clock::duration grace = {}, const std::function<bool()>& stop = {});

/** @brief The steady-clock time @p seconds from now. */
[[nodiscard]] std::chrono::steady_clock::time_point deadline_in(double seconds);

/** @brief A fresh 128-bit channel key from the system's random device. */
[[nodiscard]] ChannelKey fresh_channel_key();

/** @brief What happened to one child process. */
struct ChildOutcome {
    std::vector<nlohmann::json> messages;  ///< protocol lines that carried the right MAC, in order
    std::vector<std::string> bad_lines;    ///< whole lines that did not (forged, replayed, garbage)
    bool truncated = false;                ///< the channel ended inside a line (a crash mid-write)
    std::string output;                    ///< its stdout and stderr (the first MiB)
    std::string output_tail;               ///< the last lines of its stdout and stderr
    int exit_code = -1;                    ///< exit status when it exited normally
    int signal = 0;                        ///< signal that ended it (0: none)
    bool timed_out = false;                ///< killed (with its process group) at the timeout
    bool spawn_failed = false;             ///< could not be started at all
    double seconds = 0;                    ///< wall time
};

/**
 * @brief Runs @p argv in its own process group with protocol channel on fd 3 and stdout/stderr
 * captured; kills the whole group after @p timeout_s seconds. The child gets a fresh channel key on a
 * pipe (protocol.hpp); only lines carrying its MAC, in sequence, become messages.
 * @param argv     program and arguments
 * @param timeout_s wall-clock limit
 * @param echo     also copy the child's stdout/stderr to ours (--verbose)
 * @param on_progress told the text of each `progress` message as it arrives (for a live display; the
 *                 messages are authenticated with the others once the child is done)
 * @param params   the run's parameters (a JSON object's text) handed over after the key, on the same pipe: what a
 *                 code runner must not find on its command line or in its environment (protocol.hpp)
 */
[[nodiscard]] ChildOutcome run_child(const std::vector<std::string>& argv, double timeout_s, bool echo = false,
                                     const std::function<void(const std::string&)>& on_progress = {},
                                     const std::string& params = "");

/**
 * @brief Makes SIGINT and SIGTERM stop the children run_child() is running (each one's whole process group:
 * SIGTERM, then SIGKILL after 3 s) before the process ends as the signal says. A grader stopped by Ctrl-C,
 * by `grader batch`'s time limit or by a scheduler leaves no lab process behind; one killed outright
 * (SIGKILL) takes its direct children with it too (they are started with a parent-death signal).
 */
void stop_children_on_signals();

/**
 * @brief Registers (@p remove true) or forgets (false) a file that a SIGINT or SIGTERM ending the grader removes
 * (a temporary file of the run: the ceilings' JSON); at most eight at once, paths under 256 bytes.
 */
void remove_on_signal(const std::string& path, bool remove = true);

/** @brief Writes all of @p data to @p fd (again after EINTR). @return false when the reader is gone (EPIPE) or
 * the write failed. */
bool write_all(int fd, const std::string& data);

/** @brief The non-empty lines of @p text (a tool's output, a list written one item per line). */
[[nodiscard]] std::vector<std::string> split_lines(const std::string& text);

/** @brief "SIGSEGV (Segmentation fault)" for a signal number. */
[[nodiscard]] std::string describe_signal(int sig);

/** @brief The last @p n lines of @p text. */
[[nodiscard]] std::string last_lines(const std::string& text, std::size_t n);

}  // namespace gpulab::grader
