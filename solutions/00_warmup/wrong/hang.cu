// Known-bad (wrong/expect.json says what the grader must report): the kernel spins on a "ready" flag
// that nothing ever sets — as when the producer's launch is forgotten. It never finishes: the grader
// must kill the process at the time limit and report the lab as hung, naming the check that was running.
#include "labs/cuda_check.hpp"
#include "vector_add.hpp"

namespace {
__global__ void wait_then_add(const volatile int* ready, const float* a, const float* b, float* c, std::size_t n) {
    while (*ready == 0) {
    }
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static int* ready = [] {
        int* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, sizeof(int)));
        CUDA_CHECK(cudaMemset(p, 0, sizeof(int)));
        return p;
    }();
    wait_then_add<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(ready, a, b, c, n);
    LABS_CHECK_LAUNCH();
}
