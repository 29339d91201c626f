// Known-bad (wrong/expect.json): every copy and kernel on one stream: always right, never overlapped.
constexpr bool kSkipComputeWait = false;
constexpr bool kOneStream = true;
constexpr bool kBlockingWatch = false;
constexpr bool kHostDeviceClock = false;
constexpr bool kPageable = false;
#include "pipeline.cuh"
