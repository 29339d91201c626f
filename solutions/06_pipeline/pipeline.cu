// Lab 06 solution. What each variant does, and why:
// (a) One slot: every thread copies its pieces of the tile into shared memory, a barrier makes the whole
//     tile visible, the math reads it, and a second barrier keeps the next copy from overwriting values a
//     slower warp still reads. Copy and math never overlap: T · (t_m + t_c).
// (d) Warp specialization (sm_90): a producer warp issues one bulk copy per tile, the computing warps only
//     compute; per slot a "full" barrier (armed with the tile's byte count, completed by the copy itself) and
//     an "empty" barrier (kThreads arrivals). Phases alternate 0, 1, 0, ...: the wait for round r of a slot
//     uses parity r & 1, and the producer's first wait on "empty" (parity 1, the phase before the first) passes.
// (b)/(c) S slots with asynchronous copies (cp.async through <cuda_pipeline.h>): the copies of the next
//     S − 1 tiles are in flight while this tile's math runs. One commit group per tile, committed even when
//     empty, keeps the count regular: before tile j's math, at most S − 1 groups may be pending. The
//     barrier after the math is the "empty" signal: only then may a copy overwrite that slot. Two slots are
//     enough to overlap; more keep more bytes in flight when one copy's latency exceeds one tile's math.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_pipeline.h>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "pipeline.hpp"
#include "bulk.cuh"
#include "pipeline_math.cuh"

namespace {

__global__ void one_slot_kernel(Work w) {
    __shared__ alignas(16) uint4 slot[kTileChunks];
    const auto* in = reinterpret_cast<const uint4*>(w.in);
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        const TileSpan t = tile_span(w, blockIdx.x, j);
        // All of this thread's loads first, then the stores: four loads in flight, not one round trip each.
        constexpr int kPer = kTileChunks / kThreads;
        uint4 v[kPer];
#pragma unroll
        for (int k = 0; k < kPer; ++k)
            if ((threadIdx.x + k * kThreads) * 8 < t.count) v[k] = in[t.first / 8 + threadIdx.x + k * kThreads];
        mark(w, j, kLoadIssued);  // (the timeline's stamps: free unless the bench asks for them)
#pragma unroll
        for (int k = 0; k < kPer; ++k)
            if ((threadIdx.x + k * kThreads) * 8 < t.count) slot[threadIdx.x + k * kThreads] = v[k];
        __syncthreads();  // the tile is in ("full")
        mark(w, j, kTileReady);
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slot), t.count, w.iters, acc);
        mark(w, j, kMathDone);
        __syncthreads();  // every warp is done with it ("empty")
    }
    write_block_sum(acc, w.out);
}

// Issues this thread's asynchronous copies of tile j into `slot` (nothing past the end of the work).
__device__ __forceinline__ void copy_async(const Work& w, int j, uint4* slot) {
    const TileSpan t = tile_span(w, blockIdx.x, j);
    const auto* in = reinterpret_cast<const uint4*>(w.in);
    for (int c = threadIdx.x; c * 8 < t.count; c += kThreads) __pipeline_memcpy_async(slot + c, in + t.first / 8 + c, 16);
    mark(w, j, kLoadIssued);
}

template <int S>
__global__ void stages_kernel(Work w) {
    extern __shared__ uint4 slots[];  // S slots of kTileChunks pieces
    float acc = 0.0f;
    // Fill the pipeline: tiles 0 … S − 2, one commit group each.
    for (int s = 0; s < S - 1; ++s) {
        copy_async(w, s, slots + s * kTileChunks);
        __pipeline_commit();
    }
    for (int j = 0; j < w.tiles_per_block; ++j) {
        // Tile j + S − 1 goes into the slot tile j − 1 used: its "empty" barrier was the end of the last round.
        const int next = j + S - 1;
        copy_async(w, next, slots + (next % S) * kTileChunks);
        __pipeline_commit();
        __pipeline_wait_prior(S - 1);  // tile j's group is done; up to S − 1 newer ones may still fly
        __syncthreads();               // ... and every thread's part of it ("full")
        mark(w, j, kTileReady);
        const TileSpan t = tile_span(w, blockIdx.x, j);
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slots + (j % S) * kTileChunks), t.count, w.iters, acc);
        mark(w, j, kMathDone);
        __syncthreads();  // "empty": the next round may overwrite this slot
    }
    write_block_sum(acc, w.out);
}

