// Known-bad (wrong/expect.json): at M = 8192, after its first call, the fully fused launcher leaves a 1 ms kernel
// on a stream of its own behind the real one, running into whatever the grader times next (the copy it is
// compared with). The observer sees graded work overlapping the grader's: the measurement is INVALID.
#define WRONG_TRICK hog_after_launch
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
