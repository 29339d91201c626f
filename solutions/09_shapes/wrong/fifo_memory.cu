// Known-bad (wrong/expect.json): memory drops the program stored first, however recently it was used.
constexpr bool kNoChecksum = false, kFifo = true, kIgnoreDriver = false, kIgnoreNvrtc = false, kMinCallTime = false;
#include "cache.cuh"
