// Known-bad (wrong/expect.json): v1, v2 and v3 launch the plain kernel while their stream is being captured —
// where the grader once looked for the kernels a launcher runs — and cuBLAS on every ordinary call, reached
// without a denied name or header: cublasGemmEx found in the loaded libcublas through the loader's r_debug and
// the library's symbol table. The grader now checks the kernels of the very call whose output it compares:
// cuBLAS's, not defined in tiling.cu. (Its fused SiLU is the plain fused kernel, not bit-identical to SiLU
// after a cuBLAS v3.)
#define WRONG_WALK_PHDR 0
#define WRONG_DEFECT cublas_uncaptured
#include "gemm.cuh"
