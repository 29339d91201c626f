// Known-bad (wrong/expect.json): launch_producer runs the stage kernel — right bits, but no producer warp:
// the captured launch has kThreads threads per block.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = false, kSlowOneSlot = false, kProducerAsStages = true,
               kTwoSlotsBaseline = false, kSkipRepeats = false, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
