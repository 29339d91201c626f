// main() of a lab's code runner: correctness and performance checks on the GPU.
//
// The runner is the grader's: its program holds none of the graded code. The order of its start is the
// integrity argument (docs/grading.md, "The threat model"):
//   1. its parameters and channel key arrive on the key pipe (an early constructor, protocol.cpp);
//   2. the tool launcher is forked, while the process has one thread (grader/launcher.hpp);
//   3. CUDA and the grader's observer (CUPTI), so that every kernel, copy, allocation and module load of the
//      graded code is recorded from its very first instruction;
//   4. Landlock (the course, the build tree and the grader's files unreadable, one scratch folder writable) and
//      seccomp (no other process, no exec, no socket: on every thread);
//   5. only then is the graded module (the student's file, the lab's given code and checks) loaded: its static
//      initialisers run inside the sandbox, watched.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "grader/gpu_checks.hpp"
#include "grader/launcher.hpp"
#include "grader/observer.hpp"
#include "grader/runner.hpp"
#include "grader/sandbox.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device.hpp"
#include "labs/timing.hpp"

namespace {

// Set when a check found the graded code's kernel still running past its deadline (DeviceHung).
bool g_device_hung = false;


using gpulab::grader::Prepared;
using gpulab::grader::RunnerOptions;

// The graded module lies beside the runner: lab00_checks_solution → lab00_checks_solution.graded.so.
std::string module_path() {
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    return ec ? std::string() : self + ".graded.so";
}

// The scratch folder this runner made before its launcher started: the runner empties it when it ends, the
// launcher (not sandboxed) removes it once the runner has ended. Unused when the parameters name one.
std::string g_made_scratch;

Prepared prepare(const RunnerOptions& opts) {
    Prepared p;
    std::string scratch = opts.scratch;
    if (scratch.empty()) {
        scratch = g_made_scratch;
    } else if (!g_made_scratch.empty()) {  // not sandboxed yet: the made one can go now
        std::error_code ec;
        std::filesystem::remove(g_made_scratch, ec);
        g_made_scratch.clear();
    }
    if (!scratch.empty()) setenv("TMPDIR", scratch.c_str(), 1);  // where the lab's own temporary files go
    const std::string module = module_path();

    // CUDA, then the observer: it records from before the graded code's first instruction.
    const gpulab::DeviceProbe probe = gpulab::probe_device();
    gpulab::grader::Observer& observer = gpulab::grader::Observer::instance();
    observer.set_own_symbols(opts.own_symbols);
    p.observer = probe.available() ? observer.start() : "no CUDA device: " + probe.reason;

    // Then the sandbox. Landlock holds for this thread and every thread it starts from now on: the graded code's
    // (the threads CUDA and CUPTI started already run only their own code — the calls that would run the graded
    // code's on them, host functions enqueued on a stream, are denied by the code policy). seccomp holds for all.
    gpulab::grader::SandboxOptions files;
    files.hidden = {LABS_SOURCE_DIR, LABS_BUILD_DIR, "/proc"};
    files.hidden.insert(files.hidden.end(), opts.hidden.begin(), opts.hidden.end());
    // Of the course, only the module and the public data; of /proc, this process and what the driver reads.
    files.readable = {module,        std::string(LABS_SOURCE_DIR) + "/datasets", "/proc/self", "/proc/driver",
                      "/proc/sys",   "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/filesystems",
                      "/proc/devices"};
    files.scratch = scratch;
    const auto t0 = std::chrono::steady_clock::now();
    const gpulab::grader::SandboxReport report = gpulab::grader::install_sandbox(files);
    p.sandbox_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    p.sandbox = report.level();
    p.sandbox_notes = report.notes;

    void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* why = dlerror();
        p.error = "the graded code could not be loaded: " + std::string(why ? why : module);
        return p;
    }
    // void register_checks(gpulab::grader::Lab&), as checks.cu defines it.
    p.register_checks = reinterpret_cast<void (*)(gpulab::grader::Lab&)>(
        dlsym(handle, "_Z15register_checksRN6gpulab6grader3LabE"));
    if (p.register_checks == nullptr) p.error = "the graded module defines no register_checks(): " + module;
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    {
        const std::filesystem::path tmp = [] {
            std::error_code ec;
            const std::filesystem::path t = std::filesystem::temp_directory_path(ec);
            return ec ? std::filesystem::path("/tmp") : t;
        }();
        std::string dir = (tmp / "labs-scratch-XXXXXX").string();
        if (mkdtemp(dir.data()) != nullptr) g_made_scratch = dir;
    }
    gpulab::grader::ToolLauncher::start(g_made_scratch);
    gpulab::grader::GpuHooks gpu;
    gpu.prepare = &prepare;
    gpu.probe = []() -> std::string {
        const gpulab::DeviceProbe p = gpulab::probe_device();
        return p.available() ? std::string() : p.reason;
    };
    gpu.fatal_reason = [](const std::exception& e) -> std::optional<std::string> {
        // A kernel still running past its check's deadline: asking the runtime anything more could wait for it forever.
        if (const auto* hung = dynamic_cast<const gpulab::grader::DeviceHung*>(&e)) {
            g_device_hung = true;
            return std::string(hung->what());
        }
        if (const auto* cuda = dynamic_cast<const gpulab::CudaError*>(&e); cuda && cuda->sticky()) return cuda->name();
        // An error can surface outside CUDA_CHECK too: ask the runtime whether the context still works.
        const cudaError_t last = cudaDeviceSynchronize();
        if (gpulab::is_sticky_error(last)) return std::string(cudaGetErrorName(last));
        return std::nullopt;
    };
    // A hung kernel cannot be stopped: the runner ends the process once its report is sent, which ends the kernel.
    gpu.end_at_once = [] { return g_device_hung; };
    gpu.start_checks = &gpulab::grader::gpu_start_checks;
    gpu.tenants = &gpulab::grader::gpu_tenants;
    gpu.clock_events = &gpulab::grader::gpu_clock_events;
    gpu.profile_begins = [] { gpulab::grader::log_launches(true); };
    gpu.profile_launches = [] {
        nlohmann::json out = nlohmann::json::array();
        for (const gpulab::grader::LoggedLaunch& l : gpulab::grader::logged_launches())
            out.push_back({{"name", l.name}, {"grid", l.grid}, {"block", l.block}, {"dynamic_smem", l.dynamic_smem}});
        return out;
    };
    gpu.profile = [](const gpulab::grader::ProfileEvidence& e, int timeout_s) {
        std::vector<std::string> metrics;
        for (const gpulab::grader::EvidenceMetric& m : e.metrics) metrics.push_back(m.metric);
        const auto t0 = std::chrono::steady_clock::now();
        const gpulab::grader::NcuProfile p = gpulab::grader::ncu_profile(e.target, metrics, timeout_s);
        nlohmann::json kernels = nlohmann::json::array();
        std::size_t course = 0;  // the kit's own kernels (fresh inputs drawn between the graded ones): not evidence
        for (const gpulab::grader::NcuKernel& k : p.kernels) {
            if (k.name.rfind("gpulab::", 0) == 0 || k.name.find(" gpulab::") != std::string::npos) {
                ++course;
                continue;
            }
            kernels.push_back({{"name", k.name}, {"metrics", k.metrics}});
        }
        return nlohmann::json{{"skipped", p.skipped}, {"kernels", kernels}, {"course_kernels_left_out", course},
                              {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
    };
    gpu.check_begins = [] {
        gpulab::grader::Observer& o = gpulab::grader::Observer::instance();
        if (o.running()) o.forget_before(o.now());
    };
    gpu.progress = [](std::function<void(const std::string&)> sink) {
        gpulab::set_timing_observer([sink = std::move(sink)](const std::string& label, int reps, int max_reps) {
            sink("timing " + label + " (" + std::to_string(reps) + "/" + std::to_string(max_reps) + " samples)");
        });
    };
    const int rc = gpulab::grader::runner_main(argc, argv, gpulab::grader::RunnerMode::code, nullptr, gpu);
    std::error_code ec;
    if (!g_made_scratch.empty()) std::filesystem::remove_all(g_made_scratch, ec);
    gpulab::grader::ToolLauncher::finish();  // the folder itself: the launcher removes it, before this process ends
    return rc;
}
