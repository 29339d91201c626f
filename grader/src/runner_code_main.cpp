// main() of a lab's code runner: correctness and performance checks on the GPU.
#include <cuda_runtime_api.h>

#include "grader/gpu_checks.hpp"
#include "grader/observer.hpp"
#include "grader/runner.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device.hpp"
#include "labs/timing.hpp"

int main(int argc, char** argv) {
    gpulab::grader::GpuHooks gpu;
    gpu.probe = []() -> std::string {
        const gpulab::DeviceProbe p = gpulab::probe_device();
        return p.available() ? std::string() : p.reason;
    };
    gpu.fatal_reason = [](const std::exception& e) -> std::optional<std::string> {
        if (const auto* cuda = dynamic_cast<const gpulab::CudaError*>(&e); cuda && cuda->sticky()) return cuda->name();
        // An error can surface outside CUDA_CHECK too: ask the runtime whether the context still works.
        const cudaError_t last = cudaDeviceSynchronize();
        if (gpulab::is_sticky_error(last)) return std::string(cudaGetErrorName(last));
        return std::nullopt;
    };
    gpu.start_checks = &gpulab::grader::gpu_start_checks;
    gpu.tenants = &gpulab::grader::gpu_tenants;
    gpu.clock_events = &gpulab::grader::gpu_clock_events;
    gpu.observe = [](const std::set<std::string>& own) {
        gpulab::grader::Observer& o = gpulab::grader::Observer::instance();
        o.set_own_symbols(own);
        return o.start();
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
    return gpulab::grader::runner_main(argc, argv, gpulab::grader::RunnerMode::code, &register_checks, gpu);
}
