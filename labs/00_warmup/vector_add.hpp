/**
 * @file vector_add.hpp
 * @brief Lab 00 interface: c = a + b on FP32 vectors. Every variant has the same launcher signature.
 *
 * FROZEN: do not edit. The grader links your vector_add.cu against this interface.
 */
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

/**
 * @brief Your version: c[i] = a[i] + b[i] for every i < n (write it in vector_add.cu).
 * @param a      input, n floats in device memory
 * @param b      input, n floats in device memory
 * @param c      output, n floats in device memory (may not alias a or b)
 * @param n      number of elements, any n ≥ 1
 * @param stream the stream to launch on; the launcher must not synchronise
 */
void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

/**
 * @brief The baseline: one thread per element, no grid-stride loop, 4-byte accesses (baseline.cu).
 * @param a      input, n floats in device memory
 * @param b      input, n floats in device memory
 * @param c      output, n floats in device memory
 * @param n      number of elements, n ≥ 1 (at most 2^31 · 256)
 * @param stream the stream to launch on
 */
void launch_vector_add_baseline(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);
