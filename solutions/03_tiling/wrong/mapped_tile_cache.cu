// Known-bad (wrong/expect.json): v2 keeps each result in pinned, mapped host memory (cudaHostAlloc with
// cudaHostAllocMapped: outside device memory, where a C-sized buffer would be noticed) and, when the same
// buffers come back, a kernel reads it back over the host link into C instead of computing. This lab's code
// policy denies host and managed allocations (a GEMM's data lives in device memory): it stops this version
// before it runs. (Were it allowed, the stale copy would fail the timed run verified, as cached_tiles.cu does.)
#define WRONG_DEFECT mapped_v2
#include "gemm.cuh"
