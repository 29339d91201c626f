// Comparing a model's output with a number as the chapter prints it.
#pragma once

#include <cmath>

namespace gpulab::testing {

/**
 * True when @p value, rounded to @p decimals decimal places, is the printed number @p printed
 * (the chapter's "15.2 KB" is any value in [15.15, 15.25)).
 */
inline bool prints_as(double value, double printed, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::llround(value * scale) == std::llround(printed * scale);
}

}  // namespace gpulab::testing
