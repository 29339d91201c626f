// Known-bad (wrong/expect.json): move_output_by_update captures and instantiates the step again instead of updating
// the instance: the right bits, and a claim of an update that the observer does not see (a new instance replayed).
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = true, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
