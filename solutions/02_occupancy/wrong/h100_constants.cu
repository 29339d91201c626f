// Known-bad (wrong/expect.json): the prediction is written with an H100's numbers (65,536 registers, 228 KiB,
// 2048 threads, 32 blocks) instead of the DeviceLimits it is given: right on the chapter's H100 cases, wrong on
// every other device file — and, on a GPU that is not an H100, against the runtime. (The solution's prediction,
// handed an H100's limits whatever it is given.)
#define WRONG_PREDICT
#include "parts.cuh"

Residency predict_residency(const KernelResources& k, const DeviceLimits&) {
    static constexpr DeviceLimits kH100{.warp_size = 32, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32,
                                        .regs_per_sm = 65536, .reg_alloc_unit = 256, .reg_file_partitions = 4,
                                        .smem_per_sm_bytes = 233472, .smem_reserved_per_block_bytes = 1024,
                                        .smem_alloc_unit_bytes = 128};
    return solution_predict_residency(k, kH100);
}
