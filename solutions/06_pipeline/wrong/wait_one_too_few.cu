// Known-bad (wrong/expect.json): the stage kernels wait for one copy group too few, so tile j is read while
// its copy may still be in flight — with one stage, always.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = false, kSlowOneSlot = false, kProducerAsStages = false,
               kTwoSlotsBaseline = false, kSkipRepeats = false, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 1;
#include "pipeline.cuh"
