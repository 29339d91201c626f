/**
 * @file scale.hpp
 * @brief Lab NN interface: y = a · x on FP32 vectors. Every version has the same launcher signature.
 *
 * FROZEN: do not edit. The grader links your scale.cu against this interface.
 */
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

/**
 * @brief Your version: y[i] = a · x[i] for every i < n (write it in scale.cu).
 * @param x      input, n floats in device memory
 * @param a      the factor
 * @param y      output, n floats in device memory (may not alias x)
 * @param n      number of elements, any n ≥ 1
 * @param stream the stream to launch on; the launcher must not synchronise
 */
void launch_scale(const float* x, float a, float* y, std::size_t n, cudaStream_t stream);

/**
 * @brief The baseline: one thread per element (baseline.cu). The timing yardstick and, since FP32 multiplication
 * rounds once, the exact expected bits.
 * @param x      input, n floats in device memory
 * @param a      the factor
 * @param y      output, n floats in device memory
 * @param n      number of elements, n ≥ 1
 * @param stream the stream to launch on
 */
void launch_scale_baseline(const float* x, float a, float* y, std::size_t n, cudaStream_t stream);
