// Known-bad (wrong/expect.json): the "fused" SiLU is one kernel only while its stream is being captured —
// what the grader once counted, in a CUDA graph — and the GEMM into a scratch C plus a SiLU kernel on every
// ordinary call. The grader now counts the kernels of a real call, observed: two.
#define WRONG_DEFECT silu_capture_aware
#include "gemm.cuh"
