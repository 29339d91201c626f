// Known-bad (wrong/expect.json): rows 33 elements apart, but kElements left at 32 · 32: the last rows of the
// tile would lie past the end of shared memory. The host check names the first offset outside the tile,
// and nothing runs through the layout on the GPU (a stray shared-memory index could end the process); the
// swizzled variants, right, still pass.
#include "transpose.cuh"

struct PaddedLayout {
    static constexpr int kElements = 32 * 32;
    __host__ __device__ static constexpr int offset(int r, int c) { return r * 33 + c; }
};
WRONG_RIGHT_SWIZZLED()
struct SwizzledLayoutBf16 : SwizzledLayout {};

WRONG_LAUNCHERS()
