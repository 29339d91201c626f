// Known-bad (wrong/expect.json): the solution with (b) handed in again as (c) — right everywhere, on mma.sync and
// cp.async, not wgmma and TMA. Its machine code says so (code.hopper), and part (c) is not timed; were it timed, (c)'s
// pass bar sits above what (b) reaches (0.33-0.37 of cuBLAS).
#define LAB07_HOPPER_OWN_KERNEL 0
#include "../attention.cu"
