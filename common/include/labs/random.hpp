/**
 * @file random.hpp
 * @brief Seeded random data, identical on host and device: element i of a fill depends only on
 * (seed, i), never on thread layout or call order, so a device fill and a host fill with the same
 * seed give the same bits.
 *
 * The generator is counter based (SplitMix64 finalizer over seed and index). Uniform floats take the
 * top 24 bits (exactly representable in FP32) and are scaled with one fused multiply-add, which the
 * host (std::fma) and the device (fmaf) round identically.
 */
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "labs/math.hpp"

namespace gpulab {

/** @brief SplitMix64 finalizer: a bijective 64-bit mix. */
LABS_HD constexpr std::uint64_t mix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/** @brief 64 random bits for element @p index of the stream @p seed. */
LABS_HD constexpr std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index) {
    return mix64(mix64(seed) ^ (index * 0xD1B54A32D192ED03ull));
}

/** @brief Uniform value in [lo, hi) for element @p index of stream @p seed (host = device bits). */
LABS_HD inline float uniform_at(std::uint64_t seed, std::uint64_t index, float lo, float hi) {
    const float u = static_cast<float>(random_bits(seed, index) >> 40) * (1.0f / 16777216.0f);
#if defined(__CUDA_ARCH__)
    return fmaf(hi - lo, u, lo);
#else
    return std::fma(hi - lo, u, lo);
#endif
}

/** @brief Fills @p out with uniform values in [lo, hi) (host). */
void fill_uniform(std::span<float> out, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);
/** @brief Fills @p out with BF16 bits of uniform values in [lo, hi), rounded to nearest even (host). */
void fill_uniform_bf16(std::span<std::uint16_t> out, std::uint64_t seed, float lo = -1.0f,
                       float hi = 1.0f);

/** @brief Device version of fill_uniform: same seed, same bits. Asynchronous on @p stream. */
void fill_uniform_device(float* out, std::size_t n, std::uint64_t seed, float lo = -1.0f,
                         float hi = 1.0f, cudaStream_t stream = nullptr);
/** @brief Device version of fill_uniform_bf16: same seed, same bits. Asynchronous on @p stream. */
void fill_uniform_bf16_device(__nv_bfloat16* out, std::size_t n, std::uint64_t seed,
                              float lo = -1.0f, float hi = 1.0f, cudaStream_t stream = nullptr);

/** @brief Fills @p bytes bytes at @p out with random bytes from @p seed (any alignment). Asynchronous on
 *  @p stream. Used to scramble an output before a run that must write all of it. */
void fill_random_bytes_device(void* out, std::size_t bytes, std::uint64_t seed, cudaStream_t stream = nullptr);

}  // namespace gpulab
