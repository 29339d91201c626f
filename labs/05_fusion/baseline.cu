// FROZEN: do not edit. Lab 05 baseline: the activation chain as three kernels, each reading its inputs
// from and writing its output to device memory, plus the memory ledger and the separate host path.
#include "fusion.hpp"
#include "fusion_math.cuh"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace {

constexpr unsigned kBlock = 256;

unsigned grid_for(std::size_t count) {
    const std::size_t blocks = gpulab::ceil_div<std::size_t>(count, kBlock);
    return static_cast<unsigned>(blocks < 1u << 20 ? (blocks == 0 ? 1 : blocks) : 1u << 20);
}

// Plain grid-stride loops, one element per iteration: simple on purpose. (Step 1 is the course's shared
// SiLU kernel, gpulab::launch_silu, written the same way.)
__global__ void mul_kernel(const __nv_bfloat16* t, const __nv_bfloat16* u, __nv_bfloat16* z, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        z[i] = fusion::mul_step(t[i], u[i]);
}

__global__ void quantize_kernel(const __nv_bfloat16* z, std::uint8_t* q, std::size_t count, float scale) {
    const float inv_scale = fusion::inverse_scale(scale);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        q[i] = fusion::quantize_step(z[i], inv_scale);
}

}  // namespace

void launch_mul(const __nv_bfloat16* t, const __nv_bfloat16* u, __nv_bfloat16* z, std::size_t count,
                cudaStream_t stream) {
    mul_kernel<<<grid_for(count), kBlock, 0, stream>>>(t, u, z, count);
    LABS_CHECK_LAUNCH();
}

void launch_quantize(const __nv_bfloat16* z, std::uint8_t* q, std::size_t count, float scale, cudaStream_t stream) {
    quantize_kernel<<<grid_for(count), kBlock, 0, stream>>>(z, q, count, scale);
    LABS_CHECK_LAUNCH();
}

MemoryLedger::~MemoryLedger() {
    for (const auto& [p, bytes] : sizes_) (void)cudaFree(p);
}

void* MemoryLedger::allocate(std::size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    sizes_[p] = bytes;
    live_ += bytes;
    if (live_ > peak_) peak_ = live_;
    return p;
}

void MemoryLedger::release(void* p) {
    const auto it = sizes_.find(p);
    if (it == sizes_.end()) throw std::invalid_argument("MemoryLedger::release: pointer not from this ledger");
    CUDA_CHECK(cudaDeviceSynchronize());  // the step that used it must be done
    CUDA_CHECK(cudaFree(p));
    live_ -= it->second;
    sizes_.erase(it);
}

std::uint8_t* chain_separate(MemoryLedger& ledger, __nv_bfloat16* g, __nv_bfloat16* u, std::size_t rows,
                             std::size_t cols, float scale, cudaStream_t stream) {
    const std::size_t n = rows * cols;
    // Step 1: T = SiLU(G). Holds G, U, T; then G is used up.
    auto* t = static_cast<__nv_bfloat16*>(ledger.allocate(n * sizeof(__nv_bfloat16)));
    launch_silu(g, t, n, stream);
    ledger.release(g);
    // Step 2: Z = T ⊙ U. Holds T, U, Z; then T and U are used up.
    auto* z = static_cast<__nv_bfloat16*>(ledger.allocate(n * sizeof(__nv_bfloat16)));
    launch_mul(t, u, z, n, stream);
    ledger.release(t);
    ledger.release(u);
    // Step 3: Q = E4M3FN(Z / scale). Holds Z, Q; then Z is used up.
    auto* q = static_cast<std::uint8_t*>(ledger.allocate(n));
    launch_quantize(z, q, n, scale, stream);
    ledger.release(z);
    return q;
}
