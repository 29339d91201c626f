// Known-bad (wrong/expect.json): the stage kernels skip a timed call they have seen before (same buffers, size,
// steps and stages) and leave last time's sums in place. Right while the data stays the same — so a timing loop
// over the same buffers would see an impossible speed — but the verified timed run brings new data into the
// same buffers, and its output is stale.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = false, kSlowOneSlot = false, kProducerAsStages = false,
               kTwoSlotsBaseline = false, kSkipRepeats = true, kToolAware = false, kGuessVerified = false;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
