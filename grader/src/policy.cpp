// The code policy: scanning the student's compiled object before any of its code runs.
#include "grader/policy.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "grader/process.hpp"

namespace gpulab::grader {
namespace {

std::string demangled(const std::string& s) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : s;
}

// A plain identifier names a function: match it as a whole name, with or without arguments.
std::string as_regex(const std::string& p) {
    // ("gpulab::models::" is a namespace: a prefix, not a function.)
    const bool plain = std::regex_match(p, std::regex("[A-Za-z_][A-Za-z0-9_:]*")) && p.back() != ':';
    return plain ? "^" + p + "(\\(|$)" : p;
}

bool matches(const std::string& pattern, const std::string& text) {
    return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript));
}

bool allowed(const CodePolicy& policy, const std::string& text) {
    for (const std::string& a : policy.allow)
        if (matches(a, text)) return true;
    return false;
}

// `nm` output ("  U name" / "0000 T name"): the names with the given kind (undefined or not).
std::vector<std::string> symbols(const std::string& nm_output, bool undefined) {
    std::vector<std::string> out;
    for (const std::string& line : split_lines(nm_output)) {
        std::istringstream in(line);
        std::string a, b, c;
        in >> a >> b;
        if (a == "U" || a == "w" || a == "v") {  // undefined (strong or weak)
            if (undefined) out.push_back(b);
        } else if (in >> c) {
            if (!undefined && c.size() > 0) out.push_back(c);
        }
    }
    return out;
}

}  // namespace

