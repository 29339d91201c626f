// FROZEN: do not edit. Lab 02 baseline: the device-limit query, the ballast, the one-load streaming copy,
// and the given tiled kernel without launch bounds.
#include <stdexcept>

#include "labs/cuda_check.hpp"
#include "labs/occupancy_probe.hpp"
#include "occupancy.hpp"
#include "streaming_launch.cuh"
#include "tiled_body.cuh"

namespace {

// One 16-byte load in flight per thread: each iteration's store waits for its load, and the next load is
// issued only after it.
__global__ void streaming_baseline(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

__global__ void tiled_unbounded(const float* a, const float* b, float* c, int n) { tiled_gemm_body(a, b, c, n); }

}  // namespace

// The model's SM limits in the lab's struct (also what the checks hand your prediction for each device file).
DeviceLimits device_limits_of(const gpulab::models::SmLimits& sm) {
    return {.warp_size = sm.warp_size, .max_threads_per_sm = sm.max_threads_per_sm, .max_blocks_per_sm = sm.max_blocks_per_sm,
            .regs_per_sm = sm.regs_per_sm, .reg_alloc_unit = sm.reg_alloc_unit, .reg_file_partitions = sm.reg_file_partitions,
            .smem_per_sm_bytes = sm.smem_per_sm_bytes, .smem_reserved_per_block_bytes = sm.smem_reserved_per_block_bytes,
            .smem_alloc_unit_bytes = sm.smem_alloc_unit_bytes};
}

DeviceLimits this_device_limits() { return device_limits_of(gpulab::device_sm_limits()); }

std::size_t ballast_bytes(int blocks_per_sm) {
    if (blocks_per_sm < 1) throw std::invalid_argument("ballast_bytes: at least one block per SM");
    const gpulab::models::SmLimits sm = gpulab::device_sm_limits();
    // Each block's share of the SM, rounded down to the allocation unit, less the driver's reserve: that many
    // blocks fit, one more does not.
    const std::int64_t share = sm.smem_per_sm_bytes / blocks_per_sm / sm.smem_alloc_unit_bytes * sm.smem_alloc_unit_bytes;
    const std::int64_t ballast = std::min(share - sm.smem_reserved_per_block_bytes, sm.smem_per_block_max_bytes);
    return static_cast<std::size_t>(std::max<std::int64_t>(ballast, 0));
}

StreamLaunch launch_streaming_baseline(const uint4* in, uint4* out, std::size_t count, std::size_t ballast,
                                       cudaStream_t stream) {
    return launch_with_ballast(streaming_baseline, in, out, count, ballast, stream);
}

void launch_tiled(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    launch_tiled_kernel(tiled_unbounded, "launch_tiled", a, b, c, n, stream);
}

TiledInfo tiled_info() { return tiled_info_of(tiled_unbounded); }
