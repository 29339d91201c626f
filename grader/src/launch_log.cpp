// The runner's own record of kernel launches, for tool runs: there Nsight Compute or compute-sanitizer holds CUPTI,
// so the observer cannot record, and the runner logs the launch calls themselves. It defines the runtime's launch
// entry points, which every graded module's launches resolve to first (this library is loaded before the CUDA
// runtime), and passes each call on unchanged.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "grader/gpu_checks.hpp"

namespace gpulab::grader {
namespace {

std::atomic<bool> g_logging{false};
thread_local bool t_inside = false;  // in one of ours: the runtime's own inner launch call is not another launch
std::mutex g_mu;
std::vector<LoggedLaunch>& log() {
    static std::vector<LoggedLaunch> v;
    return v;
}

void note(const void* func, dim3 grid, dim3 block, std::size_t smem) {
    if (t_inside || !g_logging.load(std::memory_order_relaxed)) return;
    LoggedLaunch l;
    const char* name = nullptr;
    if (cudaFuncGetName(&name, func) == cudaSuccess && name != nullptr) l.name = name;
    else (void)cudaGetLastError();
    l.grid[0] = grid.x, l.grid[1] = grid.y, l.grid[2] = grid.z;
    l.block[0] = block.x, l.block[1] = block.y, l.block[2] = block.z;
    l.dynamic_smem = smem;
    std::lock_guard<std::mutex> lock(g_mu);
    log().push_back(std::move(l));
}

template <typename F>
F next(const char* symbol) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, symbol));
}

// Calls the runtime's own entry point @p real (cudaErrorUnknown where there is none) inside one of ours: the
// launch calls it makes are not logged again, and the flag is as it was once it returns.
template <typename F, typename... Args>
cudaError_t pass_on(F real, Args... args) {
    const bool was = t_inside;
    t_inside = true;
    const cudaError_t e = real ? real(args...) : cudaErrorUnknown;
    t_inside = was;
    return e;
}

}  // namespace

void log_launches(bool on) { g_logging = on; }

std::vector<LoggedLaunch> logged_launches() {
    std::lock_guard<std::mutex> lock(g_mu);
    return log();
}

}  // namespace gpulab::grader

extern "C" cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                                        cudaStream_t stream) {
    using Fn = cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t);
    static const Fn real = gpulab::grader::next<Fn>("cudaLaunchKernel");
    gpulab::grader::note(func, grid, block, smem);
    gpulab::grader::t_inside = true;
    const cudaError_t e = real ? real(func, grid, block, args, smem, stream) : cudaErrorUnknown;
    gpulab::grader::t_inside = false;
    return e;
}

extern "C" cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
    using Fn = cudaError_t (*)(const cudaLaunchConfig_t*, const void*, void**);
    static const Fn real = gpulab::grader::next<Fn>("cudaLaunchKernelExC");
    if (config != nullptr) gpulab::grader::note(func, config->gridDim, config->blockDim, config->dynamicSmemBytes);
    return gpulab::grader::pass_on(real, config, func, args);
}

// CUDA 13's <<<…>>> launches go through these (the compiler's launch stub passes the kernel's handle): the same
// record, the same pass-through.
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem,
                                          cudaStream_t stream) {
    using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
    static const Fn real = gpulab::grader::next<Fn>("__cudaLaunchKernel");
    gpulab::grader::note(reinterpret_cast<const void*>(kernel), grid, block, smem);  // cudaFuncGetName takes a handle too
    return gpulab::grader::pass_on(real, kernel, grid, block, args, smem, stream);
}

extern "C" cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem,
                                               cudaStream_t stream) {
    using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
    static const Fn real = gpulab::grader::next<Fn>("__cudaLaunchKernel_ptsz");
    gpulab::grader::note(reinterpret_cast<const void*>(kernel), grid, block, smem);
    return gpulab::grader::pass_on(real, kernel, grid, block, args, smem, stream);
}
