// Comparing results with the expected values; locating the errors.
#include "labs/compare.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "labs/buffer.hpp"
#include "labs/numeric.hpp"

namespace gpulab {
namespace {

constexpr double kClusterFraction = 0.9;

struct Locator {
    TileLayout L;
    std::size_t full_rows = 0;  // rows covered by whole tiles
    std::size_t full_cols = 0;

    explicit Locator(TileLayout layout, std::size_t n) : L(layout) {
        if (L.cols == 0) {
            L.rows = 1;
            L.cols = n;
        }
        full_rows = L.tile_rows ? (L.rows / L.tile_rows) * L.tile_rows : L.rows;
        full_cols = L.tile_cols ? (L.cols / L.tile_cols) * L.tile_cols : L.cols;
    }
    [[nodiscard]] bool analysed() const { return L.tile_rows != 0 || L.tile_cols != 0; }
    [[nodiscard]] bool in_tail(std::size_t i) const {
        const std::size_t r = i / L.cols, c = i % L.cols;
        return r >= full_rows || c >= full_cols;
    }
    [[nodiscard]] bool on_border(std::size_t i) const {
        const std::size_t r = i / L.cols, c = i % L.cols;
        const bool rb = L.tile_rows > 1 && (r % L.tile_rows == 0 || r % L.tile_rows == L.tile_rows - 1);
        const bool cb = L.tile_cols > 1 && (c % L.tile_cols == 0 || c % L.tile_cols == L.tile_cols - 1);
        return rb || cb;
    }
};

std::string fmt(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    std::ostringstream s;
    s.precision(7);
    s << v;
    return s.str();
}

template <typename Raw, typename Widen>
CompareReport compare_raw(std::span<const Raw> out, std::span<const double> ref, Tolerance tol,
                          TileLayout layout, Widen widen) {
    if (out.size() != ref.size()) throw std::invalid_argument("compare: output and expected sizes differ");
    std::vector<double> wide(out.size());
    std::unique_ptr<bool[]> unwritten(new bool[out.size()]);
    for (std::size_t i = 0; i < out.size(); ++i) {
        unwritten[i] = is_poison(out[i]);
        wide[i] = widen(out[i]);
    }
    return compare(wide, ref, tol, layout, std::span<const bool>(unwritten.get(), out.size()));
}

template <typename Raw>
CompareReport compare_bits_impl(std::span<const Raw> out, std::span<const Raw> ref, TileLayout layout) {
    if (out.size() != ref.size()) throw std::invalid_argument("compare_bits: sizes differ");
    CompareReport r;
    Locator loc(layout, out.size());
    r.layout = loc.L;
    r.count = out.size();
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (loc.analysed() && loc.in_tail(i)) ++r.tail_count;
        if (std::memcmp(&out[i], &ref[i], sizeof(Raw)) == 0) continue;
        ++r.bad_count;
        if (is_poison(out[i])) ++r.unwritten_count;
        if (!r.first_bad) {
            r.first_bad = i;
            if constexpr (std::is_same_v<Raw, float>) {
                r.first_bad_out = std::bit_cast<std::uint32_t>(out[i]);
                r.first_bad_ref = std::bit_cast<std::uint32_t>(ref[i]);
            } else {
                r.first_bad_out = static_cast<double>(out[i]);
                r.first_bad_ref = static_cast<double>(ref[i]);
            }
        }
        if (loc.analysed()) {
            if (loc.in_tail(i)) ++r.bad_in_tail;
            else if (loc.on_border(i)) ++r.bad_on_tile_border;
        }
    }
    return r;
}

}  // namespace

bool CompareReport::clustered_in_tail() const noexcept {
    return bad_count > 0 && tail_count > 0 && tail_count * 2 < count &&
           static_cast<double>(bad_in_tail) >= kClusterFraction * static_cast<double>(bad_count);
}

bool CompareReport::clustered_on_tile_borders() const noexcept {
    return bad_count > 0 &&
           static_cast<double>(bad_on_tile_border) >= kClusterFraction * static_cast<double>(bad_count);
}

