// The runner's count of NVRTC compilations: "compiled at run time" is graded from what the graded code asked the
// compiler to do, not from what it says. This library defines NVRTC's compile entry point, which a graded module's
// calls resolve to first (the library is in the process's global scope; libnvrtc comes in later, with the module
// that needs it), counts the call and passes it on unchanged.
#include <dlfcn.h>
#include <nvrtc.h>

#include <atomic>
#include <chrono>

#include "grader/gpu_checks.hpp"

namespace gpulab::grader {
namespace {

std::atomic<std::uint64_t> g_compiles{0}, g_compiled_ok{0};
std::atomic<std::uint64_t> g_compile_ns{0};

// The real entry point: the next definition after ours, else libnvrtc's (loaded with a graded module, outside the
// scope that RTLD_NEXT searches from here).
template <typename F>
F real_nvrtc(const char* symbol) {
    if (void* p = dlsym(RTLD_NEXT, symbol)) return reinterpret_cast<F>(p);
    for (const char* lib : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
        if (void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD))
            if (void* p = dlsym(h, symbol)) return reinterpret_cast<F>(p);
    return nullptr;
}

}  // namespace

NvrtcCompiles nvrtc_compiles() {
    return {g_compiles.load(), g_compiled_ok.load(), double(g_compile_ns.load()) * 1e-6};
}

}  // namespace gpulab::grader

extern "C" nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int count, const char* const* options) {
    using Fn = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
    static const Fn real = gpulab::grader::real_nvrtc<Fn>("nvrtcCompileProgram");
    if (real == nullptr) return NVRTC_ERROR_INTERNAL_ERROR;
    const auto t0 = std::chrono::steady_clock::now();
    const nvrtcResult r = real(prog, count, options);
    gpulab::grader::g_compile_ns += std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    ++gpulab::grader::g_compiles;
    if (r == NVRTC_SUCCESS) ++gpulab::grader::g_compiled_ok;
    return r;
}
