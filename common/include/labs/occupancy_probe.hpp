/**
 * @file occupancy_probe.hpp
 * @brief What the CUDA runtime says about residency, to test an occupancy prediction against: the current
 * device's SM limits as the occupancy model reads them, and a sweep of real kernels (register counts from
 * 8 accumulators to spills, __launch_bounds__ caps, static shared memory) × block sizes × dynamic
 * shared-memory sizes, each with cudaOccupancyMaxActiveBlocksPerMultiprocessor's answer. The models' GPU
 * test and lab 02's grader both compare a prediction with this sweep (library labs_occupancy_probe).
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "labs/models/occupancy.hpp"

namespace gpulab {

/** @brief One configuration of the sweep and the runtime's answer for it. */
struct OccupancyProbe {
    std::string kernel;                  ///< the sweep kernel's name
    int threads = 0;                     ///< threads per block
    int regs_per_thread = 0;             ///< registers per thread (cudaFuncGetAttributes)
    std::int64_t static_smem_bytes = 0;  ///< static shared memory per block
    std::int64_t dynamic_smem_bytes = 0; ///< dynamic shared memory per block
    int runtime_blocks = 0;              ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor
};

/**
 * @brief The current device's SM as the occupancy model sees it: the properties from
 * cudaGetDeviceProperties, and the allocation granularities that are not properties — 256 registers per
 * warp and 4 register-file partitions (sm_70 and later), 128-byte shared-memory units (sm_80 and later; 256
 * before), as in the toolkit's cuda_occupancy.h.
 */
[[nodiscard]] models::SmLimits device_sm_limits();

/**
 * @brief Runs the sweep on the current device (sm_70 or later): every sweep kernel at every block size it
 * can launch (32 … 1024) and at dynamic shared-memory sizes from 0 to the opt-in maximum. Each kernel is
 * given the largest shared-memory carveout and the opt-in dynamic size first, as the model assumes.
 * About 1000 configurations, in well under a second.
 */
[[nodiscard]] std::vector<OccupancyProbe> occupancy_probes();

/** @brief How many distinct register counts the sweep's kernels have (it proves little with few). */
[[nodiscard]] int distinct_register_counts(const std::vector<OccupancyProbe>& probes);

}  // namespace gpulab
