// FROZEN: do not edit. The grader's own kernels for lab 01's checks, in a file of their own: checks.cu holds host
// code only and is compiled by the host compiler (labs_host_compiled_when_no_device_code).
#include <cuda_runtime_api.h>

namespace {

// Keeps a stream busy for `cycles` clock cycles: the grader's own work on a stream (its chaos, work queued ahead).
__global__ void hold(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

}  // namespace

/// The spin kernel, for cudaLaunchKernel (one thread, one argument: long long cycles) and cudaFuncGetName.
const void* lab01_hold_kernel() { return reinterpret_cast<const void*>(&hold); }
