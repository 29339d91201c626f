// Known-bad (wrong/expect.json): the device clock is the host clock around a synchronised call.
constexpr bool kSkipComputeWait = false;
constexpr bool kOneStream = false;
constexpr bool kBlockingWatch = false;
constexpr bool kHostDeviceClock = true;
constexpr bool kPageable = false;
#include "pipeline.cuh"
