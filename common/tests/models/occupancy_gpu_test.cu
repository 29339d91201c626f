// The occupancy model against the CUDA runtime: for several kernels whose real register counts differ
// (register pressure, __launch_bounds__ caps, static shared memory), every block size and a range of dynamic
// shared-memory sizes (the sweep of labs/occupancy_probe.hpp), the model fed the kernel's attributes and the
// device's properties must give the same resident blocks per SM as cudaOccupancyMaxActiveBlocksPerMultiprocessor.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "catch_compat.hpp"
#include "labs/cuda_check.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/occupancy_probe.hpp"

TEST_CASE("The occupancy model agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor", "[models][occupancy][gpu]") {
    const gpulab::models::SmLimits sm = gpulab::device_sm_limits();
    const std::vector<gpulab::OccupancyProbe> probes = gpulab::occupancy_probes();
    int disagreed = 0;
    for (const gpulab::OccupancyProbe& p : probes) {
        const gpulab::models::Occupancy model =
            gpulab::models::occupancy(sm, {p.threads, p.regs_per_thread, p.static_smem_bytes + p.dynamic_smem_bytes});
        if (model.resident_blocks != p.runtime_blocks) {
            ++disagreed;
            std::printf("DISAGREE %s: %d threads, %d regs, %lld B shared (%lld static + %lld dynamic): runtime %d blocks, "
                        "model %d (threads %d, regs %d, smem %d, limit %d)\n",
                        p.kernel.c_str(), p.threads, p.regs_per_thread,
                        static_cast<long long>(p.static_smem_bytes + p.dynamic_smem_bytes),
                        static_cast<long long>(p.static_smem_bytes), static_cast<long long>(p.dynamic_smem_bytes),
                        p.runtime_blocks, model.resident_blocks, model.blocks_by_threads, model.blocks_by_regs,
                        model.blocks_by_smem, model.blocks_by_limit);
        }
    }
    std::printf("%zu configurations compared, %d disagreements\n", probes.size(), disagreed);
    CHECK(probes.size() >= 200);
    CHECK(disagreed == 0);
    // The kernels really do span different register counts (otherwise the sweep proves little).
    CHECK(gpulab::distinct_register_counts(probes) >= 6);
}
