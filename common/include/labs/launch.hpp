/**
 * @file launch.hpp
 * @brief Launch-configuration helpers: how many blocks of a kernel the whole GPU holds at once
 * (from the occupancy API, never from a hand-written "threads per SM"), a grid capped at that, and
 * `unused()` for the parameters of a stub that does nothing yet, and `with_constant()` to call the instance of
 * a template that a run-time number names.
 *
 * @code
 * // A grid-stride kernel: one full wave of resident blocks, fewer when there is little work.
 * const unsigned grid = gpulab::resident_grid(my_kernel, 256, 0, gpulab::ceil_div<std::size_t>(n, 256));
 * my_kernel<<<grid, 256, 0, stream>>>(x, n);
 * @endcode
 */
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime_api.h>

#include "labs/cuda_check.hpp"
#include "labs/math.hpp"

namespace gpulab {

/** @brief An attribute of the current device (cudaDeviceGetAttribute), e.g. cudaDevAttrMultiProcessorCount. */
inline int device_attribute(cudaDeviceAttr attr) {
    int device = 0, value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

/**
 * @brief Marks parameters as deliberately unused (a template's stub before the student fills it in),
 * in host and device code: `gpulab::unused(a, b, n);` instead of one `(void)x;` line per parameter.
 */
template <typename... T>
LABS_HD constexpr void unused(const T&... /*values*/) noexcept {}

/**
 * @brief Blocks of @p kernel that are resident on the whole device at once (one full wave):
 * SMs × cudaOccupancyMaxActiveBlocksPerMultiprocessor, at least 1. The per-SM count depends on the
 * kernel's registers and shared memory and on the GPU (2048 threads per SM on an H100, 1536 on an
 * RTX 4090), which is why it is asked for rather than assumed.
 * @param kernel        the `__global__` function
 * @param block_threads threads per block
 * @param dynamic_smem  dynamic shared memory per block, bytes
 */
[[nodiscard]] unsigned resident_blocks(const void* kernel, int block_threads, std::size_t dynamic_smem = 0);

/** @brief resident_blocks() for a kernel given by name. @param kernel the `__global__` function
 *  @param block_threads threads per block @param dynamic_smem dynamic shared memory per block */
template <typename Kernel>
[[nodiscard]] unsigned resident_blocks(Kernel* kernel, int block_threads, std::size_t dynamic_smem = 0) {
    return resident_blocks(reinterpret_cast<const void*>(kernel), block_threads, dynamic_smem);
}

/**
 * @brief Grid size for a grid-stride kernel: @p wanted blocks (the work needs no more), capped at one
 * full wave of resident blocks, at least 1. More blocks than fit would run as a second, partial wave.
 * @param kernel        the `__global__` function
 * @param block_threads threads per block
 * @param dynamic_smem  dynamic shared memory per block, bytes
 * @param wanted        blocks the work could use (e.g. ⌈elements / (threads · elements per thread)⌉)
 */
template <typename Kernel>
[[nodiscard]] unsigned resident_grid(Kernel* kernel, int block_threads, std::size_t dynamic_smem, std::size_t wanted) {
    const unsigned wave = resident_blocks(kernel, block_threads, dynamic_smem);
    return static_cast<unsigned>(std::clamp<std::size_t>(wanted, 1, wave));
}

/**
 * @brief Calls `fn.template operator()<V>()` for the one V of @p Values equal to @p value: the run-time
 * number picks a compile-time instance (a pipeline's depth, a bucket's rows) without a switch written out
 * per template.
 * @return false, having called nothing, when @p value is none of @p Values (the caller says what is allowed).
 *
 * @code
 * if (!gpulab::with_constant<1, 2, 4>(stages, [&]<int S>() { launch_of<S>(work, stream); }))
 *     throw std::invalid_argument("stages must be 1, 2 or 4");
 * @endcode
 */
template <int... Values, typename Fn>
bool with_constant(int value, Fn&& fn) {
    return ((value == Values ? (fn.template operator()<Values>(), true) : false) || ...);
}

}  // namespace gpulab
