// Known-bad (wrong/expect.json): the solution's two slots beside a one slot made slow on purpose (one 16-byte
// piece per round trip, then a pause). The speed-up is taken over the model's serial time instead, so it gains
// nothing.
#include "pipeline.hpp"

#define launch_one_slot solution_launch_one_slot
#include "../pipeline.cu"
#undef launch_one_slot

namespace wrong {

__global__ void slow_one_slot_kernel(Work w) {
    float acc = 0.0f;
    __shared__ alignas(16) uint4 slot[kTileChunks];
    for (int j = 0; j < w.tiles_per_block; ++j) {
        const TileSpan t = tile_span(w, blockIdx.x, j);
        for (int c = threadIdx.x; c * 8 < t.count; c += kThreads) {
            slot[c] = reinterpret_cast<const uint4*>(w.in)[t.first / 8 + c];
            __threadfence_block();  // the defect: each piece waits for the one before it ...
            __nanosleep(200);       // ... and then idles
        }
        __syncthreads();
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slot), t.count, w.iters, acc);
        __syncthreads();
    }
    write_block_sum(acc, w.out);
}

}  // namespace wrong

void launch_one_slot(const Work& w, cudaStream_t stream) {
    wrong::slow_one_slot_kernel<<<blocks_of(w), kThreads, 0, stream>>>(w);
    LABS_CHECK_LAUNCH();
}
