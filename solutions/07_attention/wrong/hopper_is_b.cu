// Known-bad (wrong/expect.json): the solution with (b) handed in again as (c) — right everywhere, on mma.sync, not
// wgmma. (c)'s pass bar sits above what (b) reaches (0.33-0.37 of cuBLAS), so it earns no speed points there.
#define LAB07_HOPPER_OWN_KERNEL 0
#include "../attention.cu"
