// Known-bad (wrong/expect.json): l2_persisting.cu's persisting-L2 carve-out (device-wide state, set once
// through the driver's cuCtxSetLimit), reached without any symbol the code policy denies: the list of loaded
// objects comes from the loader's r_debug (_r_debug, plain data ld.so exports for debuggers), then libcuda's
// GNU hash table gives the function. What no walk can hide is the effect: the baseline copy runs slower inside
// the check than alone — INVALID, or, with the ratio past what a vector add can reach against the copy it is
// timed with, SUSPICIOUS. 0 points either way.
#define WRONG_WALK_PHDR 0
#include "l2_persisting.cuh"

