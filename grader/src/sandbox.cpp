// The sandbox: a seccomp filter and Landlock rules, both through the kernel's own interface.
#include "grader/sandbox.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>

namespace gpulab::grader {
namespace {

// ---- Landlock (its UAPI, declared here: the build machine's headers may predate the ABI the kernel has) ----

constexpr long kLandlockCreateRuleset = 444, kLandlockAddRule = 445, kLandlockRestrictSelf = 446;
constexpr std::uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

enum : std::uint64_t {
    kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3,
    kRemoveDir = 1ull << 4, kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7,
    kMakeReg = 1ull << 8, kMakeSock = 1ull << 9, kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11,
    kMakeSym = 1ull << 12, kRefer = 1ull << 13, kTruncate = 1ull << 14,
};
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;

struct RulesetAttr {
    std::uint64_t handled_access_fs;
    std::uint64_t handled_access_net;
    std::uint64_t scoped;
};

struct PathBeneathAttr {
    std::uint64_t allowed_access;
    std::int32_t parent_fd;
} __attribute__((packed));

std::string canonical(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    std::string s = ec ? path : p.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

bool add_rule(int ruleset, const std::string& path, std::uint64_t access, std::uint64_t handled, bool directory_ok) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st{};
    if (fstat(fd, &st) != 0) {
        close(fd);
        return false;
    }
    // A rule on a file may carry only the rights that apply to files.
    if (!S_ISDIR(st.st_mode)) access &= kExecute | kWriteFile | kReadFile | kTruncate;
    else if (!directory_ok) access &= ~(kReadDir);
    PathBeneathAttr attr{access & handled, fd};
    const long rc = syscall(kLandlockAddRule, ruleset, kRulePathBeneath, &attr, 0);
    close(fd);
    return rc == 0;
}

// Read access to everything but the hidden paths: Landlock only allows, so every sibling of a folder on the way
// to a hidden path is allowed by a rule of its own, and the folders on the way are not (only listed through
// their allowed children: they themselves cannot be listed).
void allow_all_but(int ruleset, const std::set<std::string>& hidden, std::uint64_t read, std::uint64_t handled,
                   std::vector<std::string>& notes) {
    std::set<std::string> on_the_way;  // ancestors of a hidden path
    for (const std::string& h : hidden) {
        std::filesystem::path p(h);
        while (p.has_parent_path() && p.parent_path() != p) {
            p = p.parent_path();
            on_the_way.insert(p.string());
        }
    }
    for (const std::string& dir : on_the_way) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
            const std::string child = entry.path().string();
            if (hidden.count(child) || on_the_way.count(child)) continue;
            if (!add_rule(ruleset, child, read, handled, true) && entry.exists(ec))
                notes.push_back("could not allow reading " + child);
        }
        if (ec) notes.push_back("could not list " + dir + ": " + ec.message());
    }
}

// ---- seccomp -------------------------------------------------------------------------------------------

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kArch = 0;
#endif

struct Filter {
    std::vector<sock_filter> code;
    void load_nr() { code.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))); }
    // if nr == call: return ERRNO(err)
    void deny(long call, int err = EPERM) {
        if (call < 0) return;
        code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, std::uint32_t(call), 0, 1));
        code.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (std::uint32_t(err) & SECCOMP_RET_DATA)));
    }
    // if nr == call and (std::uint32_t)args[arg] != value: return ERRNO(EPERM); then reload nr
    void deny_unless_arg(long call, int arg, std::uint32_t value) { deny_unless(call, arg, BPF_JEQ, value); }
    // if nr == call and (args[arg] & mask) == 0: return ERRNO(EPERM); then reload nr
    void deny_unless_flag(long call, int arg, std::uint32_t mask) { deny_unless(call, arg, BPF_JSET, mask); }
    // if nr == call and (std::uint32_t)args[arg] fails @p test against k (BPF_JEQ: equal to k; BPF_JSET: some bit of
    // k set): return ERRNO(EPERM); then reload nr
    void deny_unless(long call, int arg, std::uint16_t test, std::uint32_t k) {
        if (call < 0) return;
        code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, std::uint32_t(call), 0, 4));
        code.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, std::uint32_t(offsetof(seccomp_data, args) + 8 * arg)));
        code.push_back(BPF_JUMP(BPF_JMP | test | BPF_K, k, 1, 0));
        code.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
        load_nr();
    }
};

