// Known-bad (wrong/expect.json): the fused GraphStep replays the six-kernel chain and returns from graph() a fused
// capture it never launches: right bits, and a claim about itself that the observer's kernel count contradicts.
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = true, kPredictVerified = false;
#include "graphs.cuh"
