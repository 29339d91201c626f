/**
 * @file launch.hpp
 * @brief What the host submits and what the device runs: eager launches vs graph replay vs fusion,
 * when copying a graph's inputs cancels the replay's saving, and a persistent kernel that overlaps
 * a projection and its activation block by block (sections 5.5.1, 5.5.2, 5.5.4).
 *
 * @code
 * using namespace gpulab::models;
 * launch_counts(3, 6, true);                            // {3 host submissions, 18 device kernels}
 * const GraphReplay g = graph_replay({20, 20, 5, 2 * kMiB, 1792});
 * // g.graph_us ≈ 27.3, to_mib(g.break_even_input_bytes) ≈ 12.8
 * @endcode
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace gpulab::models {

/** @brief Host submissions and device kernels. */
struct LaunchCounts {
    std::int64_t host_submissions = 0;  ///< kernel launches or graph launches the host makes
    std::int64_t device_kernels = 0;    ///< kernels the device runs
};

/**
 * @brief Counts for @p runs runs of a sequence of @p kernels_per_run kernels, launched one by one
 * or replayed as one graph per run.
 * @param runs runs of the sequence @param kernels_per_run kernels in the sequence @param graph_replay one graph launch per run
 */
[[nodiscard]] LaunchCounts launch_counts(std::int64_t runs, std::int64_t kernels_per_run, bool graph_replay);

/** @brief One of the four ways to run the same work. */
struct LaunchVariant {
    std::string name;     ///< "eager", "graph", "fused", "fused+graph"
    LaunchCounts counts;  ///< what it submits and runs
};

/**
 * @brief Eager, graph, fused and fused+graph counts for @p runs runs (FFN: 6 kernels, 5 after fusing
 * the activation chain).
 * @param runs runs @param kernels_per_run kernels unfused @param fused_kernels_per_run kernels after fusion
 */
[[nodiscard]] std::array<LaunchVariant, 4> launch_variants(std::int64_t runs, std::int64_t kernels_per_run,
                                                           std::int64_t fused_kernels_per_run);

/** @brief Example 5-11's inputs. */
struct GraphReplayInput {
    double compute_us = 20;      ///< device work of one step
    double host_wait_us = 20;    ///< eager: time the device waits for the host's submissions
    double graph_prep_us = 5;    ///< graph: replay launch and metadata preparation
    double input_bytes = 0;      ///< new input copied into the graph's captured buffer
    double bandwidth_gbps = 0;   ///< copy bandwidth (reads and writes share it)
};

/** @brief Eager vs graph with the input copy. */
struct GraphReplay {
    double eager_us = 0;              ///< compute + host wait
    double graph_without_copy_us = 0;  ///< graph prep + compute
    double saving_without_copy_us = 0; ///< eager − graph without copy
    double copy_bytes = 0;            ///< 2 · input (read the source, write the captured buffer)
    double copy_us = 0;               ///< copy_bytes / bandwidth
    double graph_us = 0;              ///< graph without copy + copy
    double saving_us = 0;             ///< eager − graph (negative: the replay loses)
    double break_even_input_bytes = 0;  ///< input size at which the copy eats the whole saving
};

/** @brief Example 5-11 for @p in. @param in the inputs */
[[nodiscard]] GraphReplay graph_replay(const GraphReplayInput& in);

/**
 * @brief Largest input X whose copy still leaves the replay ahead: 2X / B = saving, so X = saving · B / 2, bytes.
 * @param saving_us what the replay saves before the copy @param bandwidth_gbps copy bandwidth, GB/s
 */
[[nodiscard]] double graph_break_even_input_bytes(double saving_us, double bandwidth_gbps);

/** @brief Section 5.5.4's persistent-kernel example (up projection + SiLU in blocks of tokens). */
struct PersistentKernelInput {
    std::int64_t tokens = 512;        ///< rows projected
    std::int64_t block_tokens = 64;   ///< rows per block (task)
    std::int64_t hidden = 4096;       ///< H
    std::int64_t ffn = 12288;         ///< F
    int elem_bytes = 2;               ///< bytes per element (BF16)
    double peak_tflops = 503.8;       ///< matrix rate
    double bandwidth_gbps = 1792;     ///< memory bandwidth (activation)
    double launch_us = 5;             ///< one host launch
    double dequeue_us = 0.15;         ///< per task: atomic fetch-add on the queue counter
    double flag_us = 0.37;            ///< per task: publishing the ready flag
};

/** @brief Coarse (two kernels) vs persistent (one kernel, task queue) timing. */
struct PersistentKernel {
    std::int64_t blocks = 0;              ///< ⌈tokens / block_tokens⌉
    double projection_flop_per_block = 0; ///< 2 · block_tokens · H · F
    double projection_us = 0;             ///< at the peak rate
    double activation_bytes_per_block = 0;  ///< read and write block_tokens · F elements
    double activation_us = 0;             ///< at the bandwidth
    double coarse_us = 0;                 ///< 2 launches + all projections + all activations
    double task_projection_us = 0;        ///< projection + dequeue + flag
    double task_activation_us = 0;        ///< activation + dequeue + flag
    double persistent_us = 0;             ///< 1 launch + pipeline of the tasks
    double speedup = 0;                   ///< coarse / persistent
};

/** @brief Section 5.5.4 for @p in. @param in the inputs */
[[nodiscard]] PersistentKernel persistent_kernel(const PersistentKernelInput& in);

/** @brief Section 5.5.4's decode chain: GEMVs at batch 1, each reading its whole matrix, each waiting for the last. */
struct GemvChainInput {
    std::int64_t steps = 64;        ///< GEMVs in the chain
    std::int64_t dim = 4096;        ///< each matrix is dim × dim
    int elem_bytes = 2;             ///< bytes per weight (BF16)
    double bandwidth_gbps = 1792;   ///< memory bandwidth the weights stream at
    double boundary_us = 1.2;       ///< what one dependency between steps adds (the chapter: 1.2–2.3 µs)
};

/** @brief A GEMV chain's time: every step's weights at the bandwidth, plus a cost per boundary. */
struct GemvChain {
    double weight_bytes_per_step = 0;  ///< dim² · elem_bytes
    double step_us = 0;                ///< weight_bytes_per_step at the bandwidth
    std::int64_t boundaries = 0;       ///< steps − 1: a boundary between each step and the next
    double boundaries_us = 0;          ///< boundaries · boundary_us
    double chain_us = 0;               ///< steps · step_us + boundaries_us
    double boundary_share = 0;         ///< boundaries_us / chain_us
};

/** @brief The chain of @p in. @param in the inputs @throws std::invalid_argument for steps or dim below 1 */
[[nodiscard]] GemvChain gemv_chain(const GemvChainInput& in);

}  // namespace gpulab::models