// Launches Kernel with S slots of dynamic shared memory in blocks of `threads`. Above 48 KiB a kernel must opt in;
// once per kernel, so that nothing but the launch sits between timing events.
template <auto Kernel, int S>
void launch_with_slots(int threads, const Work& w, cudaStream_t stream) {
    constexpr int bytes = S * kTileChunks * 16;
    static const bool opted_in = [] {
        CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        return true;
    }();
    (void)opted_in;
    Kernel<<<blocks_of(w), threads, bytes, stream>>>(w);
    LABS_CHECK_LAUNCH();
}

template <int S>
void launch_stages_of(const Work& w, cudaStream_t stream) {
    launch_with_slots<stages_kernel<S>, S>(kThreads, w, stream);
}

template <int S>
__global__ void producer_kernel(Work w) {
    extern __shared__ __align__(128) uint4 slots[];  // S slots of kTileChunks pieces
    __shared__ __align__(8) std::uint64_t full[S], empty[S];
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; ++s) {
            mbar_init(&full[s], 1);               // the producer's arming arrival (+ the copy's bytes)
            mbar_init(&empty[s], kThreads);       // every computing thread
        }
        mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x >= kThreads) {  // the producer warp: one lane issues
        if (threadIdx.x == kThreads) {
            for (int j = 0; j < w.tiles_per_block; ++j) {
                const int s = j % S;
                const TileSpan t = tile_span(w, blockIdx.x, j);
                mbar_wait(&empty[s], ((j / S) & 1) ^ 1);  // the slot's last reader is done (passes in round 0)
                const unsigned bytes = static_cast<unsigned>(t.count) * 2u;
                mbar_arrive_expect_bytes(&full[s], bytes);
                if (bytes > 0) bulk_copy(slots + s * kTileChunks, w.in + t.first, bytes, &full[s]);
                mark(w, j, kLoadIssued);
            }
        }
        return;  // the computing threads' barriers are named: the producer does not join them
    }
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        const int s = j % S;
        mbar_wait(&full[s], (j / S) & 1);  // the tile has landed
        mark(w, j, kTileReady);
        const TileSpan t = tile_span(w, blockIdx.x, j);
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slots + s * kTileChunks), t.count, w.iters, acc);
        mark(w, j, kMathDone);
        mbar_arrive(&empty[s]);  // done with it
    }
    write_block_sum(acc, w.out);
}

template <int S>
void launch_producer_of(const Work& w, cudaStream_t stream) {
    launch_with_slots<producer_kernel<S>, S>(kThreads + 32, w, stream);  // the computing warps and the producer warp
}

}  // namespace

void launch_one_slot(const Work& w, cudaStream_t stream) {
    one_slot_kernel<<<blocks_of(w), kThreads, 0, stream>>>(w);
    LABS_CHECK_LAUNCH();
}

void launch_two_slots(const Work& w, cudaStream_t stream) { launch_stages_of<2>(w, stream); }

void launch_stages(int stages, const Work& w, cudaStream_t stream) {
    if (!gpulab::with_constant<1, 2, 3, 4, 5, 6>(stages, [&]<int S>() { launch_stages_of<S>(w, stream); }))
        throw std::invalid_argument("launch_stages: stages must be 1 … 6, not " + std::to_string(stages));
}

void launch_producer(int stages, const Work& w, cudaStream_t stream) {
    if (!gpulab::with_constant<2, 3, 4, 5, 6>(stages, [&]<int S>() { launch_producer_of<S>(w, stream); }))
        throw std::invalid_argument("launch_producer: stages must be 2 … 6, not " + std::to_string(stages));
}
