// Known-bad (wrong/expect.json): the "fully fused" launcher runs its own SiLU⊙U kernel and then its own
// quantization kernel — right bits, but two launches and Z through memory. The captured graph shows it.
#define WRONG_FULLY_FUSED two_own_kernels
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