CodePolicy default_policy() {
    CodePolicy p;
    const std::string io = "system call or file, descriptor, process or dynamic-loading function: the graded code "
                           "only computes (print to stdout/stderr for debugging)";
    p.deny_symbols = {
        {"^(write|writev|pwrite|pwrite64|pwritev|read|readv|pread|pread64|open|open64|openat|openat64|creat|creat64|"
         "close|fopen|fopen64|freopen|freopen64|fdopen|tmpfile|dup|dup2|dup3|pipe|pipe2|fcntl|fcntl64|ioctl|mmap|"
         "mmap64|munmap|mprotect|mremap|socket|connect|bind|sendmsg|sendto|unlink|unlinkat|rename|renameat|"
         "chdir|truncate|ftruncate|memfd_create|syscall|dlopen|dlmopen|dlsym|dlvsym|dlclose|fork|vfork|clone|clone3|"
         "execl|execlp|execle|execv|execve|execvp|execvpe|fexecve|system|popen|posix_spawn|posix_spawnp|"
         "exit|_exit|_Exit|quick_exit|abort|kill|tkill|tgkill|raise|signal|sigaction|sigprocmask|ptrace|"
         "prctl|process_vm_readv|process_vm_writev|setenv|putenv|unsetenv|clearenv|"
         // what the fortified and newer spellings of the same are, and more ways to reach files and descriptors
         "__open_2|__open64_2|__openat_2|__openat64_2|__read_chk|__pread_chk|__pread64_chk|__fdelt_chk|dprintf|vdprintf|"
         "__dprintf_chk|__vdprintf_chk|preadv|preadv2|pwritev2|sendfile|sendfile64|copy_file_range|splice|tee|vmsplice|"
         "mkstemp|mkstemp64|mkostemp|mkostemps|mkdtemp|tmpfile64|tmpnam|tempnam|remove|renameat2|link|linkat|symlink|"
         "symlinkat|readlink|readlinkat|mkdir|mkdirat|rmdir|chmod|fchmod|chown|fchown|utime|utimes|futimens|utimensat|"
         "opendir|fdopendir|scandir|nftw|ftw|stat|stat64|lstat|fstat|fstat64|fstatat|statx|access|faccessat|"
         "__xstat|__lxstat|__fxstat|__xstat64|__lxstat64|__fxstat64|"
         // the dynamic loader's tables, the environment and the process's own arguments
         "dl_iterate_phdr|dladdr|dladdr1|dlinfo|_dl_find_object|getauxval|getenv|secure_getenv|__libc_secure_getenv|"
         "environ|__environ|_environ|program_invocation_name|program_invocation_short_name|__progname|__progname_full|"
         // sleeping: a sleep is a system call, and a timed loop must not wait on the host clock
         "sleep|usleep|nanosleep|clock_nanosleep|__nanosleep|pause)$",
         io},
        {"^std::this_thread::sleep_(for|until)|^std::(__cxx11::)?basic_(o|i)?fstream|^std::(__cxx11::)?basic_filebuf|"
         "^std::__basic_file", io},
        {"^std::filesystem::", io},
        {"^(cudaDeviceReset|cudaSetDevice|cudaSetDeviceFlags|cudaDeviceSetLimit|cudaDeviceSetCacheConfig|"
         "cudaDeviceSetSharedMemConfig|cudaCtxResetPersistingL2Cache|cudaDeviceSetMemPool|cudaThreadExit|"
         "cudaThreadSetLimit|cudaThreadSetCacheConfig|cudaDeviceSetGraphMemAttribute|cudaStreamSetAttribute|"
         "cudaGraphKernelNodeSetAttribute|cudaIpcOpenMemHandle|cudaIpcGetMemHandle|cudaDeviceEnablePeerAccess|"
         "cudaGetDriverEntryPoint|cudaGetDriverEntryPointByVersion|cudaProfilerStart|cudaProfilerStop)(_v[0-9]+|_ptsz|_ptds)?$",
         "CUDA call that changes device-wide state (it would disturb the grader's measurements)"},
        {"^(cudaLaunchHostFunc|cudaStreamAddCallback|cudaGraphAddHostNode|cudaGraphHostNodeSetParams|"
         "cudaGraphExecHostNodeSetParams|cudaGraphAddNode|cudaGraphNodeSetParams|cudaGraphExecNodeSetParams)(_v[0-9]+|_ptsz|_ptds)?$",
         "a host function run by CUDA on a thread of its own (outside the sandbox's file rules): not in these labs"},
        {"^cu[A-Z]", "CUDA driver API (not part of this lab)"},
        {"^nvrtc", "NVRTC (not part of this lab)"},
        {"^(cublas|cublasLt|cudnn|cufft|cusparse|cusolver|curand[A-Z]|nccl|nvjpeg|npp)", "vendor library"},
        {"^gpulab::grader::", "the grader's own code"},
        {"^cupti|^nvperf|^NVPW_", "the profiling interface (CUPTI): the grader's observer, not the graded code's"},
        {"^gpulab::set_timing_observer", "the grader's own code"},
    };
    p.deny_defined = {
        {"(^|[^A-Za-z0-9_])(cub|thrust|cutlass|cute)::", "vendor library (CUB, Thrust, CUTLASS or CuTe)"},
    };
    p.deny_headers = {
        {"(^|/)(cublas|cublasLt|cudnn|cufft|cusparse|cusolver|curand|nccl|nvrtc|npp)[A-Za-z0-9_]*\\.h$", "vendor library"},
        {"(^|/)(cub|thrust|cutlass|cute)/", "vendor library (CUB, Thrust, CUTLASS or CuTe)"},
        {"(^|/)cuda\\.h$", "CUDA driver API (not part of this lab)"},
        {"(^|/)(cupti[A-Za-z0-9_]*|nvperf[A-Za-z0-9_]*)\\.h$", "the profiling interface (CUPTI): the grader's observer"},
    };
    return p;
}

CodePolicy lab_policy(const std::vector<std::string>& deny, const std::vector<std::string>& allow) {
    CodePolicy p = default_policy();
    // "pattern -- why" gives the lab's own reason; a bare pattern names one of the lab's given implementations.
    for (const std::string& d : deny) {
        const auto sep = d.find(" -- ");
        if (sep == std::string::npos)
            p.deny_symbols.push_back({as_regex(d), "a given implementation of this lab: the graded code must be your own"});
        else
            p.deny_symbols.push_back({as_regex(d.substr(0, sep)), d.substr(sep + 4)});
    }
    for (const std::string& a : allow) p.allow.push_back(as_regex(a));
    return p;
}

