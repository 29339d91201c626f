/**
 * @file buffer.hpp
 * @brief RAII device and pinned-host buffers (one Buffer template, two allocators), poison fill and copy helpers.
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

/** @brief Device memory (cudaMalloc / cudaFree): Buffer's allocator for DeviceBuffer. */
struct DeviceMemory {
    static constexpr bool host_accessible = false;  ///< the host cannot read or write it directly
    /** @brief Allocates @p bytes. @param bytes how many */
    [[nodiscard]] static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
    /** @brief Frees @p p (errors ignored: after a sticky error the context is gone anyway). @param p the memory */
    static void free(void* p) noexcept { (void)cudaFree(p); }
};

/** @brief Page-locked host memory (cudaMallocHost / cudaFreeHost): Buffer's allocator for PinnedBuffer. Copies
 *  from and to it run at full interconnect speed and can be asynchronous. */
struct PinnedMemory {
    static constexpr bool host_accessible = true;  ///< the host reads and writes it directly
    /** @brief Allocates @p bytes. @param bytes how many */
    [[nodiscard]] static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        CUDA_CHECK(cudaMallocHost(&p, bytes));
        return p;
    }
    /** @brief Frees @p p (errors ignored). @param p the memory */
    static void free(void* p) noexcept { (void)cudaFreeHost(p); }
};

/**
 * @brief An array of @p T in memory that @p Memory allocates, freed on destruction; it moves but does not copy.
 * @tparam T trivially copyable element type
 * @tparam Memory DeviceMemory or PinnedMemory
 */
template <typename T, typename Memory>
class Buffer {
public:
    Buffer() = default;
    /** @brief Allocates @p count elements (uninitialised). @param count elements */
    explicit Buffer(std::size_t count) : count_(count) {
        if (count_ > 0) ptr_ = static_cast<T*>(Memory::allocate(bytes()));
    }
    ~Buffer() { reset(); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    /** @brief Takes over @p other's memory. @param other the buffer emptied */
    Buffer(Buffer&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    /** @brief Frees this buffer's memory and takes over @p other's. @param other the buffer emptied */
    Buffer& operator=(Buffer&& other) noexcept {
        if (this != &other) {
            reset();
            ptr_ = std::exchange(other.ptr_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    /** @brief Pointer to the first element (a device pointer for DeviceMemory). */
    [[nodiscard]] T* data() noexcept { return ptr_; }
    /** @brief Pointer to the first element (a device pointer for DeviceMemory). */
    [[nodiscard]] const T* data() const noexcept { return ptr_; }
    /** @brief Number of elements. */
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /** @brief Size in bytes. */
    [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    /** @brief Frees the memory (no-op when empty). */
    void reset() noexcept {
        if (ptr_ != nullptr) Memory::free(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }

    /** @brief The elements as a span (host-accessible memory only). */
    [[nodiscard]] std::span<T> span() noexcept
        requires Memory::host_accessible
    {
        return {ptr_, count_};
    }
    /** @brief Element @p i (host-accessible memory only). @param i index */
    T& operator[](std::size_t i) noexcept
        requires Memory::host_accessible
    {
        return ptr_[i];
    }
    /** @brief Element @p i (host-accessible memory only). @param i index */
    const T& operator[](std::size_t i) const noexcept
        requires Memory::host_accessible
    {
        return ptr_[i];
    }

    /** @brief Fills every byte with kPoisonByte (asynchronously on @p stream; device memory). @param stream the stream */
    void poison(cudaStream_t stream = nullptr)
        requires(!Memory::host_accessible)
    {
        if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(ptr_, kPoisonByte, bytes(), stream));
    }
    /** @brief Sets every byte to zero (asynchronously on @p stream; device memory). @param stream the stream */
    void zero(cudaStream_t stream = nullptr)
        requires(!Memory::host_accessible)
    {
        if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(ptr_, 0, bytes(), stream));
    }

private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

/** @brief An array of @p T in device memory (cudaMalloc), freed on destruction. @tparam T element type */
template <typename T>
using DeviceBuffer = Buffer<T, DeviceMemory>;

/** @brief An array of @p T in page-locked host memory (cudaMallocHost), freed on destruction. @tparam T element type */
template <typename T>
using PinnedBuffer = Buffer<T, PinnedMemory>;

/**
 * @brief Device scratch space that grows to the largest size asked of it and keeps its memory, for a
 * launcher that needs a workspace but must not allocate on every call (an allocation synchronises the
 * device, and is not allowed while a CUDA graph is being captured: make the first, largest call eagerly).
 * @tparam T trivially copyable element type
 */
template <typename T>
class Workspace {
public:
    /** @brief At least @p count elements (contents undefined); reallocates only to grow. @param count elements */
    [[nodiscard]] T* at_least(std::size_t count) {
        if (buffer_.size() < count) buffer_ = DeviceBuffer<T>(count);
        return buffer_.data();
    }

private:
    DeviceBuffer<T> buffer_;
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
