/**
 * @file bf16.hpp
 * @brief BF16 tensors on the device, typed: `DeviceBuffer<bf16>` with bit-exact copies to and from
 * host arrays of BF16 bits (`std::uint16_t`, what the host emulation of numeric.hpp and the comparisons
 * of compare.hpp work on). The one place where BF16 values and their bits are reinterpreted.
 *
 * @code
 * std::vector<std::uint16_t> host(n);
 * gpulab::fill_uniform_bf16(host, seed);                    // host bits
 * gpulab::DeviceBuffer<gpulab::bf16> x = gpulab::to_device_bits(host);
 * launch_something(x.data(), ...);                          // a typed __nv_bfloat16*
 * std::vector<std::uint16_t> back = gpulab::to_host_bits(x);
 * @endcode
 */
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <cuda_bf16.h>

#include "labs/buffer.hpp"

namespace gpulab {

/** @brief The device's BF16 type (1 sign, 8 exponent, 7 mantissa bits). */
using bf16 = __nv_bfloat16;

static_assert(sizeof(bf16) == sizeof(std::uint16_t), "BF16 is 16 bits");

/** @brief A device buffer holding a copy of the BF16 bits @p host (synchronous). */
[[nodiscard]] inline DeviceBuffer<bf16> to_device_bits(std::span<const std::uint16_t> host) {
    DeviceBuffer<bf16> d(host.size());
    if (!host.empty()) CUDA_CHECK(cudaMemcpy(d.data(), host.data(), d.bytes(), cudaMemcpyHostToDevice));
    return d;
}

/** @brief A device buffer holding a copy of the BF16 bits @p host (synchronous). */
[[nodiscard]] inline DeviceBuffer<bf16> to_device_bits(const std::vector<std::uint16_t>& host) {
    return to_device_bits(std::span<const std::uint16_t>(host));
}

/** @brief The BF16 bits of a device buffer, copied into a new host vector (synchronous). */
[[nodiscard]] inline std::vector<std::uint16_t> to_host_bits(const DeviceBuffer<bf16>& device) {
    std::vector<std::uint16_t> host(device.size());
    if (!host.empty()) CUDA_CHECK(cudaMemcpy(host.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
    return host;
}

/** @brief The raw bits of an element type: std::uint16_t for BF16, the type itself otherwise. */
template <typename T>
struct raw_bits {
    using type = T;  ///< the host type holding one element's bits
};
/// @cond SPECIALIZATIONS
template <>
struct raw_bits<bf16> {
    using type = std::uint16_t;
};
/// @endcond

/** @brief The host type of an element's bits (see raw_bits). */
template <typename T>
using raw_bits_t = typename raw_bits<T>::type;

/** @brief A device buffer copied to host as raw bits: to_host_bits() for BF16, to_host() otherwise. */
template <typename T>
[[nodiscard]] std::vector<raw_bits_t<T>> to_host_raw(const DeviceBuffer<T>& device) {
    if constexpr (std::is_same_v<T, bf16>) return to_host_bits(device);
    else return to_host(device);
}

}  // namespace gpulab
