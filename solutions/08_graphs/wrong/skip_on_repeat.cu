// Known-bad (wrong/expect.json): after its first 20 calls step_direct replays one call in four and returns at
// once from the others, leaving the last output in place: the timed loops look 4× faster, and the three steps
// on new inputs that follow each timed run read stale outputs.
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = true, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = false;
#include "graphs.cuh"
