// Known-bad (wrong/expect.json): cublas_uncaptured.cu with the loaded libraries listed by dl_iterate_phdr, the
// C library's iterator over them: the code policy denies it, and stops this version before it runs.
#define WRONG_WALK_PHDR 1
#define WRONG_DEFECT cublas_uncaptured
#include "gemm.cuh"
