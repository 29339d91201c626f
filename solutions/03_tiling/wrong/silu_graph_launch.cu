// Known-bad (wrong/expect.json): "one launch" that is two kernels: the GEMM into a C of its own and a SiLU
// kernel, recorded once per set of buffers into a CUDA graph, then a single cudaGraphLaunch per call. The
// observer counts the kernels a graph launch runs, not the launch calls: two.
#define WRONG_DEFECT silu_graph
#include "gemm.cuh"
