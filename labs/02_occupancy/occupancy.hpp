/**
 * @file occupancy.hpp
 * @brief Lab 02 interface (first part): how many blocks of a kernel an SM keeps resident, predicted on the
 * host from the kernel's resources and the SM's limits (section 5.1.5, Exercise 5-1).
 *
 * FROZEN: do not edit. (Work in progress: the latency, streaming and launch-bounds parts follow.)
 */
#pragma once

#include <cstdint>
#include <string>

/** @brief What one block of a kernel asks of an SM. */
struct KernelResources {
    int threads = 0;              ///< threads per block (≥ 1)
    int regs_per_thread = 0;      ///< registers per thread, as the compiler reports them
    std::int64_t smem_bytes = 0;  ///< shared memory per block (static + dynamic), the driver's reserve not included
};

/** @brief What one SM offers, and how it hands it out. */
struct DeviceLimits {
    int warp_size = 32;                      ///< threads per warp
    int max_threads_per_sm = 0;              ///< resident thread slots
    int max_blocks_per_sm = 0;               ///< resident block limit
    int regs_per_sm = 0;                     ///< 32-bit registers
    int reg_alloc_unit = 256;                ///< a warp's registers are allocated in multiples of this
    int reg_file_partitions = 4;             ///< the register file is split evenly among this many sub-partitions
    std::int64_t smem_per_sm_bytes = 0;      ///< shared memory (the largest carveout)
    std::int64_t smem_reserved_per_block_bytes = 0;  ///< the driver's reserve per resident block
    std::int64_t smem_alloc_unit_bytes = 128;        ///< shared memory is allocated in multiples of this
};

/** @brief The prediction. */
struct Residency {
    int by_threads = 0;      ///< blocks the thread slots allow (whole warps)
    int by_regs = 0;         ///< blocks the register file allows
    int by_smem = 0;         ///< blocks the shared memory allows (with the reserve, rounded up to the unit)
    int by_limit = 0;        ///< the per-SM block limit
    int resident = 0;        ///< the smallest of the four
    double occupancy = 0;    ///< resident warps / the SM's warp slots
    std::string limiter;     ///< "threads", "registers", "shared_memory" or "block_limit" (the first, in this
                             ///< order, whose allowance equals `resident`)
};

/**
 * @brief (a) Yours: resident blocks per SM from each of the four limits, their minimum, the limiter and the
 * occupancy. Registers: a warp takes regs_per_thread · warp_size rounded up to reg_alloc_unit, and each of the
 * reg_file_partitions partitions holds ⌊(regs_per_sm / partitions) / regs_per_warp⌋ warps.
 * @param k the kernel's block @param d the SM
 */
[[nodiscard]] Residency predict_residency(const KernelResources& k, const DeviceLimits& d);
