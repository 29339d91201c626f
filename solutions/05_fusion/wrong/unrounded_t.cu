// Known-bad (wrong/expect.json): fuses SiLU and the product without rounding T to BF16 in between — more
// accurate, but no longer the chain's arithmetic, so the bits differ from the separate kernels'.
constexpr bool kRoundT = false, kReleaseInputs = true;
#include "chain.cuh"
