// Known-bad (wrong/expect.json): the "fused" SiLU runs the GEMM into a scratch C and then its own SiLU
// kernel — bit-identical (it IS v3 then SiLU), but two launches and C through memory: the observed call
// shows two kernels.
#define WRONG_DEFECT silu_two_launches
#include "gemm.cuh"
