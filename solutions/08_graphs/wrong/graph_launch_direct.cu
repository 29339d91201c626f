// Known-bad (wrong/expect.json): step_direct launches the graph with cudaGraphLaunch itself instead of replay(),
// so no launch is counted: the code policy refuses the file before anything runs (no GPU needed).
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = true, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
