// Known-bad (wrong/expect.json): the solution's v4 whose persistent schedule counts only the first column of tiles
// (N ≤ 256 right, every other column left as it was).
#define LAB03_V4_EVERY_TILE 0
#include "../tiling.cu"
