// Known-bad (wrong/expect.json): launch_two_slots runs the given baseline — right bits, not the student's
// kernel: the captured launch names the baseline.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = false, kSlowOneSlot = false, kProducerAsStages = false,
               kTwoSlotsBaseline = true, kSkipRepeats = false, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
