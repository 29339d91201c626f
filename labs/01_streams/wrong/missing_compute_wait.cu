// Known-bad (wrong/expect.json): the copy into a slot does not wait for the kernel that last read it: right without chaos, wrong under it.
constexpr bool kSkipComputeWait = true;
constexpr bool kOneStream = false;
constexpr bool kBlockingWatch = false;
constexpr bool kHostDeviceClock = false;
constexpr bool kPageable = false;
#include "pipeline.cuh"
