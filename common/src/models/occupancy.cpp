// Residency of a block on one SM (the CUDA occupancy calculator's rules) and Little's law.
#include "labs/models/occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <stdexcept>

#include "labs/math.hpp"

namespace gpulab::models {

SmLimits sm_limits(const DeviceSpec& d) { return d; }  // the SmLimits a DeviceSpec is

std::string_view resource_name(Resource r) noexcept {
    switch (r) {
        case Resource::threads: return "threads";
        case Resource::regs: return "regs";
        case Resource::smem: return "smem";
        case Resource::blocks: return "blocks";
    }
    return "?";
}

std::string Occupancy::limiter() const {
    std::string out;
    for (const Resource r : limiters) {
        if (!out.empty()) out += '+';
        out += resource_name(r);
    }
    return out;
}

int blocks_by_smem(const SmLimits& sm, std::int64_t smem_bytes) {
    if (smem_bytes < 0) throw std::invalid_argument("shared memory per block must not be negative");
    if (smem_bytes > sm.smem_per_block_max_bytes) return 0;  // the block cannot launch at all
    const std::int64_t per_block =
        round_up(smem_bytes + sm.smem_reserved_per_block_bytes, sm.smem_alloc_unit_bytes);
    if (per_block == 0) return sm.max_blocks_per_sm;
    return static_cast<int>(sm.smem_per_sm_bytes / per_block);
}

Occupancy occupancy(const SmLimits& sm, const BlockFootprint& block) {
    if (block.threads < 1) throw std::invalid_argument("threads per block must be at least 1");
    if (block.regs_per_thread < 0) throw std::invalid_argument("registers per thread must not be negative");
    if (block.smem_bytes < 0) throw std::invalid_argument("shared memory per block must not be negative");

    Occupancy o;
    o.warps_per_block = ceil_div(block.threads, sm.warp_size);
    o.max_warps_per_sm = sm.max_threads_per_sm / sm.warp_size;

    // Thread slots: whole warps.
    o.blocks_by_threads =
        block.threads > sm.max_threads_per_block ? 0 : o.max_warps_per_sm / o.warps_per_block;

    // Registers: per warp, rounded to the allocation unit; each sub-partition holds whole warps.
    o.regs_per_warp = round_up(block.regs_per_thread * sm.warp_size, sm.reg_alloc_unit);
    o.regs_per_block = o.regs_per_warp * o.warps_per_block;
    // The launch check assumes the block's warps spread over all partitions.
    const int regs_checked = o.regs_per_warp * round_up(o.warps_per_block, sm.reg_file_partitions);
    if (block.regs_per_thread > sm.max_regs_per_thread || o.regs_per_block > sm.regs_per_block_max ||
        regs_checked > sm.regs_per_block_max) {
        o.blocks_by_regs = 0;
    } else if (o.regs_per_warp == 0) {
        o.blocks_by_regs = sm.max_blocks_per_sm;  // no registers: never the limit
    } else {
        const int warps_per_partition = (sm.regs_per_sm / sm.reg_file_partitions) / o.regs_per_warp;
        o.blocks_by_regs = warps_per_partition * sm.reg_file_partitions / o.warps_per_block;
    }

    // Shared memory: working set + reserve, rounded to the allocation unit.
    o.smem_per_block_bytes =
        round_up(block.smem_bytes + sm.smem_reserved_per_block_bytes, sm.smem_alloc_unit_bytes);
    o.blocks_by_smem = blocks_by_smem(sm, block.smem_bytes);

    o.blocks_by_limit = sm.max_blocks_per_sm;

    o.resident_blocks = std::min({o.blocks_by_threads, o.blocks_by_regs, o.blocks_by_smem, o.blocks_by_limit});
    o.resident_warps = o.resident_blocks * o.warps_per_block;
    o.occupancy = static_cast<double>(o.resident_warps) / o.max_warps_per_sm;
    const std::pair<Resource, int> allowances[] = {{Resource::threads, o.blocks_by_threads},
                                                   {Resource::regs, o.blocks_by_regs},
                                                   {Resource::smem, o.blocks_by_smem},
                                                   {Resource::blocks, o.blocks_by_limit}};
    for (const auto& [resource, blocks] : allowances) {
        if (blocks == o.resident_blocks) o.limiters.push_back(resource);
    }
    o.threads_used = o.resident_warps * sm.warp_size;
    o.regs_free = sm.regs_per_sm - o.resident_blocks * o.regs_per_block;
    o.smem_free_bytes = sm.smem_per_sm_bytes - o.resident_blocks * o.smem_per_block_bytes;
    return o;
}

LittlesLaw littles_law(const LittlesLawInput& in) {
    if (!(in.bandwidth_gbps > 0)) throw std::invalid_argument("bandwidth must be positive");
    if (!(in.latency_ns > 0)) throw std::invalid_argument("latency must be positive");
    if (in.sm_count < 1) throw std::invalid_argument("SM count must be at least 1");
    if (in.resident_warps < 0 || in.loads_per_warp < 1 || in.bytes_per_thread_per_load < 1) {
        throw std::invalid_argument("warps must not be negative; loads per warp and bytes per load must be positive");
    }
    LittlesLaw l;
    // GB/s × ns = 10^9 B/s × 10^-9 s: the product is already in bytes.
    l.needed_device_bytes = in.bandwidth_gbps * in.latency_ns;
    l.needed_per_sm_bytes = l.needed_device_bytes / in.sm_count;
    l.bytes_per_warp_load = static_cast<double>(in.bytes_per_thread_per_load) * in.warp_size;
    const double per_warp_in_flight = in.loads_per_warp * l.bytes_per_warp_load;
    l.available_per_sm_bytes = in.resident_warps * per_warp_in_flight;
    l.coverage = l.available_per_sm_bytes / l.needed_per_sm_bytes;
    l.warps_needed = static_cast<int>(std::ceil(l.needed_per_sm_bytes / per_warp_in_flight));
    l.blocks_needed = in.warps_per_block > 0 ? ceil_div(l.warps_needed, in.warps_per_block) : 0;
    // Too few bytes in flight cap the rate at (bytes in flight) / latency.
    l.effective_bandwidth_gbps =
        std::min(in.bandwidth_gbps, l.available_per_sm_bytes * in.sm_count / in.latency_ns);
    return l;
}

}  // namespace gpulab::models
