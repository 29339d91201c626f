// FROZEN: do not edit. Lab 00 baseline, the starting point you are compared with.
//
// One thread per element, exactly the launch of the architecture notes' example: grid = ⌈n/256⌉
// blocks of 256 threads, each thread adds one pair of floats (4-byte loads and store).
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"
#include "vector_add.hpp"

namespace {

__global__ void vector_add_baseline_kernel(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];  // the guard: the last block has idle threads
}

}  // namespace

void launch_vector_add_baseline(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    constexpr unsigned kBlock = 256;
    const auto grid = static_cast<unsigned>(gpulab::ceil_div<std::size_t>(n, kBlock));
    vector_add_baseline_kernel<<<grid, kBlock, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}
