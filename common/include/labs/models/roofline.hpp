/**
 * @file roofline.hpp
 * @brief Arithmetic intensity, the device's ridge point, the MFU ceiling a memory interface allows,
 * and the first kernel of the course (vector add): grid size, bytes moved, intensity.
 */
#pragma once

#include <cstdint>

#include "labs/models/datasets.hpp"

namespace gpulab::models {

/**
 * @brief FLOP per byte moved. @param flop operations @param bytes bytes through the interface (> 0)
 */
[[nodiscard]] double arithmetic_intensity(double flop, double bytes);

/**
 * @brief The device's intensity at the roofline's ridge: peak / bandwidth, FLOP/B
 * (H100: 989.4 TFLOP/s / 3.35 TB/s ≈ 295).
 * @param peak_tflops    compute peak, TFLOP/s
 * @param bandwidth_gbps memory bandwidth, GB/s (> 0)
 */
[[nodiscard]] double device_intensity_flop_per_byte(double peak_tflops, double bandwidth_gbps);

/** @brief Dense BF16 peak over memory bandwidth of @p d, FLOP/B. @param d device */
[[nodiscard]] double device_intensity_flop_per_byte(const DeviceSpec& d);

/**
 * @brief Highest fraction of the compute peak a kernel can reach when every byte it moves crosses an
 * interface of the device's bandwidth: min(1, intensity / device intensity).
 * @param intensity_flop_per_byte        the kernel's intensity at that interface
 * @param device_intensity_flop_per_byte the device's ridge point
 */
[[nodiscard]] double mfu_ceiling(double intensity_flop_per_byte, double device_intensity_flop_per_byte);

/**
 * @brief Roofline time: the larger of the memory time and the compute time, µs.
 * @param flop operations @param bytes bytes moved @param peak_tflops compute peak, TFLOP/s
 * @param bandwidth_gbps memory bandwidth, GB/s
 */
[[nodiscard]] double roofline_time_us(double flop, double bytes, double peak_tflops, double bandwidth_gbps);

/** @brief What one launch of c[i] = a[i] + b[i] over n elements costs. */
struct VectorAdd {
    std::int64_t grid_blocks = 0;  ///< ⌈n / block⌉ blocks of the launch
    std::int64_t idle_threads = 0; ///< threads of the last block with no element (grid·block − n)
    double flop = 0;               ///< one addition per element
    double bytes = 0;              ///< two reads and one write per element
    double intensity_flop_per_byte = 0;  ///< flop / bytes (1/12 for FP32)
};

/**
 * @brief Vector add over @p n elements with blocks of @p block_threads threads.
 * @param n elements (≥ 1) @param block_threads threads per block (≥ 1) @param elem_bytes bytes per element
 */
[[nodiscard]] VectorAdd vector_add(std::int64_t n, std::int64_t block_threads, int elem_bytes = 4);

}  // namespace gpulab::models
