// Known-bad (wrong/expect.json): no barrier after a tile's math in the stage kernels, so the next round's copy
// may overwrite a slot a slower warp still reads. Often right by luck; racecheck sees it every time.
constexpr bool kEmptyBarrier = false, kTwoSlotsWait0 = false, kSlowOneSlot = false, kProducerAsStages = false,
               kTwoSlotsBaseline = false, kSkipRepeats = false, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
