// Known-bad (wrong/expect.json): the missing "compute done" wait, and run() starts with the grader's own spin kernel
// (checks_kernels.cu, which the chaos hook leaves alone), declared here by hand. The code policy stops it: the
// grader's own code.
#include <cuda_runtime_api.h>

const void* lab01_hold_kernel();

#define LAB01_DEFECT skip_compute_wait
#define LAB01_RUN_START()                                                                   \
    do {                                                                                    \
        long long cycles = 1000;                                                            \
        void* args[] = {&cycles};                                                           \
        (void)cudaLaunchKernel(lab01_hold_kernel(), dim3(1), dim3(1), args, 0, nullptr);    \
    } while (false)
#include "pipeline.cuh"
