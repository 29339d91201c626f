// Known-bad (wrong/expect.json): step_direct replays for real only on a step's first 10 calls and after its 200th —
// where the three steps verified after a timed loop of 200 come — and returns at once on the others. The timed
// loop's own calls, each on a new input, are verified at calls drawn after them from a secret: they are stale.
constexpr bool kNoCopyIn = false, kEagerStep = false, kRecaptureEachStep = false, kIgnoreFused = false, kSyncInCapture = false, kSkipRepeats = false, kLaunchDirect = false, kUpdateByRecapture = false, kShowFusedGraph = false, kPredictVerified = true;
#include "graphs.cuh"
