// The right parts of occupancy.cu, for the known-bad versions in this folder (each defines what it gets wrong
// and takes the rest from here). Not a file to learn from: solutions/02_occupancy/occupancy.cu is.
#pragma once

#include <algorithm>
#include <cstdint>

#include "occupancy.hpp"
#include "tiled_body.cuh"

namespace wrong {
template <typename T>
T round_up(T value, T unit) {
    return (value + unit - 1) / unit * unit;
}

inline Residency finish(Residency r, int warps, const DeviceLimits& d) {
    r.resident = std::min({r.by_threads, r.by_regs, r.by_smem, r.by_limit});
    r.limiter = r.resident == r.by_threads ? "threads"
                : r.resident == r.by_regs  ? "registers"
                : r.resident == r.by_smem  ? "shared_memory"
                                           : "block_limit";
    r.occupancy = double(r.resident * warps) / double(d.max_threads_per_sm / d.warp_size);
    return r;
}
}  // namespace wrong

#ifndef WRONG_PREDICT
Residency predict_residency(const KernelResources& k, const DeviceLimits& d) {
    Residency r;
    const int warps = (k.threads + d.warp_size - 1) / d.warp_size;
    r.by_threads = d.max_threads_per_sm / d.warp_size / warps;
    const int regs_per_warp = wrong::round_up(std::max(k.regs_per_thread, 1) * d.warp_size, d.reg_alloc_unit);
    r.by_regs = d.regs_per_sm / d.reg_file_partitions / regs_per_warp * d.reg_file_partitions / warps;
    r.by_smem = static_cast<int>(d.smem_per_sm_bytes /
                                 wrong::round_up(k.smem_bytes + d.smem_reserved_per_block_bytes, d.smem_alloc_unit_bytes));
    r.by_limit = d.max_blocks_per_sm;
    return wrong::finish(r, warps, d);
}
#endif

#ifndef WRONG_CHASE
__global__ void chase_kernel(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end) {
    std::uint32_t i = start;
    for (std::int64_t s = 0; s < steps; ++s) i = __ldcg(words + i);
    *end = i;
}
#endif

namespace wrong {
// The right grid-stride copy with LOADS loads in flight, from this thread's first index on.
template <int LOADS>
__device__ __forceinline__ void copy_rounds(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (; i + (LOADS - 1) * stride < count; i += LOADS * stride) {
        uint4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) v[k] = in[i + k * stride];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) out[i + k * stride] = v[k];
    }
    for (; i < count; i += stride) out[i] = in[i];
}
}  // namespace wrong

#ifndef WRONG_STREAM
template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    wrong::copy_rounds<LOADS>(in, out, count);
}
#endif

#ifndef WRONG_BOUNDS
__global__ void __launch_bounds__(kTiledThreads, 6) tiled_bounded(const float* a, const float* b, float* c, int n) {
    tiled_gemm_body(a, b, c, n);
}
#endif
