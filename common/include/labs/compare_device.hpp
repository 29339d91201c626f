/**
 * @file compare_device.hpp
 * @brief Bit-for-bit comparison of two device arrays on the device: for outputs too large to bring to
 * the host just to find out that they are equal.
 */
#pragma once

#include <cstddef>
#include <optional>

#include <cuda_runtime_api.h>

namespace gpulab {

/** @brief What compare_bits_device() found. */
struct DeviceDiff {
    std::size_t count = 0;                  ///< elements that differ in at least one bit
    std::optional<std::size_t> first;       ///< index of the first differing element
};

/**
 * @brief Compares @p n elements of @p elem_bytes bytes (1, 2, 4 or 8) at @p a and @p b bit for bit, on
 * the device, and waits for the answer.
 * @param a first array (device) @param b second array (device) @param n elements
 * @param elem_bytes bytes per element @param stream stream to work on
 */
[[nodiscard]] DeviceDiff compare_bits_device(const void* a, const void* b, std::size_t n, std::size_t elem_bytes,
                                             cudaStream_t stream = nullptr);

}  // namespace gpulab