std::string CompareReport::hint() const {
    if (count == 0) return "nothing was compared";
    if (bad_count == 0) return "";
    if (unwritten_count == bad_count && unwritten_count == count)
        return "no output element was written: was the kernel launched, and on the right buffer?";
    if (clustered_in_tail())
        return "errors only in the last partial tile: missing or wrong bounds guard for the tail?";
    if (unwritten_count > 0 && unwritten_count == bad_count)
        return "some output elements were never written: does the grid cover the whole output?";
    if (clustered_on_tile_borders())
        return "errors on tile borders: off-by-one in tile indexing or a missing barrier?";
    if (nan_count + inf_count == bad_count)
        return "non-finite results: overflow, division by zero, or reading uninitialised memory?";
    return "";
}

std::string CompareReport::describe() const {
    std::ostringstream s;
    if (count == 0) return "nothing was compared";
    if (bad_count == 0) {
        s << "all " << count << " elements match";
        return s.str();
    }
    s << bad_count << " of " << count << " elements wrong";
    if (first_bad) {
        const std::size_t i = *first_bad;
        s << "; first at index " << i;
        if (layout.rows > 1 && layout.cols > 0) s << " (row " << i / layout.cols << ", col " << i % layout.cols << ")";
        if (first_bad_unwritten) s << ": never written, expected " << fmt(first_bad_ref);
        else s << ": got " << fmt(first_bad_out) << ", expected " << fmt(first_bad_ref);
    }
    if (unwritten_count > 0) s << "; " << unwritten_count << " never written";
    if (nan_count > 0) s << "; " << nan_count << " NaN";
    if (inf_count > 0) s << "; " << inf_count << " Inf";
    return s.str();
}

void to_json(nlohmann::json& j, const CompareReport& r) {
    j = nlohmann::json{{"passed", r.passed()},
                       {"count", r.count},
                       {"bad_count", r.bad_count},
                       {"nan_count", r.nan_count},
                       {"inf_count", r.inf_count},
                       {"unwritten_count", r.unwritten_count},
                       {"first_bad", r.first_bad ? nlohmann::json(*r.first_bad) : nlohmann::json()},
                       {"max_abs_error", std::isfinite(r.max_abs_error) ? nlohmann::json(r.max_abs_error) : nlohmann::json()},
                       {"rel_error_norm", std::isfinite(r.rel_error_norm) ? nlohmann::json(r.rel_error_norm) : nlohmann::json()},
                       {"bad_in_tail", r.bad_in_tail},
                       {"bad_on_tile_border", r.bad_on_tile_border},
                       {"hint", r.hint()}};
}

double rel_error_norm(std::span<const double> out, std::span<const double> ref) {
    if (out.size() != ref.size()) throw std::invalid_argument("rel_error_norm: sizes differ");
    double num = 0, den = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double d = out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    if (std::isnan(num)) return std::numeric_limits<double>::infinity();
    if (den == 0) return num == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(num / den);
}

CompareReport compare(std::span<const double> out, std::span<const double> ref, Tolerance tol,
                      TileLayout layout, std::span<const bool> unwritten) {
    if (out.size() != ref.size()) throw std::invalid_argument("compare: output and expected sizes differ");
    if (!unwritten.empty() && unwritten.size() != out.size())
        throw std::invalid_argument("compare: unwritten flags and output sizes differ");
    CompareReport r;
    Locator loc(layout, out.size());
    r.layout = loc.L;
    r.count = out.size();
    for (std::size_t i = 0; i < out.size(); ++i) {
        const bool in_tail = loc.analysed() && loc.in_tail(i);
        if (in_tail) ++r.tail_count;
        const double o = out[i], e = ref[i];
        const bool never_written = !unwritten.empty() && unwritten[i];
        bool bad = false;
        if (never_written) {
            ++r.unwritten_count;
            bad = true;
        } else if (std::isnan(o)) {
            ++r.nan_count;
            bad = true;
        } else if (std::isinf(o)) {
            ++r.inf_count;
            bad = true;
        } else {
            const double err = std::fabs(o - e);
            if (err > r.max_abs_error) r.max_abs_error = err;
            bad = !(err <= tol.atol + tol.rtol * std::fabs(e));
        }
        if (!bad) continue;
        ++r.bad_count;
        if (!r.first_bad) {
            r.first_bad = i;
            r.first_bad_out = o;
            r.first_bad_ref = e;
            r.first_bad_unwritten = never_written;
        }
        if (loc.analysed()) {
            if (in_tail) ++r.bad_in_tail;
            else if (loc.on_border(i)) ++r.bad_on_tile_border;
        }
    }
    r.rel_error_norm = (r.nan_count + r.inf_count + r.unwritten_count) > 0
                           ? std::numeric_limits<double>::infinity()
                           : rel_error_norm(out, ref);
    return r;
}

