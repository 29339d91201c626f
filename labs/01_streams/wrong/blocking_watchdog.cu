// Known-bad (wrong/expect.json): the watchdog blocks on the hung stream: the grader has to release it.
constexpr bool kSkipComputeWait = false;
constexpr bool kOneStream = false;
constexpr bool kBlockingWatch = true;
constexpr bool kHostDeviceClock = false;
constexpr bool kPageable = false;
#include "pipeline.cuh"
