// Known-bad (wrong/expect.json): attention writes every score of the head into the Arena (L × L floats):
// right results, and 256 MiB of extra memory at L = 8192 — the memory check measures it.
constexpr bool kNoRescale = false, kThreePass = false, kFutureKeys = false, kScoresInArena = true, kSkipRepeats = false, kScoresStatic = false, kScoresKept = false, kGuessVerified = false;
#include "attention.cuh"
