// Known-bad (wrong/expect.json): the policy picks the fastest call and ignores what is left to prepare.
constexpr bool kNoChecksum = false, kFifo = false, kIgnoreDriver = false, kIgnoreNvrtc = false, kMinCallTime = true;
#include "cache.cuh"
