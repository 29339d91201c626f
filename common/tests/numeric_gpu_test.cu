// The host conversions of numeric.hpp agree with the device's, bit for bit.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "catch_compat.hpp"
#include "labs/buffer.hpp"
#include "labs/numeric.hpp"
#include "labs/random.hpp"

using namespace gpulab;

namespace {

__global__ void bf16_to_float_kernel(const std::uint16_t* in, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __bfloat162float(__ushort_as_bfloat16(in[i]));
}

__global__ void float_to_bf16_kernel(const float* in, std::uint16_t* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
}

__global__ void float_to_e4m3_kernel(const float* in, std::uint8_t* sat, std::uint8_t* nosat, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        sat[i] = __nv_cvt_float_to_fp8(in[i], __NV_SATFINITE, __NV_E4M3);
        nosat[i] = __nv_cvt_float_to_fp8(in[i], __NV_NOSAT, __NV_E4M3);
    }
}

__global__ void e4m3_to_float_kernel(float* out) {
    const unsigned b = threadIdx.x;
    __nv_fp8_e4m3 v;
    v.__x = static_cast<__nv_fp8_storage_t>(b);
    out[b] = static_cast<float>(v);
}

// Edge inputs: zeros, subnormals, extremes, infinities, NaNs with payloads, and for every BF16 and
// E4M3 value its neighbourhood (the value, the halfway points to its neighbours, and one ulp on
// either side of each halfway point).
std::vector<float> edge_values() {
    std::vector<float> v{0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                         std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                         -std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(), std::bit_cast<float>(0x7FC00000u),
                         std::bit_cast<float>(0xFFC00000u), std::bit_cast<float>(0x7F800001u),
                         std::bit_cast<float>(0xFFFFFFFFu), std::bit_cast<float>(0x7FBFFFFFu)};
    auto around = [&](double x) {
        const float f = static_cast<float>(x);
        for (float g : {f, std::nextafter(f, INFINITY), std::nextafter(f, -INFINITY)}) {
            v.push_back(g);
            v.push_back(-g);
        }
    };
    for (std::uint32_t b = 0; b < 0x7F80; ++b) {  // positive finite BF16 values and midpoints
        const double x = bf16_bits_to_float(static_cast<std::uint16_t>(b));
        const double next = bf16_bits_to_float(static_cast<std::uint16_t>(b + 1));
        around(x);
        around((x + next) / 2);
    }
    for (int b = 0; b < 0x7E; ++b) {  // positive finite E4M3 values and midpoints, then past 448
        const double x = e4m3_bits_to_float(static_cast<std::uint8_t>(b));
        const double next = e4m3_bits_to_float(static_cast<std::uint8_t>(b + 1));
        around(x);
        around((x + next) / 2);
    }
    for (double x : {448.0, 456.0, 464.0, 472.0, 480.0, 496.0, 512.0, 1e6}) around(x);
    return v;
}

// 10^7 random FP32 bit patterns (every class: normals of all exponents, subnormals, NaN, Inf), plus
// 4·10^6 values spread log-uniformly over E4M3's range so that the FP8 path sees dense coverage.
std::vector<float> random_values() {
    std::vector<float> v;
    v.reserve(14'000'000);
    for (std::uint64_t i = 0; i < 10'000'000; ++i)
        v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(random_bits(2024, i))));
    for (std::uint64_t i = 0; i < 4'000'000; ++i) {
        const float e = uniform_at(77, i, -12.0f, 10.0f);
        const float s = uniform_at(78, i, -1.0f, 1.0f) < 0 ? -1.0f : 1.0f;
        v.push_back(s * std::exp2(e));
    }
    return v;
}

template <typename T>
std::string mismatch_report(const std::vector<float>& in, const std::vector<T>& host, const std::vector<T>& dev,
                            std::size_t& count) {
    std::ostringstream s;
    count = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (host[i] == dev[i]) continue;
        if (count++ < 8)
            s << std::hex << "input 0x" << std::bit_cast<std::uint32_t>(in[i]) << " (" << in[i] << "): host 0x"
              << +host[i] << " device 0x" << +dev[i] << "\n";
    }
    return s.str();
}

