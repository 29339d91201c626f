/**
 * @file text.hpp
 * @brief Text helpers the course's host code shares: printf-style formatting into a std::string (the toolchains
 * the labs support do not all have std::format), for messages that quote measured numbers; splitting a list,
 * joining one, trimming.
 */
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

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

/** @brief @p s without the spaces and tabs at either end. @param s the text */
[[nodiscard]] inline std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return "";
    return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

/** @brief The non-empty items of a list separated by @p sep, each trimmed ("a, b,,c," has three).
 *  @param text the list @param sep the separator */
[[nodiscard]] inline std::vector<std::string> split(std::string_view text, char sep = ',') {
    std::vector<std::string> items;
    if (text.empty()) return items;
    for (std::size_t at = 0;;) {
        const std::size_t end = text.find(sep, at);
        std::string item = trim(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        if (!item.empty()) items.push_back(std::move(item));
        if (end == std::string_view::npos) break;
        at = end + 1;
    }
    return items;
}

/** @brief The items joined by @p sep. @param items the items @param sep what goes between two */
[[nodiscard]] inline std::string join(const std::vector<std::string>& items, std::string_view sep = ",") {
    std::string out;
    for (const std::string& item : items) {
        if (!out.empty() || &item != &items.front()) out += sep;
        out += item;
    }
    return out;
}

}  // namespace gpulab
