// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel whose launcher, once, sets aside
// the largest persisting-L2 carve-out the GPU allows. That is device-wide state: every later kernel and
// copy of the process, the grader's baseline copy among them, runs with it. The code policy denies the
// runtime call (cudaDeviceSetLimit) and the driver API by name, so this version finds the driver's
// cuCtxSetLimit by walking the dynamic symbol table of the loaded libcuda itself, through dl_iterate_phdr:
// no denied header, no driver symbol. The code policy now denies the loader's iterator itself, so it stops
// this version before it runs (l2_persisting_r_debug.cu finds the loaded objects another way).
#define WRONG_WALK_PHDR 1
#include "l2_persisting.cuh"

