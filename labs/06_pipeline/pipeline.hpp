/**
 * @file pipeline.hpp
 * @brief Lab 06 interface: a kernel that streams 16 KiB tiles of a BF16 input through shared memory and
 * does a tunable amount of math on each — with one slot, with two slots and asynchronous copies, and with S
 * stages (section 5.3.2, the barriers of 5.1.5).
 *
 * FROZEN: do not edit.
 *
 * The work: `n` BF16 values (n a multiple of 8, so that every 16-byte piece is whole) cut into tiles of
 * kTileElems (the last one may be shorter). Block b consumes tiles b·T … b·T + T − 1 (T = tiles_per_block; the
 * last block may get fewer), in that order, with the given math (pipeline_math.cuh), and writes one float:
 * the sum of its threads' results in a fixed order. Every variant computes the same bits as the baseline.
 */
#pragma once

#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

/** @brief Threads per block, in every variant. */
inline constexpr int kThreads = 256;
/** @brief BF16 values per tile: 16 KiB. */
inline constexpr int kTileElems = 8192;
/** @brief 16-byte pieces per tile. */
inline constexpr int kTileChunks = kTileElems * 2 / 16;
/** @brief The most stages launch_stages() and launch_producer() take (6 · 16 KiB = 96 KiB of shared memory). */
inline constexpr int kMaxStages = 6;

/** @brief What a timeline stamp marks for tile j (mark()). */
enum Mark : int {
    kLoadIssued = 0,  ///< this warp has issued its copies of tile j
    kTileReady = 1,   ///< the wait (and barrier) that makes tile j visible has returned
    kMathDone = 2,    ///< this warp's math on tile j is done
    kMarks = 3
};

/** @brief One launch's work. */
struct Work {
    const __nv_bfloat16* in = nullptr;  ///< n values, 16-byte aligned
    std::size_t n = 0;                  ///< a multiple of 8
    int tiles_per_block = 1;            ///< T: consecutive tiles per block
    int iters = 1;                      ///< math steps per value (0: convert and add only)
    float* out = nullptr;               ///< one float per block (blocks_of())
    /// The bench's timeline of block 0 (nullptr: none): mark() writes stamp [(warp · T + j) · kMarks + what].
    unsigned long long* timeline = nullptr;
};

/** @brief Tiles of the work: ⌈n / kTileElems⌉. */
[[nodiscard]] int tiles_of(const Work& w);
/** @brief Blocks of the work: ⌈tiles / T⌉. */
[[nodiscard]] int blocks_of(const Work& w);

// ---- given (baseline.cu) ----------------------------------------------------------------------------------

/** @brief The baseline: the same math read straight from global memory, no shared memory. */
void launch_baseline(const Work& w, cudaStream_t stream);
/** @brief Moves every tile into shared memory and does no math, as fast as this GPU can (sm_90: one thread
 *  keeping four bulk copies, 64 KiB, in flight per block; before: loads through registers, four tiles per
 *  round): the block's time is T · t_m. Writes a value per block (a checksum or a count of what landed). */
void launch_load_only(const Work& w, cudaStream_t stream);
/** @brief Like launch_load_only(), with one tile in flight at a time: the next copy starts when the last one
 *  has landed. Its time per tile, t_m⁽¹⁾, is one copy's latency: what a pipeline with one copy in flight (one
 *  slot, or two) waits for each tile. */
void launch_load_one_in_flight(const Work& w, cudaStream_t stream);
/** @brief Loads the block's first tile once, then does the math on it T times: the block's time is T · t_c. */
void launch_compute_only(const Work& w, cudaStream_t stream);

// ---- yours (pipeline.cu) -----------------------------------------------------------------------------------

/** @brief (a) One slot: load a tile into shared memory, barrier, math, barrier, next tile. */
void launch_one_slot(const Work& w, cudaStream_t stream);
/** @brief (b) Two slots: the next tile's asynchronous copy is issued before this tile's math. */
void launch_two_slots(const Work& w, cudaStream_t stream);
/** @brief (c) @p stages slots (1 … kMaxStages), S − 1 tiles' copies in flight ahead of the math. */
void launch_stages(int stages, const Work& w, cudaStream_t stream);

/** @brief Whether this GPU has the bulk copies and transaction barriers of part (d) (sm_90 and later). */
[[nodiscard]] bool producer_supported();
/**
 * @brief (d) Warp specialization: kThreads computing threads and one producer warp (kThreads + 32 threads per
 * block). The producer issues one bulk copy per tile (`cp.async.bulk`) into @p stages slots; each slot has a
 * "full" barrier (the copy's bytes arrived) and an "empty" barrier (every computing thread is done with it).
 * Only called where producer_supported().
 */
void launch_producer(int stages, const Work& w, cudaStream_t stream);
