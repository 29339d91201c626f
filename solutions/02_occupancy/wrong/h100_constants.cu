// Known-bad (wrong/expect.json): the prediction is written with an H100's numbers (65,536 registers, 228 KiB,
// 2048 threads, 32 blocks) instead of the DeviceLimits it is given: right on the chapter's H100 cases, wrong on
// every other device file — and, on a GPU that is not an H100, against the runtime.
#define WRONG_PREDICT
#include "parts.cuh"

Residency predict_residency(const KernelResources& k, const DeviceLimits& d) {
    Residency r;
    const int warps = (k.threads + 31) / 32;
    r.by_threads = 2048 / 32 / warps;
    const int regs_per_warp = wrong::round_up(std::max(k.regs_per_thread, 1) * 32, 256);
    r.by_regs = 65536 / 4 / regs_per_warp * 4 / warps;
    r.by_smem = static_cast<int>(233472 / wrong::round_up<std::int64_t>(k.smem_bytes + 1024, 128));
    r.by_limit = 32;
    return wrong::finish(r, warps, d);
}
