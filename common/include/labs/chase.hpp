/**
 * @file chase.hpp
 * @brief Pointer chasing: a chain of dependent loads through device memory, and the latency of one load
 * measured by walking it (section 5.1.5: the latency Little's law multiplies by the bandwidth).
 *
 * The chain is one random cycle through `lines` 128-byte lines of a device buffer: the first 32-bit word of
 * each line holds the word index of the next line's first word, so each load's address is the value the
 * previous load returned, and no two consecutive loads share a line. Far larger than the L2 cache, the walk
 * measures the latency of device memory (with the address translation a random walk pays); a little larger
 * than the L1 cache and well inside the L2, once warmed, it measures the L2's.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "labs/buffer.hpp"

namespace gpulab {

/** @brief A pointer-chasing chain in device memory, with its order kept on the host to check a walk. */
class ChaseChain {
public:
    /** @brief Builds a chain over @p bytes of device memory (rounded down to whole 128-byte lines, at least
     *  two), in a random order drawn from @p seed. */
    ChaseChain(std::size_t bytes, std::uint64_t seed);
    /** @brief The device words. */
    [[nodiscard]] const std::uint32_t* words() const noexcept { return words_.data(); }
    /** @brief The number of lines in the cycle. */
    [[nodiscard]] std::size_t lines() const noexcept { return order_.size(); }
    /** @brief The footprint in bytes (lines · 128). */
    [[nodiscard]] std::size_t bytes() const noexcept { return order_.size() * kLineBytes; }
    /** @brief The word index of the line at @p position of the cycle (taken modulo lines()): where a walk
     *  that starts there loads first. */
    [[nodiscard]] std::uint32_t word_at(std::size_t position) const noexcept {
        return static_cast<std::uint32_t>(order_[position % order_.size()] * kLineWords);
    }
    /** @brief Where a walk of @p steps loads that starts at @p position ends: word_at(position + steps). */
    [[nodiscard]] std::uint32_t end_after(std::size_t position, std::int64_t steps) const noexcept {
        return word_at(position + static_cast<std::size_t>(steps));
    }

    static constexpr std::size_t kLineBytes = 128;  ///< one line per link
    static constexpr std::size_t kLineWords = kLineBytes / sizeof(std::uint32_t);  ///< 32-bit words per line

private:
    std::vector<std::uint32_t> order_;  // order_[position] = the line at that position of the cycle
    DeviceBuffer<std::uint32_t> words_;
};

/** @brief What a latency measurement found. */
struct ChaseLatency {
    double ns_per_load = 0;  ///< (time of 2·steps − time of steps) / steps: launch costs cancel
    std::int64_t steps = 0;  ///< loads in the shorter walk
    bool walked = false;     ///< both walks ended where the chain says they must
};

/** @brief Enqueues a walk: one thread follows @p steps links from @p start and writes where it ended. */
using ChaseLauncher = void (*)(const std::uint32_t* words, std::uint32_t start, std::int64_t steps,
                               std::uint32_t* end, cudaStream_t stream);

/**
 * @brief Measures the latency of one load on @p chain with @p launch (the library's own walk by default).
 * Walks go one after another along the cycle, each starting where the last one stopped: a warm-up of
 * min(lines, 4·steps) loads (on a chain that fits in the L2 cache, all of it: the cache and the address
 * translation are warm), then @p reps walks of @p steps and @p reps of 2·@p steps, timed with events
 * (median of each). On a chain far larger than the L2, no walk revisits a line an earlier one loaded, so
 * every timed load comes from device memory. Each walk must end where the chain says. A second measurement
 * on the same large chain should start far from where the first went (@p first_position = lines() / 2).
 */
[[nodiscard]] ChaseLatency measure_chase_latency(const ChaseChain& chain, std::int64_t steps, int reps = 3,
                                                 ChaseLauncher launch = nullptr, std::size_t first_position = 0);

/** @brief The library's walk (a ChaseLauncher): plain loads, cached in L2 only (`ld.global.cg`). */
void launch_library_chase(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end,
                          cudaStream_t stream);

}  // namespace gpulab
