// Known-bad (wrong/expect.json): the solution without the barrier after a tile's math in the stage kernels, so
// the next round's copy may overwrite a slot a slower warp still reads. Often right by luck; racecheck sees it
// every time.
#define LAB06_DEFECT no_empty_barrier
#include "stage_defect.cuh"
