// Known-bad (wrong/expect.json): the "fully fused" launcher runs its own SiLU⊙U kernel, then the baseline's
// launch_quantize. The results are right, but a graded variant must run only the student's own kernels:
// the captured graph names the baseline's kernel, and every (b) check fails with it.
#define WRONG_FULLY_FUSED baseline_quantize
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
