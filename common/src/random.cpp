// Seeded host fills; the device fills (random_device.cu) produce the same bits.
#include "labs/random.hpp"

#include "labs/numeric.hpp"

namespace gpulab {

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = uniform_at(seed, i, lo, hi);
}

void fill_uniform_bf16(std::span<std::uint16_t> out, std::uint64_t seed, float lo, float hi) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = float_to_bf16_bits(uniform_at(seed, i, lo, hi));
}

}  // namespace gpulab
