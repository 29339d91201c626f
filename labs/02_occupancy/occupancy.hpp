/**
 * @file occupancy.hpp
 * @brief Lab 02 interface: how many blocks of a kernel an SM keeps resident (predicted on the host, checked
 * against the runtime), how long one load from memory takes (a pointer chase), how many bytes must be in
 * flight to hide it (a streaming copy held to a quarter of the SM), and what __launch_bounds__ trades
 * (section 5.1.5, Exercise 5-1).
 *
 * FROZEN: do not edit. Your kernels (chase_kernel, streaming_kernel<LOADS>, tiled_bounded) are defined in
 * occupancy.cu; the launchers below that use them are defined by occupancy_instances.cuh, which the build
 * compiles at the end of occupancy.cu.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>
#include <vector_types.h>

/** @brief What one block of a kernel asks of an SM. */
struct KernelResources {
    int threads = 0;              ///< threads per block (≥ 1)
    int regs_per_thread = 0;      ///< registers per thread, as the compiler reports them
    std::int64_t smem_bytes = 0;  ///< shared memory per block (static + dynamic), the driver's reserve not included
};

/** @brief What one SM offers, and how it hands it out. */
struct DeviceLimits {
    int warp_size = 32;                      ///< threads per warp
    int max_threads_per_sm = 0;              ///< resident thread slots
    int max_blocks_per_sm = 0;               ///< resident block limit
    int regs_per_sm = 0;                     ///< 32-bit registers
    int reg_alloc_unit = 256;                ///< a warp's registers are allocated in multiples of this
    int reg_file_partitions = 4;             ///< the register file is split evenly among this many sub-partitions
    std::int64_t smem_per_sm_bytes = 0;      ///< shared memory (the largest carveout)
    std::int64_t smem_reserved_per_block_bytes = 0;  ///< the driver's reserve per resident block
    std::int64_t smem_alloc_unit_bytes = 128;        ///< shared memory is allocated in multiples of this
};

/** @brief The prediction. */
struct Residency {
    int by_threads = 0;      ///< blocks the thread slots allow (whole warps)
    int by_regs = 0;         ///< blocks the register file allows
    int by_smem = 0;         ///< blocks the shared memory allows (with the reserve, rounded up to the unit)
    int by_limit = 0;        ///< the per-SM block limit
    int resident = 0;        ///< the smallest of the four
    double occupancy = 0;    ///< resident warps / the SM's warp slots
    std::string limiter;     ///< "threads", "registers", "shared_memory" or "block_limit" (the first, in this
                             ///< order, whose allowance equals `resident`)
};

/**
 * @brief (a) Yours: resident blocks per SM from each of the four limits, their minimum, the limiter and the
 * occupancy. Registers: a warp takes regs_per_thread · warp_size rounded up to reg_alloc_unit, and each of the
 * reg_file_partitions partitions holds ⌊(regs_per_sm / partitions) / regs_per_warp⌋ warps.
 * @param k the kernel's block @param d the SM
 */
[[nodiscard]] Residency predict_residency(const KernelResources& k, const DeviceLimits& d);

/** @brief The current GPU's SM limits (given: from cudaGetDeviceProperties and the allocation granularities). */
[[nodiscard]] DeviceLimits this_device_limits();

// ---- (b) latency: a pointer chase ------------------------------------------------------------------------

/**
 * @brief Enqueues your chase_kernel on @p stream: one thread follows @p steps links of the chain in @p words
 * from word index @p start (each link is the word index of the next) and writes the index it ends at to
 * @p end. (Defined by occupancy_instances.cuh.)
 */
void launch_chase(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end,
                  cudaStream_t stream);

// ---- (c) bytes in flight: a streaming copy held to a quarter of the SM -----------------------------------

/** @brief Threads per block of the streaming kernels. */
inline constexpr int kStreamThreads = 256;

/** @brief What a streaming launch ran with (from the runtime). */
struct StreamLaunch {
    int blocks_per_sm = 0;     ///< resident blocks per SM with the ballast (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
    double occupancy = 0;      ///< resident warps / the SM's warp slots
    int grid = 0;              ///< blocks launched: blocks_per_sm × SMs (one wave)
    int regs_per_thread = 0;   ///< cudaFuncGetAttributes
};

/**
 * @brief The ballast: dynamic shared memory per block that leaves room for @p blocks_per_sm blocks of
 * kStreamThreads threads on an SM and no more (given). The kernel never touches it; it only takes the space.
 */
[[nodiscard]] std::size_t ballast_bytes(int blocks_per_sm);

/**
 * @brief Enqueues your streaming_kernel<@p loads> (loads ∈ {1, 2, 4, 8}) copying @p count 16-byte vectors
 * from @p in to @p out, with @p ballast bytes of dynamic shared memory per block and a grid of one wave,
 * and returns what it ran with. (Defined by occupancy_instances.cuh.)
 */
StreamLaunch launch_streaming(int loads, const uint4* in, uint4* out, std::size_t count, std::size_t ballast,
                              cudaStream_t stream);

/** @brief The given baseline at the same ballast and grid: one 16-byte load in flight per thread. */
StreamLaunch launch_streaming_baseline(const uint4* in, uint4* out, std::size_t count, std::size_t ballast,
                                       cudaStream_t stream);

// ---- (d) __launch_bounds__ on a tiled kernel ---------------------------------------------------------------

/** @brief Threads per block of the tiled kernel. */
inline constexpr int kTiledThreads = 256;
/** @brief The tiled kernel's output tile: kTile × kTile elements of C per block. */
inline constexpr int kTile = 128;

/** @brief What the runtime says about one tiled kernel. */
struct TiledInfo {
    int regs_per_thread = 0;         ///< cudaFuncGetAttributes
    std::size_t local_bytes = 0;     ///< local memory per thread (spills)
    std::size_t static_smem = 0;     ///< static shared memory per block
    int blocks_per_sm = 0;           ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor at kTiledThreads
};

/** @brief C = A·B for n × n FP32 matrices (n a multiple of kTile), row-major: the given kernel, unbounded. */
void launch_tiled(const float* a, const float* b, float* c, int n, cudaStream_t stream);
/** @brief The given kernel's attributes. */
[[nodiscard]] TiledInfo tiled_info();
/** @brief The same product with your tiled_bounded (the given body under your __launch_bounds__).
 *  (Defined by occupancy_instances.cuh.) */
void launch_tiled_bounded(const float* a, const float* b, float* c, int n, cudaStream_t stream);
/** @brief Your bounded kernel's attributes. (Defined by occupancy_instances.cuh.) */
[[nodiscard]] TiledInfo tiled_bounded_info();
