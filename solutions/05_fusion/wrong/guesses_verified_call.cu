// Known-bad (wrong/expect.json): at M = 8192 the fully fused kernel does its work only on the untimed calls and on
// the one timed call it guesses will be verified (as a seed read from argv once told it); every other call spins as
// long as a real one and writes nothing. Every timed call now gets fresh data and a scrambled output, and the calls
// verified are drawn afterwards from a secret: at least two of the three are wrong.
#define WRONG_TRICK guesses_verified_call
constexpr bool kRoundT = true, kReleaseInputs = true;
#include "chain.cuh"
