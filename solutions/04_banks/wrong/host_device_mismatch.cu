// Known-bad (wrong/expect.json): layouts that are right on the host, where the grader's bank model reads
// them, and plain in device code (#ifdef __CUDA_ARCH__), where the kernels run. The host checks pass; the
// clock64 probe, the counted conflicts and the bandwidth show the plain layout's column reads.
#include "transpose.cuh"

#ifdef __CUDA_ARCH__
#define DEVICE_SIDE 1
#else
#define DEVICE_SIDE 0
#endif

struct PaddedLayout {
    static constexpr int kElements = 32 * 33;
    __host__ __device__ static constexpr int offset(int r, int c) { return DEVICE_SIDE ? r * 32 + c : r * 33 + c; }
};
struct SwizzledLayout {
    static constexpr int kElements = 32 * 32;
    __host__ __device__ static constexpr int offset(int r, int c) { return DEVICE_SIDE ? r * 32 + c : r * 32 + (c ^ r); }
};
struct SwizzledLayoutBf16 : SwizzledLayout {};

WRONG_LAUNCHERS()
