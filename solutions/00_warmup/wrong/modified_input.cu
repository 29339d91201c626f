// Known-bad (wrong/expect.json): c is right, but the kernel also writes the sum back into a ("a += b",
// saving a buffer). Every check must fail it, naming the input that changed.
#include "labs/cuda_check.hpp"
#include "vector_add.hpp"

namespace {
__global__ void add_in_place(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        const_cast<float*>(a)[i] = c[i];
    }
}
}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    add_in_place<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}
