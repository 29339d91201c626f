// Shared by lab 00's known-bad versions: a correct one-thread-per-element c = a + b, so that each
// version shows only its own defect (where and when it launches, or under which name).
#pragma once

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"
#include "vector_add.hpp"

namespace wrong {

__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

inline void add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    add_kernel<<<static_cast<unsigned>(gpulab::ceil_div<std::size_t>(n, 256)), 256, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}

}  // namespace wrong
