/**
 * @file launcher.hpp
 * @brief The runner's tool launcher: a process forked before the sandbox, which starts the runs a check asks for
 * (this runner under Nsight Compute or compute-sanitizer, or several copies of it at once) — the sandboxed runner
 * itself may start no process.
 *
 * Every run it starts looks like a graded run: the same program with no arguments (`tool... RUNNER`), the same
 * environment, and its parameters (the profile target, the seed, the own symbols) on the key pipe, as the
 * grader hands them to a graded runner. Only the tool in front differs.
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab::grader {

/** @brief One run for the launcher to start. */
struct ToolRun {
    /// What goes in front of the runner's program ("ncu", "--csv", ...; empty: the runner alone). "{dir}" in an
    /// argument becomes a fresh temporary folder of this run (for a tool's log).
    std::vector<std::string> tool;
    nlohmann::json params;                     ///< the runner's parameters (protocol.hpp), as a graded run's
    std::map<std::string, std::string> env;    ///< variables to add
    std::vector<std::string> read;             ///< files (with "{dir}") whose contents come back, then are removed
};

/** @brief What one run did. */
struct ToolRunResult {
    int status = -1;                       ///< exit status; -1: did not start; -2: killed at the time limit
    std::string output;                    ///< its stdout and stderr
    std::vector<std::string> files;        ///< the contents of ToolRun::read, in order ("" when missing)
    nlohmann::json launches;               ///< the kernels the run logged itself launching (authenticated), or null
    bool launches_forged = false;          ///< a launch log on its output did not carry the run's MAC
};

/** @brief The process's tool launcher. */
class ToolLauncher {
public:
    /**
     * @brief Forks the launcher now (call it first in main, while the process has one thread; once).
     * @param remove_at_end a folder the launcher removes, with what is in it, once the runner has ended ("": none)
     *        — the runner's scratch folder, which the sandboxed runner may empty but not remove (its parent is
     *        not writable to it).
     */
    static void start(const std::string& remove_at_end = {});
    /**
     * @brief Ends the launcher: closes the runner's end of its socket and waits (up to 5 s) for it to remove the
     * folder named at start() and exit, so that nothing of the runner is left once the runner has ended. Call it
     * last in main; run() afterwards returns status -1.
     */
    static void finish();
    /** @brief Whether a launcher runs. */
    [[nodiscard]] static bool available();
    /**
     * @brief Starts @p runs at the same time, waits for all of them (killing what is left after @p timeout_s
     * seconds) and returns what each did. Without a launcher, every result has status -1.
     */
    [[nodiscard]] static std::vector<ToolRunResult> run(const std::vector<ToolRun>& runs, int timeout_s);
};

}  // namespace gpulab::grader