#ifndef SYS_clone3
#define SYS_clone3 -1
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open -1
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd -1
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal -1
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup -1
#define SYS_io_uring_enter -1
#define SYS_io_uring_register -1
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise -1
#endif
#ifndef SYS_open_tree
#define SYS_open_tree -1
#define SYS_move_mount -1
#define SYS_fsopen -1
#define SYS_fsmount -1
#endif
#ifndef SYS_memfd_secret
#define SYS_memfd_secret -1
#endif

bool install_seccomp(std::vector<std::string>& notes) {
    if (kArch == 0) {
        notes.push_back("seccomp: this architecture has no filter here");
        return false;
    }
    const auto self = static_cast<std::uint32_t>(getpid());
    Filter f;
    f.code.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    f.code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
    f.code.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    f.load_nr();
    // Other processes: their memory, their descriptors, tracing.
    for (const long call : {long(SYS_ptrace), long(SYS_process_vm_readv), long(SYS_process_vm_writev), long(SYS_kcmp),
                            long(SYS_pidfd_open), long(SYS_pidfd_getfd), long(SYS_pidfd_send_signal),
                            long(SYS_process_madvise), long(SYS_rt_sigqueueinfo), long(SYS_rt_tgsigqueueinfo),
                            long(SYS_tkill)})
        f.deny(call);
    // New programs and processes (threads stay allowed: clone with CLONE_THREAD).
    for (const long call : {long(SYS_execve), long(SYS_execveat), long(SYS_fork), long(SYS_vfork)}) f.deny(call);
    f.deny(SYS_clone3, ENOSYS);  // its flags are in memory a filter cannot read: the C library falls back to clone
    f.deny_unless_flag(SYS_clone, 0, CLONE_THREAD);
    // Signals only to itself.
    f.deny_unless_arg(SYS_kill, 0, self);
    f.deny_unless_arg(SYS_tgkill, 0, self);
    // Sockets, and ways around the rules: io_uring, namespaces, mounts, BPF, perf, keys, modules, personality.
    for (const long call :
         {long(SYS_socket), long(SYS_socketpair), long(SYS_io_uring_setup), long(SYS_io_uring_enter),
          long(SYS_io_uring_register), long(SYS_unshare), long(SYS_setns), long(SYS_mount), long(SYS_umount2),
          long(SYS_pivot_root), long(SYS_chroot), long(SYS_open_tree), long(SYS_move_mount), long(SYS_fsopen),
          long(SYS_fsmount), long(SYS_bpf), long(SYS_perf_event_open), long(SYS_userfaultfd), long(SYS_keyctl),
          long(SYS_add_key), long(SYS_request_key), long(SYS_init_module), long(SYS_finit_module),
          long(SYS_delete_module), long(SYS_personality), long(SYS_open_by_handle_at), long(SYS_name_to_handle_at),
          long(SYS_memfd_secret), long(SYS_reboot), long(SYS_kexec_load), long(SYS_settimeofday),
          long(SYS_clock_settime), long(SYS_adjtimex), long(SYS_iopl), long(SYS_ioperm), long(SYS_acct),
          long(SYS_swapon), long(SYS_swapoff), long(SYS_quotactl)})
        f.deny(call);
    f.code.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    sock_fprog prog{static_cast<unsigned short>(f.code.size()), f.code.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        notes.push_back(std::string("seccomp: no_new_privs refused: ") + std::strerror(errno));
        return false;
    }
    // TSYNC: every thread of the process gets the filter (CUDA and CUPTI have started some by now).
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        notes.push_back(std::string("seccomp: the kernel refused the filter: ") + std::strerror(errno));
        return false;
    }
    return true;
}