CompareReport compare_f32(std::span<const float> out, std::span<const double> ref, Tolerance tol,
                          TileLayout layout) {
    return compare_raw(out, ref, tol, layout, [](float v) { return static_cast<double>(v); });
}

CompareReport compare_bf16(std::span<const std::uint16_t> out, std::span<const double> ref,
                           Tolerance tol, TileLayout layout) {
    return compare_raw(out, ref, tol, layout,
                       [](std::uint16_t v) { return static_cast<double>(bf16_bits_to_float(v)); });
}

bool bf16_within(std::span<const std::uint16_t> out, std::span<const std::uint16_t> ref, Tolerance tol) {
    if (out.size() != ref.size()) throw std::invalid_argument("bf16_within: output and expected sizes differ");
    if (out.empty()) return false;  // compare() passes nothing on no elements
    for (std::size_t i = 0; i < out.size(); ++i) {
        // compare()'s judgment of one element, on the same widened values.
        if (is_poison(out[i])) return false;
        const double o = static_cast<double>(bf16_bits_to_float(out[i])), e = static_cast<double>(bf16_bits_to_float(ref[i]));
        if (std::isnan(o) || std::isinf(o)) return false;
        if (!(std::fabs(o - e) <= tol.atol + tol.rtol * std::fabs(e))) return false;
    }
    return true;
}

CompareReport compare_e4m3(std::span<const std::uint8_t> out, std::span<const double> ref,
                           Tolerance tol, TileLayout layout) {
    return compare_raw(out, ref, tol, layout,
                       [](std::uint8_t v) { return static_cast<double>(e4m3_bits_to_float(v)); });
}

CompareReport compare_bits(std::span<const std::uint16_t> out, std::span<const std::uint16_t> ref,
                           TileLayout layout) {
    return compare_bits_impl(out, ref, layout);
}
CompareReport compare_bits(std::span<const std::uint8_t> out, std::span<const std::uint8_t> ref,
                           TileLayout layout) {
    return compare_bits_impl(out, ref, layout);
}
CompareReport compare_bits(std::span<const float> out, std::span<const float> ref, TileLayout layout) {
    return compare_bits_impl(out, ref, layout);
}

namespace {
// Maps a sign-magnitude integer encoding onto a line where adjacent values differ by one.
std::int64_t ordered(std::uint64_t bits, int width) {
    const std::uint64_t sign = std::uint64_t(1) << (width - 1);
    const auto mag = static_cast<std::int64_t>(bits & (sign - 1));
    return (bits & sign) ? -mag : mag;
}
std::uint64_t distance(std::int64_t a, std::int64_t b) {
    return a > b ? static_cast<std::uint64_t>(a - b) : static_cast<std::uint64_t>(b - a);
}
}  // namespace

std::uint64_t ulp_distance(float a, float b) noexcept {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<std::uint64_t>::max();
    return distance(ordered(std::bit_cast<std::uint32_t>(a), 32), ordered(std::bit_cast<std::uint32_t>(b), 32));
}

std::uint64_t ulp_distance_bf16(std::uint16_t a, std::uint16_t b) noexcept {
    if (std::isnan(bf16_bits_to_float(a)) || std::isnan(bf16_bits_to_float(b)))
        return std::numeric_limits<std::uint64_t>::max();
    return distance(ordered(a, 16), ordered(b, 16));
}

std::uint64_t ulp_distance_e4m3(std::uint8_t a, std::uint8_t b) noexcept {
    if (std::isnan(e4m3_bits_to_float(a)) || std::isnan(e4m3_bits_to_float(b)))
        return std::numeric_limits<std::uint64_t>::max();
    return distance(ordered(a, 8), ordered(b, 8));
}

}  // namespace gpulab
