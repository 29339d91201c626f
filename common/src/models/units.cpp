// Shared arithmetic of the models: bytes or FLOP at a rate, and break-even counts.
#include "labs/models/units.hpp"

#include <cmath>
#include <stdexcept>

namespace gpulab::models {

double transfer_time_us(double bytes, double bandwidth_gbps) {
    if (!(bandwidth_gbps > 0)) throw std::invalid_argument("bandwidth must be positive");
    return bytes / (bandwidth_gbps * kGBps) * 1e6;
}

double compute_time_us(double flop, double rate_tflops) {
    if (!(rate_tflops > 0)) throw std::invalid_argument("compute rate must be positive");
    return flop / (rate_tflops * kTFLOPs) * 1e6;
}

std::int64_t first_count_exceeding(double fixed_cost, double saving_per_unit) {
    if (!(saving_per_unit > 0)) {
        throw std::invalid_argument("the saving per unit is not positive: the fixed cost never pays back");
    }
    if (fixed_cost <= 0) return 1;
    // n · saving > fixed  ⇔  n > fixed / saving; the smallest such whole n.
    return static_cast<std::int64_t>(std::floor(fixed_cost / saving_per_unit)) + 1;
}

}  // namespace gpulab::models
