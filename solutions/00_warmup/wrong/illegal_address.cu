// Known-bad (wrong/expect.json): writes far outside c. The illegal address is a sticky error: the
// context is lost, no later check may score, and the report must name cudaErrorIllegalAddress.
#include "labs/cuda_check.hpp"
#include "vector_add.hpp"

namespace {
__global__ void bad(const float* a, const float* b, float* c, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) c[i + (std::size_t(1) << 40)] = a[i] + b[i];
}
}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    bad<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}
