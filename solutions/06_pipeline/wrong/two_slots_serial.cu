// Known-bad (wrong/expect.json): two slots that wait for each copy right after issuing it — right bits, no
// overlap: the speed-up over one slot and the model both say so.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = true, kSlowOneSlot = false, kProducerAsStages = false,
               kTwoSlotsBaseline = false, kSkipRepeats = false, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
