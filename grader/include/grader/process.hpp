/**
 * @file process.hpp
 * @brief The grader's child processes: started in their own process group with an authenticated report channel
 * and the run's parameters on a key pipe, their output pumped, reaped under a time limit, stopped on signals —
 * and the text helpers for what they print. Used by the orchestrator (labs), the code policy's tools and the
 * submission stager.
 */
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab::grader {

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

/** @brief The non-empty lines of @p text (a tool's output, a list written one item per line). */
[[nodiscard]] std::vector<std::string> split_lines(const std::string& text);

/** @brief "SIGSEGV (Segmentation fault)" for a signal number. */
[[nodiscard]] std::string describe_signal(int sig);

/** @brief The last @p n lines of @p text. */
[[nodiscard]] std::string last_lines(const std::string& text, std::size_t n);

}  // namespace gpulab::grader
