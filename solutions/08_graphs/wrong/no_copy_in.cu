// Known-bad (wrong/expect.json): step_copy_in replays without copying the new input into the captured buffer:
// the graph reads whatever input() held — zeros at first, then what a producer last wrote.
constexpr bool kNoCopyIn = true, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
