// Known-bad (wrong/expect.json): __launch_bounds__(256, 4): the compiler stays at 64 registers, and 4 blocks
// fit — more than the given kernel's 2, but the registers still set the count below what shared memory allows.
#define WRONG_BOUNDS
#include "parts.cuh"

__global__ void __launch_bounds__(kTiledThreads, 4) tiled_bounded(const float* a, const float* b, float* c, int n) {
    tiled_gemm_body(a, b, c, n);
}
