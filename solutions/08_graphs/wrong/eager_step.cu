// Known-bad (wrong/expect.json): step_direct launches the step's kernels itself instead of replaying the graph:
// the right bits, six host launches a step, no graph time saved.
constexpr bool kNoCopyIn = false, kEagerStep = true, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
