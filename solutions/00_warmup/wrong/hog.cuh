// Shared by the known-bad versions that leave traffic behind (bandwidth_hog.cu, tolerance_hog.cu, thread_hog.cu):
// a kernel that reads and writes a private buffer, as much traffic as a copy of its size, and that buffer with a
// stream of its own.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "labs/cuda_check.hpp"

namespace wrong {

// Reads and writes `n` float4 of a private buffer: the same traffic as a copy of n * 16 bytes.
__global__ void hog_kernel(float4* buf, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float4 v = buf[i];
        v.x += 1.0f;
        buf[i] = v;
    }
}

// A private buffer of `bytes` (zeroed), a non-blocking stream to run the hog on, and an event to start it by.
struct Hog {
    std::size_t n = 0;  // float4 elements
    float4* buf = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t graded_done = nullptr;  // recorded on the graded stream by run_after()
    explicit Hog(std::size_t bytes) : n(bytes / sizeof(float4)) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&graded_done, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&buf, n * sizeof(float4)));
        CUDA_CHECK(cudaMemset(buf, 0, n * sizeof(float4)));
    }
    // The hog on its stream, at once (the caller checks the launch).
    void run() { hog_kernel<<<1024, 256, 0, stream>>>(buf, n); }
    // The hog on its stream once what is queued on `graded` so far is done: it runs beside whatever comes next.
    void run_after(cudaStream_t graded) {
        CUDA_CHECK(cudaEventRecord(graded_done, graded));
        CUDA_CHECK(cudaStreamWaitEvent(stream, graded_done, 0));
        run();
        LABS_CHECK_LAUNCH();
    }
};

}  // namespace wrong
