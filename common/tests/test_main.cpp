// main() of every test executable, compiled once (with Catch2 v2 it holds Catch2's implementation: tens of seconds
// to compile). A `gpu` test (its executable links test_kind.cpp built with LABS_GPU_TEST=1) first looks for a CUDA
// device; without one it prints why and exits with LABS_SKIP_RETURN_CODE, which ctest reports as skipped — never as
// passed.
#if LABS_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"

#include <cstdio>

#include <cuda_runtime_api.h>

#include "labs/device.hpp"

/// Whether this executable is a `gpu` test (test_kind.cpp, one object per kind).
extern const bool kLabsGpuTest;

int main(int argc, char** argv) {
    if (kLabsGpuTest) {
        const gpulab::DeviceProbe probe = gpulab::probe_device();
        if (!probe.available()) {
            std::printf("SKIPPED: %s\n", probe.reason.c_str());
            return LABS_SKIP_RETURN_CODE;
        }
        std::printf("GPU: %s (compute capability %d.%d, %d SMs)\n", probe.info.name.c_str(), probe.info.cc_major,
                    probe.info.cc_minor, probe.info.sm_count);
    }
    const int failed = Catch::Session().run(argc, argv);
    // Destroying the context lets compute-sanitizer's leak check see every allocation still alive.
    if (kLabsGpuTest) (void)cudaDeviceReset();
    return failed;
}
