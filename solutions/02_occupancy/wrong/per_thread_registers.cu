// Known-bad (wrong/expect.json): registers divided per thread, as the chapter's table writes it
// (65,536 / (threads · registers)), without the per-warp allocation unit and the register-file partitions:
// right at the chapter's 128 registers, wrong wherever the rounding matters. (The solution's prediction, handed a
// register file of one partition allocated register by register.)
#define WRONG_PREDICT
#include "parts.cuh"

Residency predict_residency(const KernelResources& k, const DeviceLimits& d) {
    DeviceLimits per_thread = d;
    per_thread.reg_alloc_unit = 1;
    per_thread.reg_file_partitions = 1;
    return solution_predict_residency(k, per_thread);
}
