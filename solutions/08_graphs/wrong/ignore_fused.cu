// Known-bad (wrong/expect.json): the fused graph is captured with the separate SiLU and multiply kernels: the
// same bits (the fused kernel rounds as the pair does), but six kernel nodes instead of five.
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = true, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
