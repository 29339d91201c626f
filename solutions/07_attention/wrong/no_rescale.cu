// Known-bad (wrong/expect.json): the softmax's running sum is not rescaled when a larger value comes: every
// value seen before the maximum keeps its old, too large weight.
constexpr bool kNoRescale = true, kThreePass = false, kFutureKeys = false, kScoresInArena = false, kSkipRepeats = false, kScoresStatic = false, kScoresKept = false, kGuessVerified = false;
#include "attention.cuh"
