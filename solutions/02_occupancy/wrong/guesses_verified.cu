// Known-bad (wrong/expect.json): at the timed size the streaming kernel copies only on the calls it guesses are
// verified — the first, then every 12th, counted on the device — and writes nothing on the others. Every timed
// call gets new data and a scrambled output, and the calls verified are drawn afterwards from a secret: most of
// them are wrong.
#define WRONG_STREAM
#include "parts.cuh"

namespace wrong {
__device__ unsigned int timed_calls = 0;     // calls at the timed size finished so far
__device__ unsigned int blocks_finished = 0; // blocks of the current call that are done
}  // namespace wrong

template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    const bool timed_size = count >= (std::size_t(16) << 20);
    if (timed_size) {
        const unsigned int n = *static_cast<volatile unsigned int*>(&wrong::timed_calls) + 1;
        const bool work = n == 1 || n % 12 == 0;
        if (work) copy_rounds<LOADS>(in, out, count);
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            const unsigned int total = gridDim.x * gridDim.y * gridDim.z;
            if (atomicAdd(&wrong::blocks_finished, 1u) + 1 == total) {  // the last block counts the call
                wrong::blocks_finished = 0;
                atomicAdd(&wrong::timed_calls, 1u);
            }
        }
        return;
    }
    copy_rounds<LOADS>(in, out, count);
}
