// Known-bad (wrong/expect.json): registers divided per thread, as the chapter's table writes it
// (65,536 / (threads · registers)), without the per-warp allocation unit and the register-file partitions:
// right at the chapter's 128 registers, wrong wherever the rounding matters.
#define WRONG_PREDICT
#include "parts.cuh"

Residency predict_residency(const KernelResources& k, const DeviceLimits& d) {
    Residency r;
    const int warps = (k.threads + d.warp_size - 1) / d.warp_size;
    r.by_threads = d.max_threads_per_sm / d.warp_size / warps;
    r.by_regs = d.regs_per_sm / (k.threads * std::max(k.regs_per_thread, 1));
    r.by_smem = static_cast<int>(d.smem_per_sm_bytes /
                                 wrong::round_up(k.smem_bytes + d.smem_reserved_per_block_bytes, d.smem_alloc_unit_bytes));
    r.by_limit = d.max_blocks_per_sm;
    return wrong::finish(r, warps, d);
}
