// Known-bad (wrong/expect.json): the solution's (c) whose causal blocks stop before the key tile that holds their
// diagonal — the tile a causal mask must compute, partly masked — so every row but the first tile's loses its nearest
// keys (itself among them). Non-causal shapes and the first query tile are right.
#define LAB07_HOPPER_DIAGONAL_TILE 0
#include "../attention.cu"
