// Lab 02 reference (work in progress): the residency prediction, written out resource by resource.
#include <algorithm>

#include "occupancy.hpp"

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