std::vector<Violation> check_policy(const std::vector<std::string>& undefined, const std::vector<std::string>& defined,
                                    const std::vector<std::string>& sections, const std::string& disassembly,
                                    const std::vector<std::string>& headers, const CodePolicy& policy) {
    std::vector<Violation> out;
    std::set<std::string> seen;
    const auto add = [&](const std::string& what, const std::string& why) {
        if (seen.insert(what).second) out.push_back({what, why});
    };
    for (const std::string& s : undefined)
        for (const PolicyRule& r : policy.deny_symbols)
            if (matches(r.pattern, s) && !allowed(policy, s)) add(s, r.why);
    for (const std::string& s : defined)
        for (const PolicyRule& r : policy.deny_defined)
            if (matches(r.pattern, s) && !allowed(policy, s)) add(s, r.why);
    for (const std::string& h : headers)
        for (const PolicyRule& r : policy.deny_headers)
            if (matches(r.pattern, h) && !allowed(policy, h)) add("#include " + h, r.why);
    for (const std::string& s : sections)
        if (matches("^\\.(init_array|ctors|fini_array|dtors)\\.[0-9]+$", s))
            add("section " + s, "a static constructor or destructor with a priority: it could run before the grader "
                                "sets up (plain static initialisers are fine)");
    static const std::regex syscall_insn(R"(\t(syscall|sysenter|int\s+\$0x80|svc\s+#?0)\b)");
    if (std::regex_search(disassembly, syscall_insn))
        add("a system-call instruction in host code", "inline system call: the graded code only computes");
    return out;
}

ScanResult scan_object(const std::string& object, const CodePolicy& policy) {
    ScanResult r;
    // An object that was never built (a tree built with `cmake --build` alone, graded with --no-build): say so, and how.
    if (std::error_code ec; !std::filesystem::exists(object, ec)) {
        r.error = object + " was not built: build the code it grades first (cmake --build build --target "
                           "labs_student_all builds every lab's student code), or grade without --no-build";
        return r;
    }
    const auto tool = [&](std::vector<std::string> argv, std::string& output) {
        const ChildOutcome o = run_child(argv, 120, false);
        if (o.spawn_failed || o.timed_out || o.exit_code != 0) {
            if (r.error.empty())
                r.error = "cannot inspect " + object + " with '" + argv.front() + "'" +
                          (o.spawn_failed ? ": " + o.output : " (exit code " + std::to_string(o.exit_code) + ")");
            return false;
        }
        output = o.output;
        return true;
    };
    std::string nm, sections_text, disassembly;
    if (!tool({"nm", "-A", object}, nm)) return r;
    // nm -A prefixes "object:"; drop it.
    std::string clean;
    for (const std::string& line : split_lines(nm)) {
        const auto colon = line.find(": ");
        clean += (colon == std::string::npos ? line : line.substr(colon + 2)) + "\n";
    }
    std::vector<std::string> undefined, defined;
    for (const std::string& s : symbols(clean, true)) undefined.push_back(demangled(s));
    for (const std::string& s : symbols(clean, false)) {
        r.defined_symbols.push_back(s);
        defined.push_back(demangled(s));
    }
    if (!tool({"objdump", "-h", object}, sections_text)) return r;
    std::vector<std::string> sections;
    for (const std::string& line : split_lines(sections_text)) {
        std::istringstream in(line);
        std::string idx, name;
        if (in >> idx >> name && !idx.empty() && std::isdigit(static_cast<unsigned char>(idx[0]))) sections.push_back(name);
    }
    if (!tool({"objdump", "-d", "--no-show-raw-insn", object}, disassembly)) return r;
    r.violations = check_policy(undefined, defined, sections, disassembly, {}, policy);
    return r;
}

}  // namespace gpulab::grader
