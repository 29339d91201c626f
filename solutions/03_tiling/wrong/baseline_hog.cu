// Known-bad (wrong/expect.json): v1, v2 and v3 are correct (the plain kernel), and after each call a short
// bandwidth hog (about 30 µs) starts on a private stream once the kernel is done: it lands on whatever the
// grader runs next — an L2 flush, the naive GEMM or cuBLAS it divides by — and is far too small to move the
// baseline by 10%. The observer sees graded work running at the same time as the grader's: INVALID.
#define WRONG_DEFECT baseline_hog
#include "gemm.cuh"
