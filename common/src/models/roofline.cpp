// Roofline quantities and the vector-add launch of lab 00.
#include "labs/models/roofline.hpp"

#include <algorithm>
#include <stdexcept>

#include "labs/math.hpp"
#include "labs/models/units.hpp"

namespace gpulab::models {

double arithmetic_intensity(double flop, double bytes) {
    if (!(bytes > 0)) throw std::invalid_argument("bytes moved must be positive");
    return flop / bytes;
}

double device_intensity_flop_per_byte(double peak_tflops, double bandwidth_gbps) {
    if (!(bandwidth_gbps > 0)) throw std::invalid_argument("bandwidth must be positive");
    return peak_tflops * kTFLOPs / (bandwidth_gbps * kGBps);
}

double device_intensity_flop_per_byte(const DeviceSpec& d) {
    return device_intensity_flop_per_byte(d.bf16_dense_tflops, d.memory_bandwidth_gbps);
}

double mfu_ceiling(double intensity_flop_per_byte, double device_intensity) {
    if (!(device_intensity > 0)) throw std::invalid_argument("device intensity must be positive");
    return std::min(1.0, intensity_flop_per_byte / device_intensity);
}

double roofline_time_us(double flop, double bytes, double peak_tflops, double bandwidth_gbps) {
    return std::max(transfer_time_us(bytes, bandwidth_gbps), compute_time_us(flop, peak_tflops));
}

VectorAdd vector_add(std::int64_t n, std::int64_t block_threads, int elem_bytes) {
    if (n < 1) throw std::invalid_argument("vector length must be at least 1");
    if (block_threads < 1) throw std::invalid_argument("block size must be at least 1");
    VectorAdd v;
    v.grid_blocks = ceil_div(n, block_threads);
    v.idle_threads = v.grid_blocks * block_threads - n;
    v.flop = static_cast<double>(n);
    v.bytes = 3.0 * static_cast<double>(n) * elem_bytes;
    v.intensity_flop_per_byte = arithmetic_intensity(v.flop, v.bytes);
    return v;
}

}  // namespace gpulab::models