unsigned grid_for(std::size_t n) { return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 8192)); }

void check_float_inputs(const std::vector<float>& in) {
    const std::size_t n = in.size();
    DeviceBuffer<float> d_in = to_device(in);
    DeviceBuffer<std::uint16_t> d_bf16(n);
    DeviceBuffer<std::uint8_t> d_sat(n), d_nosat(n);
    float_to_bf16_kernel<<<grid_for(n), 256>>>(d_in.data(), d_bf16.data(), n);
    float_to_e4m3_kernel<<<grid_for(n), 256>>>(d_in.data(), d_sat.data(), d_nosat.data(), n);
    LABS_CHECK_LAUNCH();
    const auto dev_bf16 = to_host(d_bf16);
    const auto dev_sat = to_host(d_sat);
    const auto dev_nosat = to_host(d_nosat);
    std::vector<std::uint16_t> host_bf16(n);
    std::vector<std::uint8_t> host_sat(n), host_nosat(n);
    for (std::size_t i = 0; i < n; ++i) {
        host_bf16[i] = float_to_bf16_bits(in[i]);
        host_sat[i] = float_to_e4m3_bits(in[i], Fp8Overflow::saturate);
        host_nosat[i] = float_to_e4m3_bits(in[i], Fp8Overflow::to_nan);
    }
    std::size_t bad = 0;
    std::string report = mismatch_report(in, host_bf16, dev_bf16, bad);
    INFO("FP32 -> BF16 over " << n << " inputs:\n" << report);
    CHECK(bad == 0);
    report = mismatch_report(in, host_sat, dev_sat, bad);
    INFO("FP32 -> E4M3 (satfinite) over " << n << " inputs:\n" << report);
    CHECK(bad == 0);
    report = mismatch_report(in, host_nosat, dev_nosat, bad);
    INFO("FP32 -> E4M3 (no saturation) over " << n << " inputs:\n" << report);
    CHECK(bad == 0);
}

}  // namespace

TEST_CASE("All 65,536 BF16 patterns widen to the same FP32 bits on host and device", "[numeric][bf16][gpu]") {
    std::vector<std::uint16_t> all(65536);
    for (std::uint32_t b = 0; b < 65536; ++b) all[b] = static_cast<std::uint16_t>(b);
    DeviceBuffer<std::uint16_t> d_in = to_device(all);
    DeviceBuffer<float> d_out(all.size());
    bf16_to_float_kernel<<<256, 256>>>(d_in.data(), d_out.data(), all.size());
    LABS_CHECK_LAUNCH();
    const auto dev = to_host(d_out);
    std::size_t bad = 0;
    for (std::uint32_t b = 0; b < 65536; ++b)
        if (std::bit_cast<std::uint32_t>(dev[b]) != std::bit_cast<std::uint32_t>(bf16_bits_to_float(all[b]))) ++bad;
    CHECK(bad == 0);
}

TEST_CASE("All 256 E4M3FN patterns widen to the same FP32 values on host and device", "[numeric][fp8][gpu]") {
    DeviceBuffer<float> d_out(256);
    e4m3_to_float_kernel<<<1, 256>>>(d_out.data());
    LABS_CHECK_LAUNCH();
    const auto dev = to_host(d_out);
    for (int b = 0; b < 256; ++b) {
        const float h = e4m3_bits_to_float(static_cast<std::uint8_t>(b));
        INFO("code 0x" << std::hex << b);
        if (std::isnan(h)) CHECK(std::isnan(dev[b]));
        else CHECK(std::bit_cast<std::uint32_t>(h) == std::bit_cast<std::uint32_t>(dev[b]));
    }
}

TEST_CASE("Edge FP32 values round to the same BF16 and E4M3 bits on host and device", "[numeric][gpu]") {
    const auto in = edge_values();
    INFO(in.size() << " edge values");
    check_float_inputs(in);
}

TEST_CASE("Ten million random FP32 patterns round to the same BF16 and E4M3 bits on host and device",
          "[numeric][gpu]") {
    check_float_inputs(random_values());
}
