// Known-bad (wrong/expect.json): the "fully fused" launcher launches one kernel of its own on a stream it is given
// — what a capture for counting would see — and on the default stream of every real call its SiLU⊙U kernel, then
// the baseline's launch_quantize. The grader observes the real calls: two kernels, one of them not the student's.
#define WRONG_FULLY_FUSED capture_aware
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
