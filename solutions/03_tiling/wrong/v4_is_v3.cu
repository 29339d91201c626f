// Known-bad (wrong/expect.json): the solution with v3 handed in again as v4 — right everywhere, on mma.sync and
// cp.async, not wgmma and TMA. Its speed sits just below v4's pass bar; what it is not is read in its machine code
// (code.v4), and part v4 is not timed.
#define LAB03_V4_OWN_KERNEL 0
#include "../tiling.cu"
