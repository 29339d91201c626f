// A test per sandbox rule: in a child process with the sandbox installed (as the code runner installs it), each
// forbidden thing is tried and must fail with the rule's errno, and each allowed one must work. Rules the kernel
// cannot enforce (no Landlock, no seccomp) are reported SKIPPED with the reason; with neither, the test is SKIPPED.
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "grader/sandbox.hpp"

namespace fs = std::filesystem;
using gpulab::grader::SandboxOptions;

namespace {

int failures = 0, skipped = 0, passed = 0;

// 0 when the call succeeded, else its errno.
int attempt(const std::function<int()>& f) {
    errno = 0;
    const int rc = f();
    return rc < 0 ? errno : 0;
}

// Runs `what` in a child under the sandbox; the child exits with its errno (0: allowed).
void rule(const std::string& name, const SandboxOptions& o, bool enforced, int expected, const std::function<int()>& what) {
    if (!enforced) {
        std::printf("SKIPPED %s: the kernel cannot enforce it here\n", name.c_str());
        ++skipped;
        return;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        const gpulab::grader::SandboxReport r = gpulab::grader::install_sandbox(o);
        if (r.level() == "none") _exit(250);
        _exit(attempt(what) & 0xFF);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const int got = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const bool ok = got == expected;
    std::printf("%s %s: %s (expected %s)\n", ok ? "ok  " : "FAIL", name.c_str(), got == 0 ? "allowed" : std::strerror(got),
                expected == 0 ? "allowed" : std::strerror(expected));
    (ok ? passed : failures)++;
}

}  // namespace

int main() {
    const int abi = gpulab::grader::landlock_abi();
    // seccomp: can this process install a filter? (tried in a child, so that this one stays free)
    bool seccomp = false;
    if (const pid_t pid = fork(); pid == 0) {
        SandboxOptions only;
        only.landlock = false;
        _exit(gpulab::grader::install_sandbox(only).seccomp ? 0 : 1);
    } else {
        int status = 0;
        waitpid(pid, &status, 0);
        seccomp = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    const bool landlock = abi > 0;
    std::printf("sandbox: seccomp %s, Landlock ABI %d\n", seccomp ? "available" : "unavailable", abi);
    if (!seccomp && !landlock) {
        std::printf("SKIPPED: this kernel enforces neither seccomp nor Landlock\n");
        return 77;
    }

    // The grader's files (hidden), an exception inside them, a folder anyone may read, and the scratch folder.
    const fs::path root = fs::temp_directory_path() / ("labs-sandbox-test-" + std::to_string(getpid()));
    const fs::path grader = root / "grader", allowed = root / "allowed", scratch = root / "scratch";
    for (const fs::path& d : {grader, allowed, scratch, grader / "public"}) fs::create_directories(d);
    std::ofstream(grader / "solution.cu") << "the solution\n";
    std::ofstream(grader / "own-symbols.txt") << "_Z6kernelv\n";
    std::ofstream(grader / "public" / "trace.csv") << "m\n1\n";
    std::ofstream(allowed / "data.txt") << "anyone may read this\n";
    SandboxOptions o;
    o.hidden = {grader.string()};
    o.readable = {(grader / "public").string()};
    o.scratch = scratch.string();

    // seccomp
    rule("ptrace", o, seccomp, EPERM, [] { return int(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr)); });
    rule("exec a program", o, seccomp, EPERM, [] {
        char* args[] = {const_cast<char*>("/bin/true"), nullptr};
        return execve("/bin/true", args, nullptr);
    });
    rule("start a process (fork)", o, seccomp, EPERM, [] {
        const pid_t p = fork();
        if (p == 0) _exit(0);
        if (p > 0) waitpid(p, nullptr, 0);
        return p < 0 ? -1 : 0;
    });
    rule("open a socket", o, seccomp, EPERM, [] { return socket(AF_UNIX, SOCK_STREAM, 0); });
    rule("signal another process", o, seccomp, EPERM, [] { return kill(getppid(), 0); });
    rule("read another process's memory", o, seccomp, EPERM, [] {
        char buf[8], there[8];
        iovec local{buf, sizeof buf}, remote{there, sizeof there};
        return int(process_vm_readv(getppid(), &local, 1, &remote, 1, 0));
    });
    rule("io_uring (a way around the filter)", o, seccomp, EPERM, [] { return int(syscall(SYS_io_uring_setup, 1, nullptr)); });
    rule("signal itself (allowed)", o, seccomp, 0, [] { return kill(getpid(), 0); });
    rule("start a thread (allowed)", o, seccomp, 0, [] {
        int v = 0;
        std::thread t([&] { v = 1; });
        t.join();
        return v == 1 ? 0 : -1;
    });
    // Landlock
    const std::string escape = (allowed / "written.txt").string(), in_scratch = (scratch / "cache.bin").string();
    const std::string secret = (grader / "solution.cu").string(), symbols = (grader / "own-symbols.txt").string();
    const std::string grader_dir = grader.string(), public_file = (grader / "public" / "trace.csv").string();
    const std::string readable = (allowed / "data.txt").string();
    rule("write outside the scratch folder", o, landlock, EACCES, [&] { return open(escape.c_str(), O_WRONLY | O_CREAT, 0600); });
    rule("write the grader's own-symbols list", o, landlock, EACCES, [&] { return open(symbols.c_str(), O_WRONLY | O_TRUNC); });
    rule("read the grader's files", o, landlock, EACCES, [&] { return open(secret.c_str(), O_RDONLY); });
    rule("list the grader's folder", o, landlock, EACCES, [&] { return open(grader_dir.c_str(), O_RDONLY | O_DIRECTORY); });
    rule("write in the scratch folder (allowed)", o, landlock, 0, [&] { return open(in_scratch.c_str(), O_WRONLY | O_CREAT, 0600); });
    rule("read a file made readable (allowed)", o, landlock, 0, [&] { return open(public_file.c_str(), O_RDONLY); });
    rule("read elsewhere (allowed)", o, landlock, 0, [&] { return open(readable.c_str(), O_RDONLY); });

    std::error_code ec;
    fs::remove_all(root, ec);
    std::printf("%d passed, %d failed, %d skipped\n", passed, failures, skipped);
    return failures == 0 ? 0 : 1;
}
