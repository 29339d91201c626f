/**
 * @file occupancy.hpp
 * @brief How many blocks of a kernel stay resident on one SM, which resource stops the next one, and
 * whether the resident warps keep enough bytes in flight to cover memory latency (section 5.1.5).
 *
 * A block is resident only when it holds, at once, thread slots, registers and shared memory; the
 * SM also caps the number of blocks. Each resource allows ⌊what the SM has / what a block needs⌋
 * blocks; the smallest of the four wins. The allocation rules are those of the CUDA occupancy
 * calculator (`cuda_occupancy.h`), which the GPU test checks against the driver:
 * - thread slots are taken a whole warp at a time;
 * - a warp's registers are rounded up to `reg_alloc_unit` (256), and each of the
 *   `reg_file_partitions` (4) sub-partitions holds a quarter of the register file, so a partition
 *   holds ⌊(regs_per_sm / 4) / regs_per_warp⌋ warps;
 * - a block's shared memory is its working set plus the per-block reserve, rounded up to
 *   `smem_alloc_unit_bytes`; the SM is assumed configured for its largest shared-memory carveout.
 *
 * @code
 * const auto sm = gpulab::models::sm_limits(gpulab::models::load_device("H100"));
 * const auto occ = gpulab::models::occupancy(sm, {256, 128, 96 * 1024});
 * // occ.resident_blocks == 2, occ.occupancy == 0.25, occ.limiter() == "regs+smem"
 * @endcode
 */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "labs/models/datasets.hpp"

namespace gpulab::models {

/** @brief The per-SM limits of a device from the datasets (SmLimits: datasets.hpp). @param d device */
[[nodiscard]] SmLimits sm_limits(const DeviceSpec& d);

/** @brief What one block of a kernel asks for. */
struct BlockFootprint {
    int threads = 0;              ///< threads per block (≥ 1)
    int regs_per_thread = 0;      ///< registers per thread, as the compiler reports them (≥ 0)
    std::int64_t smem_bytes = 0;  ///< shared-memory working set (static + dynamic), reserve NOT included
};

/** @brief The resources that can limit residency. */
enum class Resource {
    threads,  ///< thread slots (whole warps)
    regs,     ///< register file
    smem,     ///< shared memory
    blocks,   ///< the per-SM block limit
};

/** @brief "threads", "regs", "smem" or "blocks". @param r a resource */
[[nodiscard]] std::string_view resource_name(Resource r) noexcept;

/** @brief Residency of one kernel configuration on one SM. */
struct Occupancy {
    int warps_per_block = 0;          ///< ⌈threads / warp_size⌉
    int regs_per_warp = 0;            ///< regs_per_thread · warp_size rounded up to reg_alloc_unit
    int regs_per_block = 0;           ///< regs_per_warp · warps_per_block
    std::int64_t smem_per_block_bytes = 0;  ///< working set + reserve, rounded up to smem_alloc_unit
    int blocks_by_threads = 0;        ///< blocks the thread slots allow
    int blocks_by_regs = 0;           ///< blocks the register file allows
    int blocks_by_smem = 0;           ///< blocks the shared memory allows
    int blocks_by_limit = 0;          ///< the per-SM block limit
    int resident_blocks = 0;          ///< the smallest of the four
    int resident_warps = 0;           ///< resident_blocks · warps_per_block
    int max_warps_per_sm = 0;         ///< max_threads_per_sm / warp_size
    double occupancy = 0;             ///< resident_warps / max_warps_per_sm (0..1)
    std::vector<Resource> limiters;   ///< every resource whose allowance equals resident_blocks
    int threads_used = 0;             ///< thread slots taken: resident_warps · warp_size
    int regs_free = 0;                ///< registers left: regs_per_sm − resident · regs_per_block
    std::int64_t smem_free_bytes = 0; ///< shared memory left: smem_per_sm − resident · smem_per_block

    /** @brief The limiters joined with '+', e.g. "regs+smem". */
    [[nodiscard]] std::string limiter() const;
};

/**
 * @brief Resident blocks, warps and occupancy of @p block on an SM with @p sm.
 * @param sm    the SM's limits
 * @param block the block's footprint
 * @throws std::invalid_argument for threads < 1 or negative registers/shared memory
 */
[[nodiscard]] Occupancy occupancy(const SmLimits& sm, const BlockFootprint& block);

/**
 * @brief Blocks the shared memory alone allows for a working set of @p smem_bytes (0 when it exceeds
 * the per-block maximum). The tiling models use it to count resident tiles per SM.
 * @param sm the SM's limits @param smem_bytes working set per block, reserve not included
 */
[[nodiscard]] int blocks_by_smem(const SmLimits& sm, std::int64_t smem_bytes);

/** @brief Inputs of the Little's-law check of section 5.1.5. */
struct LittlesLawInput {
    double bandwidth_gbps = 0;   ///< memory bandwidth of the whole device, GB/s
    double latency_ns = 0;       ///< memory latency, ns
    int sm_count = 0;            ///< SMs sharing the bandwidth
    int resident_warps = 0;      ///< warps resident per SM
    int loads_per_warp = 0;      ///< outstanding loads each warp may have
    int bytes_per_thread_per_load = 16;  ///< bytes one thread fetches per load instruction
    int warp_size = 32;          ///< threads per warp
    int warps_per_block = 0;     ///< warps per block (to turn warps needed into blocks; 0: skip)
};

/** @brief Bytes in flight needed and available per SM, and their ratio. */
struct LittlesLaw {
    double needed_device_bytes = 0;   ///< bandwidth × latency for the whole device
    double needed_per_sm_bytes = 0;   ///< the same per SM
    double bytes_per_warp_load = 0;   ///< one load instruction of one warp
    double available_per_sm_bytes = 0;  ///< resident warps × loads per warp × bytes per warp load
    double coverage = 0;              ///< available / needed (≥ 1: latency is hidden)
    int warps_needed = 0;             ///< ⌈needed / (loads per warp × bytes per warp load)⌉
    int blocks_needed = 0;            ///< ⌈warps_needed / warps_per_block⌉ (0 when warps_per_block is 0)
    double effective_bandwidth_gbps = 0;  ///< min(bandwidth, available · SMs / latency)
};

/**
 * @brief Little's law per SM: bytes in flight needed = bandwidth × latency / SMs, against what the
 * resident warps keep in flight.
 * @param in the inputs
 * @throws std::invalid_argument for non-positive bandwidth, latency or SM count
 */
[[nodiscard]] LittlesLaw littles_law(const LittlesLawInput& in);

}  // namespace gpulab::models
