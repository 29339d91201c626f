// FROZEN: do not edit. Lab 12's given helpers (request.hpp).
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "request.hpp"

namespace request {

double median(std::vector<double> v) {
    if (v.empty()) throw std::invalid_argument("median of no values");
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1) return upper;
    return (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)) + upper) / 2;
}

}  // namespace request
