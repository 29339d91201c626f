// Known-bad (wrong/expect.json): every variant's K loop stops at the last whole K step, so whenever K is
// not a multiple of the step the partial last step is lost. K = 4096 hides it; the k_tail shapes do not.
#define WRONG_DEFECT drop_k_tail
#include "gemm.cuh"
