// Known-bad (wrong/expect.json): chain_all_fused writes Q into a static __device__ array and returns it, leaving
// one unused ledger allocation of Q's size for the ledger's counters. The observer counts the module's static data
// as memory the code holds, and the returned Q is no allocation the path made.
#define WRONG_TRICK q_outside_ledger
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
