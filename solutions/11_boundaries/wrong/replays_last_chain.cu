// Known-bad (wrong/expect.json): (c) remembers the input buffers of its last two calls and, when one comes again,
// copies the outputs it kept from that call (static __device__ memory, no allocation) instead of computing. Every first
// call on a buffer is right, and so is a call whose input has not changed; the timed calls rotate over two sets whose
// x_0 changes before every call, so the verified ones are wrong (perf.persistent), and the memory it keeps is seen by
// the launches checks (memory held, static data included).
#define launch_chain_persistent solution_persistent_unused
#include "../chain.cu"
#undef launch_chain_persistent

namespace {

constexpr std::size_t kKept = std::size_t(kMaxSteps) * 4096;  // the chapter's chain's outputs, x_1 … x_64

__device__ __nv_bfloat16 kept_outputs[2][kKept];

struct Remembered {
    const __nv_bfloat16* x = nullptr;
    int steps = 0, dim = 0;
};
Remembered last[2];
int next_slot = 0;

__global__ void copy_kernel(const __nv_bfloat16* from, __nv_bfloat16* to, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        to[i] = from[i];
}

__nv_bfloat16* slot(int k) {
    void* p = nullptr;
    CUDA_CHECK(cudaGetSymbolAddress(&p, kept_outputs));
    return static_cast<__nv_bfloat16*>(p) + std::size_t(k) * kKept;
}

}  // namespace

void launch_chain_persistent(const ChainArgs& a, cudaStream_t stream) {
    const std::size_t n = std::size_t(a.steps) * std::size_t(a.dim);
    __nv_bfloat16* const y = a.x + a.dim;
    for (int k = 0; k < 2; ++k)
        if (n <= kKept && last[k].x == a.x && last[k].steps == a.steps && last[k].dim == a.dim) {
            copy_kernel<<<264, 256, 0, stream>>>(slot(k), y, n);
            CUDA_CHECK(cudaGetLastError());
            return;
        }
    solution_persistent_unused(a, stream);
    if (n > kKept) return;
    const int k = next_slot++ % 2;
    copy_kernel<<<264, 256, 0, stream>>>(y, slot(k), n);
    CUDA_CHECK(cudaGetLastError());
    last[k] = {a.x, a.steps, a.dim};
}
