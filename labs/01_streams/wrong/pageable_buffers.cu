// Known-bad (wrong/expect.json): input() and output() are ordinary pageable memory.
constexpr bool kSkipComputeWait = false;
constexpr bool kOneStream = false;
constexpr bool kBlockingWatch = false;
constexpr bool kHostDeviceClock = false;
constexpr bool kPageable = true;
#include "pipeline.cuh"
