// Device fills give the host fills' bits.
#include <cstdint>
#include <vector>

#include "catch_compat.hpp"
#include "labs/bf16.hpp"
#include "labs/buffer.hpp"
#include "labs/random.hpp"

using namespace gpulab;

TEST_CASE("Device uniform fill equals the host fill with the same seed", "[random][gpu]") {
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(1) << 22}) {
        DeviceBuffer<float> d(n);
        fill_uniform_device(d.data(), n, 31337, -3.0f, 5.0f);
        std::vector<float> h(n);
        fill_uniform(h, 31337, -3.0f, 5.0f);
        INFO("n = " << n);
        REQUIRE(to_host(d) == h);
    }
}

TEST_CASE("Device BF16 fill equals the host BF16 fill with the same seed", "[random][gpu][bf16]") {
    const std::size_t n = (std::size_t(1) << 20) + 7;
    DeviceBuffer<bf16> d(n);
    fill_uniform_bf16_device(d.data(), n, 99);
    std::vector<std::uint16_t> h(n);
    fill_uniform_bf16(h, 99);
    REQUIRE(to_host_bits(d) == h);
}
