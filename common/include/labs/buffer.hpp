/**
 * @file buffer.hpp
 * @brief RAII device and pinned-host buffers, poison fill and copy helpers.
 *
 * Buffers own their memory and free it in the destructor; they move but do not copy. Allocation
 * failures throw gpulab::CudaError. Destructors never throw: after a sticky CUDA error the free fails
 * and is ignored, since the context is gone anyway.
 *
 * Poisoning writes 0xFF to every byte. That pattern is a NaN in every floating type the labs use
 * (FP32, FP64, FP16, BF16 and FP8 E4M3FN) and the all-ones value in every integer type, so an output
 * element a kernel forgot to write fails any comparison. is_poison() recognises the exact pattern.
 */
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "labs/cuda_check.hpp"

namespace gpulab {

/** @brief The byte value poison fills use. */
inline constexpr unsigned char kPoisonByte = 0xFF;

/** @brief True when every byte of @p value is kPoisonByte (an element nothing wrote). */
template <typename T>
[[nodiscard]] bool is_poison(const T& value) noexcept {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes) {
        if (b != kPoisonByte) return false;
    }
    return true;
}

/**
 * @brief An array of @p T in device memory (cudaMalloc), freed on destruction.
 * @tparam T trivially copyable element type
 */
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /** @brief Allocates @p count elements (uninitialised). */
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
    }
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    /** @brief Takes over @p other's memory. */
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    /** @brief Frees this buffer's memory and takes over @p other's. */
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            ptr_ = std::exchange(other.ptr_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    /** @brief Device pointer to the first element. */
    [[nodiscard]] T* data() noexcept { return ptr_; }
    /** @brief Device pointer to the first element. */
    [[nodiscard]] const T* data() const noexcept { return ptr_; }
    /** @brief Number of elements. */
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /** @brief Size in bytes. */
    [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    /** @brief Frees the memory (no-op when empty). */
    void reset() noexcept {
        if (ptr_ != nullptr) (void)cudaFree(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }

    /** @brief Fills every byte with kPoisonByte (asynchronously on @p stream). */
    void poison(cudaStream_t stream = nullptr) {
        if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(ptr_, kPoisonByte, bytes(), stream));
    }
    /** @brief Sets every byte to zero (asynchronously on @p stream). */
    void zero(cudaStream_t stream = nullptr) {
        if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(ptr_, 0, bytes(), stream));
    }

private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

/**
 * @brief Device scratch space that grows to the largest size asked of it and keeps its memory, for a
 * launcher that needs a workspace but must not allocate on every call (an allocation synchronises the
 * device, and is not allowed while a CUDA graph is being captured: make the first, largest call eagerly).
 * @tparam T trivially copyable element type
 */
template <typename T>
class Workspace {
public:
    /** @brief At least @p count elements (contents undefined); reallocates only to grow. */
    [[nodiscard]] T* at_least(std::size_t count) {
        if (buffer_.size() < count) buffer_ = DeviceBuffer<T>(count);
        return buffer_.data();
    }

private:
    DeviceBuffer<T> buffer_;
};

/**
 * @brief An array of @p T in page-locked host memory (cudaMallocHost), freed on destruction.
 * Copies from and to pinned memory run at full interconnect speed and can be asynchronous.
 * @tparam T trivially copyable element type
 */
template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    /** @brief Allocates @p count elements (uninitialised). */
    explicit PinnedBuffer(std::size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), bytes()));
    }
    ~PinnedBuffer() { reset(); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    /** @brief Takes over @p other's memory. */
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    /** @brief Frees this buffer's memory and takes over @p other's. */
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            ptr_ = std::exchange(other.ptr_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    /** @brief Host pointer to the first element. */
    [[nodiscard]] T* data() noexcept { return ptr_; }
    /** @brief Host pointer to the first element. */
    [[nodiscard]] const T* data() const noexcept { return ptr_; }
    /** @brief Number of elements. */
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /** @brief Size in bytes. */
    [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    /** @brief The elements as a span. */
    [[nodiscard]] std::span<T> span() noexcept { return {ptr_, count_}; }
    /** @brief Element @p i. */
    T& operator[](std::size_t i) noexcept { return ptr_[i]; }
    /** @brief Element @p i. */
    const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
    /** @brief Frees the memory (no-op when empty). */
    void reset() noexcept {
        if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }

private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

/** @brief Fills a host array with the poison pattern. */
template <typename T>
void poison_host(std::span<T> values) noexcept {
    std::memset(static_cast<void*>(values.data()), kPoisonByte, values.size_bytes());
}

/** @brief Allocates a device buffer holding a copy of @p host (synchronous). */
template <typename T>
[[nodiscard]] DeviceBuffer<T> to_device(std::span<const T> host) {
    DeviceBuffer<T> d(host.size());
    if (!host.empty()) CUDA_CHECK(cudaMemcpy(d.data(), host.data(), d.bytes(), cudaMemcpyHostToDevice));
    return d;
}

/** @brief Allocates a device buffer holding a copy of @p host (synchronous). */
template <typename T>
[[nodiscard]] DeviceBuffer<T> to_device(const std::vector<T>& host) {
    return to_device(std::span<const T>(host));
}

/** @brief Copies @p host into the device buffer @p device; sizes must match (synchronous). */
template <typename T>
void copy_to_device(DeviceBuffer<T>& device, std::span<const T> host) {
    if (host.size() != device.size())
        throw std::invalid_argument("copy_to_device: host and device sizes differ");
    if (!host.empty())
        CUDA_CHECK(cudaMemcpy(device.data(), host.data(), device.bytes(), cudaMemcpyHostToDevice));
}

/** @brief Copies a device buffer back into a new host vector (synchronous). */
template <typename T>
[[nodiscard]] std::vector<T> to_host(const DeviceBuffer<T>& device) {
    std::vector<T> host(device.size());
    if (!host.empty())
        CUDA_CHECK(cudaMemcpy(host.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
    return host;
}

}  // namespace gpulab
