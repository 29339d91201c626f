/**
 * @file pipeline.hpp
 * @brief Two-stage pipelines with a fixed number of buffer slots: the closed form T_pipe, and a
 * discrete timeline with the "full" and "empty" event of every block (sections 5.1.5, 5.3.2, 5.5.1).
 *
 * Stage 1 (the mover: async copies into shared memory, or the host preparing a segment) fills slot
 * j mod S for block j, one block after another; stage 2 (the compute units, or the GPU) processes
 * the blocks in order once they are full. A slot is reused only after the block in it has been
 * processed. The same timeline models double buffering on an SM, host-side double buffering with
 * two streams and two events, and the host/device pipeline of Example 5-10.
 *
 * @code
 * using namespace gpulab::models;
 * pipeline_time_us(4, 1.29, 0.28);                      // 5.44
 * const PipelineTimeline t = simulate_pipeline(4, 1.29, 0.28, 2);
 * t.blocks[0].empty_us;                                 // 1.57: slot A is free ...
 * t.blocks[2].move_start_us;                            // 2.58: ... but the mover gets to it only here
 * @endcode
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "labs/models/occupancy.hpp"

namespace gpulab::models {

/**
 * @brief T_pipe = t_m + (n − 1)·max(t_m, t_c) + t_c: the first block's move, one slower stage per
 * further block, the last block's compute (enough slots, independent stages).
 * @param blocks n (≥ 1) @param move_us t_m, stage-1 time per block @param compute_us t_c, stage-2 time per block
 */
[[nodiscard]] double pipeline_time_us(std::int64_t blocks, double move_us, double compute_us);

/** @brief n · (t_m + t_c): one stage at a time. @param blocks n @param move_us t_m @param compute_us t_c */
[[nodiscard]] double serial_time_us(std::int64_t blocks, double move_us, double compute_us);

/**
 * @brief Time per block of the mover when @p in_flight blocks' moves overlap (Little's law): one move alone
 * takes @p alone_us from start to landing (its latency included), so k of them in flight deliver one block
 * per alone_us / k — until the memory's rate, one block per @p rate_us, caps it: max(rate_us, alone_us / k).
 * @param rate_us per-block time at the memory's rate (many in flight) @param alone_us one block's move with
 * nothing else in flight @param in_flight moves in flight (≥ 1)
 */
[[nodiscard]] double move_time_in_flight_us(double rate_us, double alone_us, int in_flight);

/**
 * @brief T_pipe of S slots on an SM whose mover keeps S − 1 blocks' moves in flight while one block is processed
 * (S = 1: nothing overlaps, n · (alone_us + compute_us)): pipeline_time_us() with the move time of
 * move_time_in_flight_us(rate_us, alone_us, S − 1). Two slots keep one move in flight, so its latency, not the
 * memory's rate, sets their pace whenever alone_us > compute_us.
 * @param blocks n (≥ 1) @param slots S (≥ 1) @param rate_us t_m at the memory's rate @param alone_us t_m with one
 * move in flight @param compute_us t_c
 */
[[nodiscard]] double slots_time_us(std::int64_t blocks, int slots, double rate_us, double alone_us, double compute_us);

/** @brief When one block moved and was processed. */
struct BlockTimes {
    int block = 0;              ///< block index
    int slot = 0;               ///< slot it occupies (block mod slots)
    double move_start_us = 0;   ///< stage 1 starts filling the slot
    double full_us = 0;         ///< the slot is full: the "full" event, stage 2 may start
    double compute_start_us = 0;  ///< stage 2 starts on it
    double empty_us = 0;        ///< stage 2 is done: the "empty" event, the slot may be refilled
    double slot_wait_us = 0;    ///< how long stage 1 waited for this slot to be emptied
};

/** @brief One "full" or "empty" event of the timeline. */
struct SlotEvent {
    double time_us = 0;  ///< when it fires
    std::string kind;    ///< "full" or "empty"
    int block = 0;       ///< the block
    int slot = 0;        ///< the slot
};

/** @brief A simulated pipeline. */
struct PipelineTimeline {
    std::vector<BlockTimes> blocks;  ///< per block, in order
    std::vector<SlotEvent> events;   ///< every full/empty event, by time
    double total_us = 0;             ///< the last block's empty event
    double serial_us = 0;            ///< sum of all stage times
    double move_busy_fraction = 0;   ///< stage 1 busy time / total
    double compute_busy_fraction = 0;  ///< stage 2 busy time / total
};

