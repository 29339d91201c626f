// Known-bad (wrong/expect.json): attention skips a long call it has seen before (same Q, O, heads and L) and
// leaves last time's output: the timed repeats cost nothing, and the verified run's new inputs find it out.
constexpr bool kNoRescale = false, kThreePass = false, kFutureKeys = false, kScoresInArena = false, kSkipRepeats = true, kScoresStatic = false, kScoresKept = false, kGuessVerified = false;
#include "attention.cuh"
