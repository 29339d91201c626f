// Known-bad (wrong/expect.json): attention writes every score of the head into a static __device__ array of
// 256 MiB: right results, no allocation call, and memory the observer reads from the loaded module.
constexpr bool kNoRescale = false, kThreePass = false, kFutureKeys = false, kScoresInArena = false, kSkipRepeats = false, kScoresStatic = true, kScoresKept = false, kGuessVerified = false;
#include "attention.cuh"
