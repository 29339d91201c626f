// Known-bad (wrong/expect.json): an honest two slots beside a one slot made slow on purpose (one 16-byte piece
// per round trip, then a pause). The speed-up is taken over the model's serial time instead, so it gains nothing.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = false, kSlowOneSlot = true, kProducerAsStages = false,
               kTwoSlotsBaseline = false, kSkipRepeats = false, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
