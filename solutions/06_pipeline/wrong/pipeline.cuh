// Known-bad versions of pipeline.cu (wrong/expect.json), each one a few knobs over this one implementation.
// A file sets every knob, then includes this. Knobs:
//   kEmptyBarrier   the stage kernels' barrier after a tile's math ("empty"); false: a slot may be refilled
//                   while a slower warp still reads it
//   kWaitSlack      added to the depth the stage kernels wait to (S − 1 + slack groups may still fly): 1 reads a
//                   tile before its copy is sure to have landed
//   kTwoSlotsWait0  two slots that wait for every copy right after issuing it: correct, and nothing overlaps
//   kSlowOneSlot    a one slot that copies one 16-byte piece per round trip and then idles: a slow baseline
//                   that must not inflate the two-slot speed-up
//   kProducerAsStages  launch_producer runs the stage kernel: no producer warp
//   kTwoSlotsBaseline  launch_two_slots runs the given baseline: right bits, not the student's kernel
//   kToolAware      the stage kernels drop the empty barrier unless the process looks like it runs under a tool
//                   (a probe kernel takes far longer than it should): clean under the sanitizer, racy when graded
//   kSkipRepeats    launch_stages remembers the large calls it made (input, output, size, stages) and launches
//                   nothing when one comes again: the output still holds last time's sums — right while the
//                   input is the same, stale once it changes
//   kGuessVerified  launch_stages works on the large calls it guesses are verified (the first on a set of
//                   buffers, then every 12th, where a grader that checks fixed calls would look) and launches
//                   nothing on the others
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <stdexcept>

#include <cuda_pipeline.h>

#include "bulk.cuh"
#include "labs/cuda_check.hpp"
#include "pipeline.hpp"
#include "pipeline_math.cuh"
#include "tool_probe.cuh"

namespace {

__global__ void one_slot_kernel(Work w) {
    __shared__ alignas(16) uint4 slot[kTileChunks];
    const auto* in = reinterpret_cast<const uint4*>(w.in);
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        const TileSpan t = tile_span(w, blockIdx.x, j);
        for (int c = threadIdx.x; c * 8 < t.count; c += kThreads) {
            slot[c] = in[t.first / 8 + c];
            if (kSlowOneSlot) {
                __threadfence_block();
                __nanosleep(200);
            }
        }
        __syncthreads();
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slot), t.count, w.iters, acc);
        __syncthreads();
    }
    write_block_sum(acc, w.out);
}

__device__ __forceinline__ void copy_tile_async(const Work& w, int j, uint4* slot) {
    const TileSpan t = tile_span(w, blockIdx.x, j);
    const auto* in = reinterpret_cast<const uint4*>(w.in);
    for (int c = threadIdx.x; c * 8 < t.count; c += kThreads) __pipeline_memcpy_async(slot + c, in + t.first / 8 + c, 16);
    __pipeline_commit();
}

template <int S, bool kWait0, bool kBarrier>
__global__ void stages_kernel(Work w) {
    extern __shared__ uint4 slots[];
    float acc = 0.0f;
    for (int s = 0; s < S - 1; ++s) copy_tile_async(w, s, slots + s * kTileChunks);
    for (int j = 0; j < w.tiles_per_block; ++j) {
        copy_tile_async(w, j + S - 1, slots + ((j + S - 1) % S) * kTileChunks);
        if (kWait0) __pipeline_wait_prior(0);
        else __pipeline_wait_prior(S - 1 + kWaitSlack);
        __syncthreads();
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slots + (j % S) * kTileChunks),
                           tile_span(w, blockIdx.x, j).count, w.iters, acc);
        if (kBarrier) __syncthreads();
    }
    write_block_sum(acc, w.out);
}

