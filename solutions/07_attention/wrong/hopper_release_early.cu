// Known-bad (wrong/expect.json): the solution's (c) whose consumers release each K stage as soon as it has landed, before
// the wgmma computing S = Q·Kᵀ have read it: the empty barrier protects nothing, and the producer's next copy can
// overwrite keys still being multiplied.
#define LAB07_HOPPER_RELEASE_AFTER_USE 0
#include "../attention.cu"
