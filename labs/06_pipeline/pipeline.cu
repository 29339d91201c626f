// Lab 06 — THE FILE YOU EDIT. Read labs/06_pipeline/README.md first.
//
// Goal: stream each block's tiles (tile_span) through shared memory and consume them (consume_tile), four ways,
// each graded on its own: (a) one slot, (b) two slots with asynchronous copies, (c) S stages, (d) on sm_90 a
// producer warp with bulk copies and transaction barriers. Every variant must give the baseline's bits: end each
// block with write_block_sum (pipeline_math.cuh). mark(w, j, ...) stamps the bench's timeline: call it where
// the comments say (it costs nothing unless the bench asks for a timeline).
//
// Untouched, this file compiles, runs and scores 0: the kernels below are skeletons and the launchers launch
// nothing.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_pipeline.h>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "bulk.cuh"
#include "pipeline.hpp"
#include "pipeline_math.cuh"

namespace {

// ---- (a) one slot ----------------------------------------------------------------------------------------

__global__ void one_slot_kernel(Work w) {
    __shared__ alignas(16) uint4 slot[kTileChunks];  // one tile: kTileChunks 16-byte pieces
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        const TileSpan t = tile_span(w, blockIdx.x, j);
        // TODO(student) (a): copy tile j's pieces (t.first / 8 …, t.count values: nothing past it) into `slot`,
        // kThreads threads, 16 bytes each at a time. Issue all of a thread's loads before its stores.
        mark(w, j, kLoadIssued);
        // TODO(student) (a): the barrier that makes the whole tile visible ("full").
        mark(w, j, kTileReady);
        // TODO(student) (a): acc = consume_tile(the slot as BF16, t.count, w.iters, acc);
        mark(w, j, kMathDone);
        // TODO(student) (a): the barrier that keeps the next tile's copy off values a slower warp still reads
        // ("empty").
        gpulab::unused(t);
    }
    write_block_sum(acc, w.out);
}

// ---- (b), (c) S slots, asynchronous copies ---------------------------------------------------------------

// TODO(student) (b): issue this thread's asynchronous copies of tile j into `slot` (__pipeline_memcpy_async,
// 16 bytes each; nothing past the end of the work: a tile past the block's last has count 0), then
// mark(w, j, kLoadIssued).
__device__ __forceinline__ void copy_async(const Work& w, int j, uint4* slot) { gpulab::unused(w, j, slot); }

// S slots of dynamic shared memory. Keep the number of commit groups regular (one per tile, committed even
// when it holds no copy), so that "tile j has landed" is always "at most S − 1 groups are still pending".
template <int S>
__global__ void stages_kernel(Work w) {
    extern __shared__ uint4 slots[];  // S slots of kTileChunks pieces
    float acc = 0.0f;
    // TODO(student) (c): fill the pipeline: the copies of tiles 0 … S − 2, one commit group each.
    for (int j = 0; j < w.tiles_per_block; ++j) {
        // TODO(student) (c): issue tile j + S − 1's copy into the slot it will use (which slot is free now?),
        // commit; wait until tile j's group is done (__pipeline_wait_prior), then the barrier that makes every
        // thread's part of it visible.
        mark(w, j, kTileReady);
        // TODO(student) (c): consume tile j from its slot.
        mark(w, j, kMathDone);
        // TODO(student) (c): the "empty" barrier: only after it may a copy overwrite this slot.
    }
    gpulab::unused(slots);
    write_block_sum(acc, w.out);
}

// Launches Kernel with S slots (S · 16 KiB of dynamic shared memory) in blocks of `threads`.
template <auto Kernel, int S>
void launch_with_slots(int threads, const Work& w, cudaStream_t stream) {
    // TODO(student) (b): above 48 KiB of dynamic shared memory a kernel must opt in
    // (cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)): do it once per
    // kernel, not before every launch. Then launch blocks_of(w) blocks and LABS_CHECK_LAUNCH().
    gpulab::unused(threads, w, stream, Kernel);
}

// ---- (d) a producer warp, bulk copies, transaction barriers (sm_90) ---------------------------------------

// kThreads computing threads and one producer warp (threads kThreads … kThreads + 31).
template <int S>
__global__ void producer_kernel(Work w) {
    extern __shared__ __align__(128) uint4 slots[];  // S slots of kTileChunks pieces
    __shared__ __align__(8) std::uint64_t full[S], empty[S];
    // TODO(student) (d): one thread initialises every slot's barriers (mbar_init: "full" counts the producer's
    // one arming arrival, "empty" every computing thread) and fences them (mbar_init_fence); then a barrier
    // of the whole block.
    if (threadIdx.x >= kThreads) {
        // TODO(student) (d): the producer warp; one lane, for each tile j of the block: wait until its slot is
        // empty (mbar_wait on the parity of the slot's previous round — in round 0 the wait must pass), arm
        // "full" with the tile's bytes (mbar_arrive_expect_bytes), start the bulk copy (bulk_copy; none for 0
        // bytes), mark(w, j, kLoadIssued).
        return;  // the producer joins none of the computing threads' barriers
    }
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        // TODO(student) (d): wait for the slot's "full" phase of this round (which parity?).
        mark(w, j, kTileReady);
        // TODO(student) (d): consume tile j from its slot.
        mark(w, j, kMathDone);
        // TODO(student) (d): tell the producer the slot is free (mbar_arrive on "empty").
    }
    gpulab::unused(slots, full, empty);
    write_block_sum(acc, w.out);
}

}  // namespace

void launch_one_slot(const Work& w, cudaStream_t stream) {
    // TODO(student) (a): launch one_slot_kernel, blocks_of(w) blocks of kThreads, on `stream`, then
    // LABS_CHECK_LAUNCH(). Do not synchronise.
    gpulab::unused(w, stream, &one_slot_kernel);
}

void launch_two_slots(const Work& w, cudaStream_t stream) {
    // TODO(student) (b): two slots are stages_kernel<2> (or a kernel of its own): launch_with_slots<...>.
    gpulab::unused(w, stream, &stages_kernel<2>, &copy_async);
}

void launch_stages(int stages, const Work& w, cudaStream_t stream) {
    // TODO(student) (c): dispatch stages = 1 … kMaxStages to stages_kernel<S> (gpulab::with_constant in
    // labs/launch.hpp turns a run-time value into a template argument); throw std::invalid_argument otherwise.
    gpulab::unused(stages, w, stream);
}

void launch_producer(int stages, const Work& w, cudaStream_t stream) {
    // TODO(student) (d): dispatch stages = 2 … kMaxStages to producer_kernel<S> in blocks of kThreads + 32
    // threads (the computing warps and the producer warp); throw std::invalid_argument otherwise.
    gpulab::unused(stages, w, stream, &producer_kernel<2>);
}
