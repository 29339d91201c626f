// Known-bad (wrong/expect.json): chain_all_fused keeps Z in a cudaMalloc of its own, outside the ledger, between
// launch_silu_mul and the given quantization. The ledger's counters show the model's peak; the observer sees Z,
// and two kernels where the fully fused path has one.
#define WRONG_TRICK unledgered_scratch
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