bool install_landlock(const SandboxOptions& o, int abi, std::vector<std::string>& notes) {
    if (abi <= 0) {
        notes.push_back("landlock: this kernel has no Landlock (Linux 5.13 or newer, enabled in its LSM list)");
        return false;
    }
    std::uint64_t handled = kExecute | kWriteFile | kReadFile | kReadDir | kRemoveDir | kRemoveFile | kMakeChar |
                            kMakeDir | kMakeReg | kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
    if (abi >= 2) handled |= kRefer;
    if (abi >= 3) handled |= kTruncate;
    RulesetAttr attr{handled, 0, abi >= 6 ? (kScopeAbstractUnixSocket | kScopeSignal) : 0};
    const std::size_t size = abi >= 6 ? sizeof(RulesetAttr) : offsetof(RulesetAttr, handled_access_net);
    const int ruleset = static_cast<int>(syscall(kLandlockCreateRuleset, &attr, size, 0));
    if (ruleset < 0) {
        notes.push_back(std::string("landlock: the ruleset was refused: ") + std::strerror(errno));
        return false;
    }
    const std::uint64_t read = kExecute | kReadFile | kReadDir;
    std::set<std::string> hidden;
    for (const std::string& h : o.hidden)
        if (!h.empty()) hidden.insert(canonical(h));
    if (hidden.empty()) {
        if (!add_rule(ruleset, "/", read, handled, true)) notes.push_back("landlock: could not allow reading /");
    } else {
        allow_all_but(ruleset, hidden, read, handled, notes);
    }
    for (const std::string& r : o.readable) {
        std::error_code ec;
        if (r.empty() || !std::filesystem::exists(r, ec)) continue;  // nothing there to read
        if (!add_rule(ruleset, canonical(r), read, handled, true)) notes.push_back("landlock: could not allow reading " + r);
    }
    // Devices (the GPU's, /dev/null, /dev/shm) stay readable and writable; nothing is created there.
    if (!add_rule(ruleset, "/dev", read | kWriteFile | kTruncate, handled, true))
        notes.push_back("landlock: could not allow /dev");
    // The driver's shared memory (the CUDA runtime makes and removes files there).
    if (std::error_code ec; std::filesystem::is_directory("/dev/shm", ec) && !add_rule(ruleset, "/dev/shm", handled, handled, true))
        notes.push_back("landlock: could not allow /dev/shm");
    if (!o.scratch.empty() && !add_rule(ruleset, canonical(o.scratch), handled, handled, true))
        notes.push_back("landlock: could not allow writing the scratch folder " + o.scratch);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(kLandlockRestrictSelf, ruleset, 0) != 0) {
        notes.push_back(std::string("landlock: the rules were refused: ") + std::strerror(errno));
        close(ruleset);
        return false;
    }
    close(ruleset);
    return true;
}

}  // namespace

std::string SandboxReport::level() const {
    if (seccomp && landlock) return "seccomp+landlock";
    if (seccomp) return "seccomp only";
    if (landlock) return "landlock only";
    return "none";
}

int landlock_abi() {
    const long v = syscall(kLandlockCreateRuleset, nullptr, 0, kCreateRulesetVersion);
    return v > 0 ? static_cast<int>(v) : 0;
}

SandboxReport install_sandbox(const SandboxOptions& options) {
    SandboxReport r;
    r.landlock_abi = landlock_abi();
    // Landlock first: its rules are built with calls (open, listing folders) the filter does not deny anyway.
    if (options.landlock) r.landlock = install_landlock(options, r.landlock_abi, r.notes);
    else r.notes.push_back("landlock: not asked for");
    if (options.seccomp) r.seccomp = install_seccomp(r.notes);
    else r.notes.push_back("seccomp: not asked for");
    return r;
}

}  // namespace gpulab::grader