template <int S>
__global__ void producer_kernel(Work w) {
    extern __shared__ __align__(128) uint4 slots[];
    __shared__ __align__(8) std::uint64_t full[S], empty[S];
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], kThreads);
        mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x >= kThreads) {
        if (threadIdx.x == kThreads)
            for (int j = 0; j < w.tiles_per_block; ++j) {
                const TileSpan t = tile_span(w, blockIdx.x, j);
                mbar_wait(&empty[j % S], ((j / S) & 1) ^ 1);
                mbar_arrive_expect_bytes(&full[j % S], unsigned(t.count) * 2u);
                if (t.count > 0) bulk_copy(slots + (j % S) * kTileChunks, w.in + t.first, unsigned(t.count) * 2u, &full[j % S]);
            }
        return;
    }
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        mbar_wait(&full[j % S], (j / S) & 1);
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slots + (j % S) * kTileChunks),
                           tile_span(w, blockIdx.x, j).count, w.iters, acc);
        mbar_arrive(&empty[j % S]);
    }
    write_block_sum(acc, w.out);
}

template <typename Kernel>
void launch_with_smem(Kernel kernel, int threads, int bytes, const Work& w, cudaStream_t stream) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<blocks_of(w), threads, bytes, stream>>>(w);
    LABS_CHECK_LAUNCH();
}

template <bool kWait0, bool kBarrier, int... S>
void stages_of(int stages, const Work& w, cudaStream_t stream, std::integer_sequence<int, S...>) {
    const bool found = ((stages == S + 1 ? (launch_with_smem(stages_kernel<S + 1, kWait0, kBarrier>, kThreads, (S + 1) * kTileChunks * 16, w, stream), true) : false) || ...);
    if (!found) throw std::invalid_argument("launch_stages: stages must be 1 … 6");
}

template <int... S>
void producer_of(int stages, const Work& w, cudaStream_t stream, std::integer_sequence<int, S...>) {
    const bool found = ((stages == S + 1 && S > 0 ? (launch_with_smem(producer_kernel<S + 1>, kThreads + 32, (S + 1) * kTileChunks * 16, w, stream), true) : false) || ...);
    if (!found) throw std::invalid_argument("launch_producer: stages must be 2 … 6");
}

bool empty_barrier() { return kEmptyBarrier || (kToolAware && known_bad::looks_like_a_tool()); }

template <bool kWait0>
void stages_with_barrier_or_not(int stages, const Work& w, cudaStream_t stream) {
    if (empty_barrier()) stages_of<kWait0, true>(stages, w, stream, std::make_integer_sequence<int, kMaxStages>{});
    else stages_of<kWait0, false>(stages, w, stream, std::make_integer_sequence<int, kMaxStages>{});
}

}  // namespace

void launch_one_slot(const Work& w, cudaStream_t stream) {
    one_slot_kernel<<<blocks_of(w), kThreads, 0, stream>>>(w);
    LABS_CHECK_LAUNCH();
}

void launch_stages(int stages, const Work& w, cudaStream_t stream) {
    if (kSkipRepeats && w.n >= (std::size_t(1) << 24)) {  // only the timed runs' size: every smaller check runs
        static std::set<std::tuple<const void*, const void*, std::size_t, int, int>> seen;
        if (!seen.insert({w.in, w.out, w.n, w.iters, stages}).second) return;
    }
    if (kGuessVerified && w.n >= (std::size_t(1) << 24)) {
        static std::map<std::tuple<const void*, const void*, std::size_t, int, int>, int> calls;
        const int n = ++calls[{w.in, w.out, w.n, w.iters, stages}];
        if (n != 1 && n % 12 != 0) return;
    }
    stages_with_barrier_or_not<false>(stages, w, stream);
}

void launch_two_slots(const Work& w, cudaStream_t stream) {
    if (kTwoSlotsBaseline) return launch_baseline(w, stream);
    stages_with_barrier_or_not<kTwoSlotsWait0>(2, w, stream);
}

void launch_producer(int stages, const Work& w, cudaStream_t stream) {
    if (kProducerAsStages) return launch_stages(stages, w, stream);
    producer_of(stages, w, stream, std::make_integer_sequence<int, kMaxStages>{});
}
