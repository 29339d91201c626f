// Seeded host fills; the device fills (random_device.cu) produce the same bits.
#include "labs/random.hpp"

#include <chrono>
#include <random>

#include "labs/numeric.hpp"

namespace gpulab {

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = uniform_at(seed, i, lo, hi);
}

void fill_uniform_bf16(std::span<std::uint16_t> out, std::uint64_t seed, float lo, float hi) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = float_to_bf16_bits(uniform_at(seed, i, lo, hi));
}

std::uint64_t fresh_seed() {
    std::random_device rd;
    const auto t = static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    // Keep seeds short enough to type back on the command line.
    return mix64(t ^ (static_cast<std::uint64_t>(rd()) << 32) ^ rd()) % 1000000000ull;
}

}  // namespace gpulab
