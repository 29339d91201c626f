// Seeded host fills; the device fills (random_device.cu) produce the same bits.
#include "labs/random.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "labs/numeric.hpp"

namespace gpulab {

namespace {

// Each value depends on (seed, index) only, so a large fill is split across the host's cores: the grader fills
// inputs of hundreds of MiB, one core took seconds there. The threads are joined before it returns.
template <class F>
void for_each_index(std::size_t n, F&& at) {
    constexpr std::size_t kPerThread = std::size_t(1) << 20;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = std::min<std::size_t>({cores, 16, (n + kPerThread - 1) / kPerThread});
    if (threads <= 1) {
        for (std::size_t i = 0; i < n; ++i) at(i);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) at(i);
        });
    for (std::thread& th : pool) th.join();
}

}  // namespace

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi) {
    for_each_index(out.size(), [&](std::size_t i) { out[i] = uniform_at(seed, i, lo, hi); });
}

void fill_uniform_bf16(std::span<std::uint16_t> out, std::uint64_t seed, float lo, float hi) {
    for_each_index(out.size(), [&](std::size_t i) { out[i] = float_to_bf16_bits(uniform_at(seed, i, lo, hi)); });
}

}  // namespace gpulab
