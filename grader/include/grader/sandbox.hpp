/**
 * @file sandbox.hpp
 * @brief The sandbox the graded code runs in: the kernel's own mechanisms, installed by the runner after it
 * has its secrets and before it loads the graded code (so the graded code's static initialisers run inside it).
 *
 * - **seccomp-bpf** (the kernel interface, no library): no ptrace or other process's memory
 *   (process_vm_readv/writev, pidfd_getfd, kcmp), no exec, no new processes (fork, vfork, clone without
 *   CLONE_THREAD; clone3 answers ENOSYS so the C library falls back to clone), no sockets, no signals to other
 *   processes (kill and tgkill only to itself), no personality changes, no io_uring (which would bypass the
 *   rules), no namespaces, mounts, BPF, perf events, keys or modules. A denied call fails with EPERM; the
 *   process goes on.
 * - **Landlock** (Linux ≥ 5.13): the folders the grader hides (the course's sources with their solutions, the
 *   build tree, the grader's outputs) cannot be read, except the files named readable (the graded module,
 *   datasets); nothing can be written anywhere but one scratch folder (and the devices under /dev). Where the
 *   kernel scopes them (Landlock ABI 6), signals and abstract sockets cannot leave the sandbox either.
 *
 * Where the kernel lacks one of them the other still holds, and the report says which did (`level()`:
 * "seccomp+landlock", "seccomp only", "landlock only", "none"): never silent.
 */
#pragma once

#include <string>
#include <vector>

namespace gpulab::grader {

/** @brief What the sandbox hides and allows. */
struct SandboxOptions {
    std::vector<std::string> hidden;    ///< folders (or files) the graded code may not read or list
    std::vector<std::string> readable;  ///< files or folders inside them it may read (the module, datasets)
    std::string scratch;                ///< the one folder it may write ("" : none)
    bool seccomp = true;                ///< install the seccomp filter
    bool landlock = true;               ///< install the Landlock rules
};

/** @brief Which rules hold. */
struct SandboxReport {
    bool seccomp = false;            ///< the seccomp filter is installed
    bool landlock = false;           ///< the Landlock rules are enforced
    int landlock_abi = 0;            ///< the kernel's Landlock ABI (0: none)
    std::vector<std::string> notes;  ///< why a part did not hold, what was left out
    /** @brief "seccomp+landlock", "seccomp only", "landlock only" or "none". */
    [[nodiscard]] std::string level() const;
};

/**
 * @brief Installs the sandbox on the calling process. Irreversible; sets no_new_privs. The seccomp filter
 * reaches every thread of the process (TSYNC); Landlock only the calling thread and the threads it starts
 * afterwards. The code runner installs both once CUDA, CUPTI and a profiler's injection have set up, from the
 * thread that then loads and calls the graded code; the threads CUDA started before run only CUDA's own code
 * (the calls that would run the graded code's there — host functions on a stream — are denied by the policy).
 * @param options what to hide, allow and let write
 * @return which rules hold, and why others did not
 */
SandboxReport install_sandbox(const SandboxOptions& options);

/** @brief The kernel's Landlock ABI version (0 when it has none or it is disabled). */
[[nodiscard]] int landlock_abi();

}  // namespace gpulab::grader
