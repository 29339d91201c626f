// Known-bad (wrong/expect.json): the stage kernels work on the large calls they guess are verified — the first on a
// set of buffers, then every 12th — and launch nothing on the others. Every timed call gets new data and a
// scrambled output, and the calls verified are drawn afterwards from a secret: most of them are wrong.
constexpr bool kEmptyBarrier = true, kTwoSlotsWait0 = false, kSlowOneSlot = false, kProducerAsStages = false,
               kTwoSlotsBaseline = false, kSkipRepeats = false, kToolAware = false, kGuessVerified = true;
constexpr int kWaitSlack = 0;
#include "pipeline.cuh"
