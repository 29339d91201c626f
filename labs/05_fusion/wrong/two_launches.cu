// Known-bad (wrong/expect.json): the "fully fused" launcher runs the fused SiLU⊙U kernel and then the
// baseline's quantization — right bits, but two launches and Z through memory. The captured graph shows it.
constexpr bool kRoundT = true, kTwoLaunches = true, kReleaseInputs = true;
#include "chain.cuh"
