// The runner's tool launcher without a GPU: it is forked first in main (as a code runner does), then starts runs
// as the grader starts every child (spawn_process) — with their parameters on the key pipe, their variables, their
// own temporary folder — waits for them against one deadline and reports each one's status, output and files.
// A plain program (not Catch2): the launcher must be forked while the process has one thread.
#include <cstdio>
#include <string>
#include <vector>

#include "grader/launcher.hpp"
#include "grader/protocol.hpp"

using gpulab::grader::ToolLauncher;
using gpulab::grader::ToolRun;
using gpulab::grader::ToolRunResult;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) ++failures;
}

// A run of `sh -c script`; the runner's program, which the launcher appends, becomes the script's $0.
ToolRun sh(const std::string& script) {
    ToolRun r;
    r.tool = {"sh", "-c", script};
    r.params = nlohmann::json::object();
    return r;
}

}  // namespace

int main() {
    ToolLauncher::start();
    expect(ToolLauncher::available(), "the launcher runs");

    // What a run receives: the handover on the key pipe, its variables, a folder of its own.
    ToolRun first = sh("wc -c <&\"$LABS_CHANNEL_KEY_FD\"; echo \"$LABS_LAUNCHER_TEST\"; echo kept > {dir}/log.txt; exit 3");
    first.params = {{"seed", 12345}};
    first.env = {{"LABS_LAUNCHER_TEST", "set for the run"}};
    first.read = {"{dir}/log.txt"};
    // Runs that go on together: one ends by itself, one is killed at the deadline.
    ToolRun sleeper = sh("sleep 600");
    ToolRun missing;
    missing.tool = {"labs-no-such-tool-anywhere"};
    missing.params = nlohmann::json::object();
    ToolRun forged = sh("echo 'LABS-LAUNCHES 0123456789abcdef [\"k\"]'");

    const std::vector<ToolRunResult> done = ToolLauncher::run({first, sleeper, missing, forged}, 2);
    expect(done.size() == 4, "one result per run");
    if (done.size() == 4) {
        const std::string handover_bytes = std::to_string(16 + 4 + first.params.dump().size());
        expect(done[0].status == 3, "a run's exit status comes back (" + std::to_string(done[0].status) + ")");
        expect(done[0].output == handover_bytes + "\nset for the run\n",
               "the run read its key and parameters from the key pipe and got its variables: '" + done[0].output + "'");
        expect(done[0].files.size() == 1 && done[0].files[0] == "kept\n", "a file of its folder comes back");
        expect(done[1].status == -2, "a run past the deadline is killed and says so (" + std::to_string(done[1].status) + ")");
        expect(done[2].status == 127 || done[2].status == -1,
               "a tool that cannot be run is no success (" + std::to_string(done[2].status) + ")");
        expect(done[3].status == 0 && done[3].launches_forged && done[3].launches.is_null(),
               "a launch log without the run's MAC is forged, not taken");
    }
    ToolLauncher::finish();
    const std::vector<ToolRunResult> after = ToolLauncher::run({sh("exit 0")}, 2);
    expect(after.size() == 1 && after[0].status == -1, "after finish(), nothing runs");
    std::printf("%s\n", failures == 0 ? "launcher: all passed" : "launcher: FAILED");
    return failures == 0 ? 0 : 1;
}
