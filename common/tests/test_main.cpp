// main() of every test executable. A `gpu` test (built with LABS_GPU_TEST) first looks for a CUDA
// device; without one it prints why and exits with LABS_SKIP_RETURN_CODE, which ctest reports as
// skipped — never as passed.
#if LABS_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"

#include <cstdio>

#if defined(LABS_GPU_TEST)
#include <cuda_runtime_api.h>

#include "labs/device.hpp"
#endif

int main(int argc, char** argv) {
#if defined(LABS_GPU_TEST)
    const gpulab::DeviceProbe probe = gpulab::probe_device();
    if (!probe.available()) {
        std::printf("SKIPPED: %s\n", probe.reason.c_str());
        return LABS_SKIP_RETURN_CODE;
    }
    std::printf("GPU: %s (compute capability %d.%d, %d SMs)\n", probe.info.name.c_str(), probe.info.cc_major,
                probe.info.cc_minor, probe.info.sm_count);
#endif
    const int failed = Catch::Session().run(argc, argv);
#if defined(LABS_GPU_TEST)
    // Destroying the context lets compute-sanitizer's leak check see every allocation still alive.
    (void)cudaDeviceReset();
#endif
    return failed;
}
