/**
 * @file chain.hpp
 * @brief Lab 11 interface: a chain of matrix–vector products — decode at batch 1, each step reading a 4096 × 4096
 * BF16 matrix and the vector the previous step wrote — run with a launch per step (given), as one replayed graph (a),
 * with programmatic dependent launch (b), and as one persistent kernel that takes its work from a task queue (c).
 *
 * FROZEN: do not edit. Step s (0 ≤ s < steps) computes x_{s+1} = W_s · x_s, W_s row-major [dim, dim] BF16 at
 * w + s · dim², x_s the dim BF16 values at x + s · dim (x_0 is the input; the launcher writes x_1 … x_steps). Every
 * output element is chain::row_dot() of its row (chain_math.cuh): one warp, each lane adding its 16-byte chunks of
 * the row in order, then a fixed butterfly, rounded to BF16 — so every variant gives the same bits as the given
 * chain, and what differs between them is only where the kernel boundaries fall and how each step learns that its
 * input is ready. Each launcher enqueues its work on `stream` and returns without synchronising; it may use
 * `workspace` (kWorkspaceWords unsigned ints, contents undefined on entry: the grader scrambles them before every call)
 * for queue counters and flags, and no other device memory of its own.
 */
#pragma once

#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

/** @brief The most steps a chain has (the chapter's chain: 64 GEMVs). */
inline constexpr int kMaxSteps = 64;

/** @brief dim is a multiple of this (a warp's sweep over a row: 32 lanes × 8 BF16 values) and at most kMaxDim. */
inline constexpr int kDimMultiple = 256;
/** @brief The largest dim (rows and columns of every W). */
inline constexpr int kMaxDim = 8192;

/** @brief Unsigned ints of the workspace every launcher receives: a queue counter and a flag per step, and room to
 *  spare. */
inline constexpr std::size_t kWorkspaceWords = 1024;

/** @brief One call's chain. */
struct ChainArgs {
    const __nv_bfloat16* w = nullptr;  ///< [steps][dim][dim], row-major: W_s at w + s · dim · dim
    __nv_bfloat16* x = nullptr;        ///< [steps + 1][dim]: x_0 (input) at x, x_s at x + s · dim (outputs)
    int steps = 0;                     ///< 1 … kMaxSteps
    int dim = 0;                       ///< a multiple of kDimMultiple, at most kMaxDim
    unsigned* workspace = nullptr;     ///< kWorkspaceWords unsigned ints, scrambled before every call
};

/** @brief Every launcher's signature. @param a the chain @param stream the stream to enqueue on */
using ChainLauncher = void (*)(const ChainArgs& a, cudaStream_t stream);

// ---- Given (baseline.cu) -------------------------------------------------------------------------------------

/** @brief The given chain: one launch of a one-warp-per-row GEMV kernel per step, on `stream`, in order. What the
 *  grader's reference bits come from and what every variant is timed against. Parameters: ChainLauncher. */
void launch_chain_given(const ChainArgs& a, cudaStream_t stream);

// ---- Yours (chain.cu) ---------------------------------------------------------------------------------------

/** @brief (a) The chain as one CUDA graph: the steps' launches captured once for these arguments (the graph keeps
 *  their addresses), then one graph launch per call. Parameters: ChainLauncher. */
void launch_chain_graph(const ChainArgs& a, cudaStream_t stream);

/** @brief (b) Programmatic dependent launch: one launch per step with cudaLaunchAttributeProgrammaticStreamSerialization,
 *  each kernel loading its weights before `griddepcontrol.wait` (the previous step's results) and letting the next step
 *  start early with `griddepcontrol.launch_dependents`. Parameters: ChainLauncher. */
void launch_chain_pdl(const ChainArgs& a, cudaStream_t stream);

/** @brief (c) One persistent kernel for the whole chain: blocks, as many as can be resident at once (the occupancy
 *  API), take tasks (a step's group of rows) from a counter in the workspace in order, wait for the previous step's
 *  flag before reading its output, and publish their own after a memory fence. At most one memset besides the kernel
 *  (the counter and flags zeroed). Parameters: ChainLauncher. */
void launch_chain_persistent(const ChainArgs& a, cudaStream_t stream);
