// Known-bad (wrong/expect.json): the fused SiLU is one kernel, but C goes through memory: every block stores
// its tile of C into a static __device__ array (the full shape's 24 MiB), and the last block to finish applies
// SiLU to all of it. One launch, bit-identical results — and a C-sized buffer, which the observer sees in the
// module's static data.
#define WRONG_DEFECT silu_static_scratch
#define WRONG_STATIC_SCRATCH
#include "gemm.cuh"
