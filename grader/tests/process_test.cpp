// The one way the grader starts a child (spawn_process) and waits for it (wait_process): used by the lab runners,
// the build and policy tools, `grader batch`'s workers and the runner's tool launcher alike.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "grader/process.hpp"
#include "grader/protocol.hpp"
#include "catch_compat.hpp"

using namespace gpulab::grader;
namespace fs = std::filesystem;

namespace {

// A file of the test's own, removed at the end of its scope.
struct TempFile {
    fs::path path;
    TempFile() {
        char name[] = "/tmp/labs-process-test-XXXXXX";
        const int fd = mkstemp(name);
        if (fd >= 0) close(fd);
        path = name;
    }
    ~TempFile() {
        std::error_code ec;
        fs::remove(path, ec);
    }
    [[nodiscard]] std::string text() const {
        std::ifstream f(path);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }
    [[nodiscard]] int open_for_writing() const { return open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC); }
};

// Runs the child @p spec names, its output into a file, and waits for it as wait_process() is told (a deadline
// @p timeout_s away, the grace, the stop request); returns what it printed and how it ended.
std::pair<std::string, Exited> run_child(SpawnSpec spec, double timeout_s = 20,
                                         std::chrono::steady_clock::duration grace = {},
                                         const std::function<bool()>& stop = {}) {
    TempFile out;
    const int fd = out.open_for_writing();
    spec.output_fd = fd;
    const Spawned child = spawn_process(spec);
    close(fd);
    REQUIRE(child.pid > 0);
    REQUIRE(child.error.empty());
    const Exited e = wait_process(child.pid, deadline_in(timeout_s), grace, stop);
    return {out.text(), e};
}

// Runs `sh -c script` as spec says (run_child()).
std::pair<std::string, Exited> run_sh(const std::string& script, SpawnSpec spec = {}, double timeout_s = 20,
                                      std::chrono::steady_clock::duration grace = {}) {
    spec.argv = {"sh", "-c", script};
    return run_child(std::move(spec), timeout_s, grace);
}

}  // namespace

TEST_CASE("A spawned child runs with the variables set for it, stdin empty and its status returned", "[process]") {
    SpawnSpec spec;
    spec.env["LABS_PROCESS_TEST"] = "set for the child";
    const auto [text, e] = run_sh("echo \"$LABS_PROCESS_TEST\"; cat; echo err >&2; exit 7", spec);
    CHECK(text == "set for the child\nerr\n");
    CHECK(e.exit_code == 7);
    CHECK(e.signal == 0);
    CHECK_FALSE(e.timed_out);
}

TEST_CASE("A spawned child keeps none of the parent's descriptors but the ones it is given", "[process]") {
    const int leaked = open("/dev/null", O_RDONLY);  // not close-on-exec: a plain exec would pass it on
    REQUIRE(leaked >= 3);
    // ls, started directly (no shell, whose pipes would come and go), lists its own descriptors: 0, 1 and 2, and
    // the one it reads the folder with.
    SpawnSpec spec;
    spec.argv = {"ls", "/proc/self/fd"};
    const auto [text, e] = run_child(spec);
    close(leaked);
    CHECK(e.exit_code == 0);
    CHECK(text == "0\n1\n2\n3\n");
}

TEST_CASE("The handover arrives on the key pipe the variable names, and the report channel on descriptor 3", "[process]") {
    int report[2];
    REQUIRE(pipe2(report, O_CLOEXEC) == 0);
    SpawnSpec spec;
    spec.report_fd = report[1];
    spec.handover = std::string("key and parameters");
    const auto [text, e] = run_sh("cat <&\"$LABS_CHANNEL_KEY_FD\"; echo on-the-channel >&3", spec);
    close(report[1]);
    char buf[64] = {};
    const ssize_t n = read(report[0], buf, sizeof buf - 1);
    close(report[0]);
    CHECK(e.exit_code == 0);
    CHECK(text == "key and parameters");
    CHECK(std::string(buf, n > 0 ? std::size_t(n) : 0) == "on-the-channel\n");
    CHECK(std::string(kChannelKeyFdVariable) == "LABS_CHANNEL_KEY_FD");
}

TEST_CASE("A program that cannot be run is reported, never silent", "[process]") {
    SpawnSpec missing;
    missing.argv = {"labs-no-such-program-anywhere"};
    const Spawned a = spawn_process(missing);
    CHECK(a.pid < 0);
    CHECK(a.error.find("labs-no-such-program-anywhere") != std::string::npos);

    SpawnSpec not_executable;
    TempFile file;  // exists, but is no program
    not_executable.argv = {file.path.string()};
    const Spawned b = spawn_process(not_executable);
    REQUIRE(b.pid > 0);
    CHECK(b.error.find("cannot run") != std::string::npos);
    const Exited e = wait_process(b.pid, deadline_in(20));
    CHECK(e.exit_code == 127);
}

TEST_CASE("At the deadline the child's whole process group is stopped: SIGTERM first, SIGKILL after the grace",
          "[process]") {
    TempFile pid_file;
    // The child starts a grandchild that ignores SIGTERM, writes its pid and waits: both must end.
    const std::string script = "sh -c 'trap \"\" TERM; sleep 600' & echo $! > " + pid_file.path.string() + "; wait";
    const auto start = std::chrono::steady_clock::now();
    const auto [text, e] = run_sh(script, {}, 0.5, std::chrono::milliseconds(300));
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(e.timed_out);
    CHECK_FALSE(e.stopped);
    CHECK(waited >= 0.5);
    CHECK(waited < 10);
    const std::string grandchild = pid_file.text();
    REQUIRE_FALSE(grandchild.empty());
    const pid_t g = static_cast<pid_t>(std::stol(grandchild));
    bool gone = false;
    for (int i = 0; i < 1000 && !gone; ++i) {  // killed with its group, then reaped by init (10 s at most)
        gone = kill(g, 0) != 0;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(gone);
}

TEST_CASE("A child is stopped as soon as the caller says so, not at its deadline", "[process]") {
    SpawnSpec spec;
    spec.argv = {"sleep", "600"};
    const auto asked = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    const auto [text, e] =
        run_child(spec, 600, std::chrono::seconds(5), [&] { return std::chrono::steady_clock::now() >= asked; });
    CHECK(e.stopped);
    CHECK_FALSE(e.timed_out);
    CHECK(e.signal == SIGTERM);
}

TEST_CASE("Channel keys are fresh each time", "[process][integrity]") {
    CHECK(fresh_channel_key() != fresh_channel_key());
}
