// Known-bad (wrong/expect.json): step_direct captures and instantiates the step again before every replay:
// the right bits, the capture's launches counted every step, and slower than eager.
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = true, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
