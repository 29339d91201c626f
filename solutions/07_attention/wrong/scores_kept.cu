// Known-bad (wrong/expect.json): attention writes every score of the head into 256 MiB of mapped host memory it
// allocated on its first call and kept: right results, no cudaMalloc, nothing allocated during the measured call.
constexpr bool kNoRescale = false, kThreePass = false, kFutureKeys = false, kScoresInArena = false, kSkipRepeats = false, kScoresStatic = false, kScoresKept = true, kGuessVerified = false;
#include "attention.cuh"
