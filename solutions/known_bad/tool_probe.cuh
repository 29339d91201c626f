// Shared by known-bad versions (labs/NN/wrong/) that behave one way under a tool and another when graded: the
// guess a student might make that the process runs under compute-sanitizer or Nsight Compute — a tiny kernel's
// second launch takes far longer there (the tool instruments or replays it) than the few microseconds it takes
// when graded. The grader does not depend on the guess being right or wrong: it compares what the tool run
// launched with what the graded run launched.
#pragma once

#include <cuda_runtime_api.h>

#include "labs/cuda_check.hpp"

namespace known_bad {

__global__ void probe_kernel(float* out) {
    float a = float(threadIdx.x);
    for (int i = 0; i < 64; ++i) a = a * 1.0001f + 1.0f;
    out[threadIdx.x] = a;
}

// Whether a tiny kernel's second launch took over 0.1 ms (measured once per process).
inline bool looks_like_a_tool() {
    static const bool slow = [] {
        float* buf = nullptr;
        CUDA_CHECK(cudaMalloc(&buf, 256 * sizeof(float)));
        cudaEvent_t a = nullptr, b = nullptr;
        CUDA_CHECK(cudaEventCreate(&a));
        CUDA_CHECK(cudaEventCreate(&b));
        probe_kernel<<<1, 256>>>(buf);  // the first launch loads the module
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaEventRecord(a));
        probe_kernel<<<1, 256>>>(buf);
        CUDA_CHECK(cudaEventRecord(b));
        CUDA_CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        CUDA_CHECK(cudaEventDestroy(a));
        CUDA_CHECK(cudaEventDestroy(b));
        CUDA_CHECK(cudaFree(buf));
        return ms > 0.1f;
    }();
    return slow;
}

}  // namespace known_bad
