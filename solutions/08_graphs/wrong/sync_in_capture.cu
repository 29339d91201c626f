// Known-bad (wrong/expect.json): the capture waits for its own stream halfway: synchronising a capturing
// stream is not allowed, so the capture (and every check that builds a step) fails.
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = true, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
