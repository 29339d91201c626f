// Lab 02 solution. What each part does, and why:
// (a) The residency prediction, written out resource by resource: each allowance is what the SM has over
//     what one block takes, in the units the hardware allocates (whole warps of thread slots; registers per
//     warp rounded up to the allocation unit and counted per register-file partition; shared memory with
//     the driver's reserve, rounded up to its unit).
// (b) The chase: one thread, one dependent load after another. The loop cannot issue a load before the
//     previous one returns, so the time per step is the latency.
// (c) The streaming copy: at a quarter of the SM's warps, one load in flight per thread keeps too few bytes
//     in flight to cover the memory's latency (Little's law); LOADS independent loads issued before any
//     store multiply the bytes in flight by LOADS without a single extra warp.
// (d) __launch_bounds__(256, 6): the compiler must fit 6 blocks of 256 threads in the register file —
//     at most 40 registers per thread — which is as many blocks as the 33 KiB of shared memory allow.
#include <algorithm>
#include <cstdint>

#include "occupancy.hpp"
#include "tiled_body.cuh"

namespace {
template <typename T>
T round_up(T value, T unit) {
    return (value + unit - 1) / unit * unit;
}
}  // namespace

Residency predict_residency(const KernelResources& k, const DeviceLimits& d) {
    Residency r;
    const int warps = (k.threads + d.warp_size - 1) / d.warp_size;  // thread slots go a whole warp at a time
    r.by_threads = d.max_threads_per_sm / d.warp_size / warps;
    const int regs_per_warp = round_up(std::max(k.regs_per_thread, 1) * d.warp_size, d.reg_alloc_unit);
    const int warps_per_partition = d.regs_per_sm / d.reg_file_partitions / regs_per_warp;
    r.by_regs = warps_per_partition * d.reg_file_partitions / warps;
    const std::int64_t smem = round_up(k.smem_bytes + d.smem_reserved_per_block_bytes, d.smem_alloc_unit_bytes);
    r.by_smem = static_cast<int>(d.smem_per_sm_bytes / smem);
    r.by_limit = d.max_blocks_per_sm;
    r.resident = std::min({r.by_threads, r.by_regs, r.by_smem, r.by_limit});
    r.limiter = r.resident == r.by_threads ? "threads"
                : r.resident == r.by_regs  ? "registers"
                : r.resident == r.by_smem  ? "shared_memory"
                                           : "block_limit";
    r.occupancy = double(r.resident * warps) / double(d.max_threads_per_sm / d.warp_size);
    return r;
}

__global__ void chase_kernel(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end) {
    std::uint32_t i = start;
    for (std::int64_t s = 0; s < steps; ++s) i = __ldcg(words + i);
    *end = i;
}

namespace {
// The copy of this thread's elements, grid-stride, LOADS loads in flight at a time.
template <int LOADS>
__device__ __forceinline__ void copy_rounds(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    // Whole rounds: LOADS loads, all issued before the first store needs any of them.
    for (; i + (LOADS - 1) * stride < count; i += LOADS * stride) {
        uint4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = in[i + k * stride];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) out[i + k * stride] = v[k];
    }
    // The tail: fewer than LOADS elements left for this thread.
    for (; i < count; i += stride) out[i] = in[i];
}
}  // namespace

template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    copy_rounds<LOADS>(in, out, count);
}

__global__ void __launch_bounds__(kTiledThreads, 6) tiled_bounded(const float* a, const float* b, float* c, int n) {
    tiled_gemm_body(a, b, c, n);
}
