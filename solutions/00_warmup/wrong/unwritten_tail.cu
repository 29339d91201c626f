// Known-bad (wrong/expect.json): a float4 loop without the scalar tail, so the last n % 4 elements are
// never written: the poisoned output shows them, and the hint points at the tail.
#include "labs/cuda_check.hpp"
#include "vector_add.hpp"

namespace {
__global__ void bad(const float4* a, const float4* b, float4* c, std::size_t groups) {
    const std::size_t g = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (g < groups) c[g] = make_float4(a[g].x + b[g].x, a[g].y + b[g].y, a[g].z + b[g].z, a[g].w + b[g].w);
}
}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    const std::size_t groups = n / 4;
    if (groups == 0) return;
    bad<<<static_cast<unsigned>((groups + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(c), groups);
    LABS_CHECK_LAUNCH();
}
