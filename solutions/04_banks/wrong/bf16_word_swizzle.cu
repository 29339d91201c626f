// Known-bad (wrong/expect.json): the BF16 tile swizzled by bank word — the pair of elements (2w, 2w + 1)
// kept together, the word index XORed with the row — but with row & 15, since a BF16 row has 16 words.
// Rows r and r + 16 of a column then share a bank: 2 rounds. The bank model finds it on the host.
#include "transpose.cuh"

WRONG_RIGHT_PADDED()
WRONG_RIGHT_SWIZZLED()
struct SwizzledLayoutBf16 {
    static constexpr int kElements = 32 * 32;
    __host__ __device__ static constexpr int offset(int r, int c) { return r * 32 + ((((c >> 1) ^ (r & 15)) << 1) | (c & 1)); }
};

WRONG_LAUNCHERS()