/**
 * @brief Simulates blocks with their own stage times (jitter, a long first move) through @p slots slots.
 * @param move_us stage-1 time of each block @param compute_us stage-2 time of each block (same length)
 * @param slots buffer slots (≥ 1; 1 serialises the stages)
 */
[[nodiscard]] PipelineTimeline simulate_pipeline(const std::vector<double>& move_us,
                                                 const std::vector<double>& compute_us, int slots);

/**
 * @brief Simulates @p blocks equal blocks. @param blocks n (≥ 1) @param move_us t_m @param compute_us t_c
 * @param slots buffer slots (≥ 1)
 */
[[nodiscard]] PipelineTimeline simulate_pipeline(std::int64_t blocks, double move_us, double compute_us, int slots);

/**
 * @brief Shared memory each of @p blocks_per_sm resident blocks may use: what the SM has minus one
 * reserve per block, shared evenly, and never more than the per-block maximum (RTX PRO 6000, two
 * blocks: (100 KB − 2 KiB) / 2 = 49 KiB).
 * @param sm the SM's limits @param blocks_per_sm resident blocks (≥ 1)
 */
[[nodiscard]] std::int64_t smem_budget_per_block_bytes(const SmLimits& sm, int blocks_per_sm);

/**
 * @brief Waiting slots of @p slot_bytes that fit next to @p fixed_bytes (e.g. reorder space) in
 * @p budget_bytes: ⌊(budget − fixed) / slot⌋, 0 when even the fixed part does not fit.
 * @param budget_bytes memory available @param fixed_bytes memory taken first @param slot_bytes one slot
 */
[[nodiscard]] std::int64_t slots_that_fit(std::int64_t budget_bytes, std::int64_t fixed_bytes, std::int64_t slot_bytes);

// ---- three stages: host-side chunking over copy and compute streams (sections 5.1.2–5.1.4, 5.3.2) ----

/** @brief Per-chunk times of a host → device → host pipeline: copy in, compute, copy out. */
struct StreamStages {
    double h2d_us = 0;     ///< one chunk's host-to-device copy
    double kernel_us = 0;  ///< one chunk's kernel
    double d2h_us = 0;     ///< one chunk's device-to-host copy
};

/** @brief Which stage sets the pace of a long pipeline: "h2d", "kernel" or "d2h" (the slowest; on a tie the
 *  earliest of the three). @param s per-chunk times */
[[nodiscard]] std::string stream_bottleneck(const StreamStages& s);

/** @brief n · (h2d + kernel + d2h): every chunk's three steps one after another, nothing overlapped.
 *  @param chunks n (≥ 1) @param s per-chunk times */
[[nodiscard]] double stream_serial_time_us(std::int64_t chunks, const StreamStages& s);

/**
 * @brief The end-to-end time of @p chunks chunks through three in-order engines — the copy-in engine, the
 * SMs, the copy-out engine — with @p slots device slots of an input and an output buffer each: chunk j uses
 * slot j mod slots; its copy in waits until the slot's previous chunk has been computed (the input buffer's
 * "compute done"), its kernel until that chunk has been copied out (the output buffer's "copy-out done").
 * With enough slots it is h2d + kernel + d2h + (n − 1) · max(h2d, kernel, d2h).
 * @param chunks n (≥ 1) @param s per-chunk times (≥ 0) @param slots device slots (≥ 1; 0: unlimited)
 */
[[nodiscard]] double stream_pipeline_time_us(std::int64_t chunks, const StreamStages& s, int slots = 0);

/**
 * @brief What a wait on an event that was never recorded does, as CUDA defines it (and as the H200 shows:
 * common_gpu_tests, "a wait on an event that was never recorded returns at once"): it is already complete,
 * so the waiting stream does not wait. @param recorded whether cudaEventRecord was ever called on it
 * @return true when the wait holds the stream back until the event's work completes
 */
[[nodiscard]] bool event_wait_blocks(bool recorded);

/**
 * @brief What goes wrong when a buffer's "used" event is never recorded and the next writer waits on it:
 * "hang" if such a wait never returned, "race" if the writer goes ahead while the last user may still read
 * (whether corruption shows then depends on timing). CUDA: "race".
 */
[[nodiscard]] std::string missing_used_event_effect();

}  // namespace gpulab::models
