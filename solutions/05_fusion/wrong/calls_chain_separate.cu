// Known-bad (wrong/expect.json): chain_all_fused runs the given three-kernel chain_separate. The code policy
// refuses the call before anything runs.
#define WRONG_CALLS_CHAIN_SEPARATE
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
