// Known-bad (wrong/expect.json): a softmax in three passes of its own (max, sum, write): right, and no
// faster than the given baseline — the speed-up check says so.
constexpr bool kNoRescale = false, kThreePass = true, kFutureKeys = false, kScoresInArena = false, kSkipRepeats = false, kScoresStatic = false, kScoresKept = false, kGuessVerified = false;
#include "attention.cuh"
