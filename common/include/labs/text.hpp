/**
 * @file text.hpp
 * @brief printf-style formatting into a std::string (the toolchains the labs support do not all have
 * std::format), for messages that quote measured numbers.
 */
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace gpulab {

/** @brief std::snprintf into a std::string of the right length. @param format a printf format */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline std::string strprintf(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, again);
    va_end(again);
    return out;
}

}  // namespace gpulab
