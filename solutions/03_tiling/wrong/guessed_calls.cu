// Known-bad (wrong/expect.json): v2 computes only the calls it guesses are verified — the first on a set of
// buffers, then every 12th — and launches nothing on the others. Every timed call gets new inputs and a scrambled
// C, and the calls verified are drawn afterwards from a secret: most of them are wrong.
#define WRONG_DEFECT guessed_v2
#include "gemm.cuh"
