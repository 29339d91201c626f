// Lab 10's judge (judge.hpp) on rows whose sums are added on the host in the orders real kernels use — one thread left
// to right, segments then their partial sums, a pairwise tree, 256 strided threads and a halving tree (the given
// kernel's), sorted up and down — each then finished with the lab's own row_scale() and normalize(): every one is
// accepted, and what a wrong kernel leaves is not (a tail left out of the sum, a scale beyond the bound, one element
// off by a BF16 step, an element or a scale never written). No GPU, no student code.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "judge.hpp"
#include "labs/random.hpp"

namespace {

constexpr float kEps = 1e-6f;

struct Row {
    std::vector<std::uint16_t> x, g;
    [[nodiscard]] int cols() const { return int(x.size()); }
    [[nodiscard]] float square(int j) const { return rmsnorm::square(std::bit_cast<__nv_bfloat16>(x[std::size_t(j)])); }
};

Row random_row(int cols, std::uint64_t seed, float range = 1.25f) {
    Row r;
    r.x.resize(std::size_t(cols));
    r.g.resize(std::size_t(cols));
    gpulab::fill_uniform_bf16(r.x, seed, -range, range);
    gpulab::fill_uniform_bf16(r.g, seed + 1, 0.5f, 1.5f);
    return r;
}

// The output of a row whose sum of squares is `sum`: the scale and every element, as a kernel computes them.
struct Out {
    float scale = 0;
    std::vector<std::uint16_t> y;
};

Out finish(const Row& row, float sum) {
    Out o;
    o.scale = rmsnorm::row_scale(sum, row.cols(), kEps);
    for (int j = 0; j < row.cols(); ++j)
        o.y.push_back(std::bit_cast<std::uint16_t>(rmsnorm::normalize(std::bit_cast<__nv_bfloat16>(row.x[std::size_t(j)]), o.scale,
                                                                      std::bit_cast<__nv_bfloat16>(row.g[std::size_t(j)]))));
    return o;
}

lab10::RowVerdict judge(const Row& row, const Out& o) {
    return lab10::judge_row(row.x.data(), row.g.data(), o.y.data(), o.scale, row.cols(), kEps, 0);
}

// ---- the orders -----------------------------------------------------------------------------------------------

float serial(const Row& r, int lo, int hi) {
    float s = 0;
    for (int j = lo; j < hi; ++j) s += r.square(j);
    return s;
}

float segmented(const Row& r, int segments) {
    const int length = (r.cols() + segments - 1) / segments;
    float s = 0;
    for (int lo = 0; lo < r.cols(); lo += length) s += serial(r, lo, std::min(r.cols(), lo + length));
    return s;
}

float pairwise(const Row& r, int lo, int hi) {
    if (hi - lo == 1) return r.square(lo);
    const int mid = lo + (hi - lo) / 2;
    return pairwise(r, lo, mid) + pairwise(r, mid, hi);
}

float strided_then_tree(const Row& r) {  // the given kernel's order: 256 threads, then a halving tree
    std::vector<float> t(256, 0.0f);
    for (int j = 0; j < r.cols(); ++j) t[std::size_t(j % 256)] += r.square(j);
    for (int half = 128; half > 0; half /= 2)
        for (int i = 0; i < half; ++i) t[std::size_t(i)] += t[std::size_t(i + half)];
    return t[0];
}

float sorted_sum(const Row& r, bool up) {
    std::vector<float> sq;
    for (int j = 0; j < r.cols(); ++j) sq.push_back(r.square(j));
    std::sort(sq.begin(), sq.end());
    if (!up) std::reverse(sq.begin(), sq.end());
    return std::accumulate(sq.begin(), sq.end(), 0.0f);
}

}  // namespace

TEST_CASE("every order a kernel may add a row in is accepted", "[lab10][judge]") {
    for (const int cols : {1, 7, 4096, 4100, 65544}) {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            const Row row = random_row(cols, seed * 131 + std::uint64_t(cols));
            const std::vector<std::pair<const char*, float>> sums = {
                {"serial", serial(row, 0, cols)},      {"8 segments", segmented(row, 8)},
                {"64 segments", segmented(row, std::min(cols, 64))}, {"pairwise", pairwise(row, 0, cols)},
                {"strided, tree", strided_then_tree(row)},           {"sorted up", sorted_sum(row, true)},
                {"sorted down", sorted_sum(row, false)},             {"exact, rounded", float(lab10::exact_sum(row.x.data(), cols))}};
            for (const auto& [order, sum] : sums) {
                INFO("cols " << cols << ", seed " << seed << ", " << order);
                const lab10::RowVerdict v = judge(row, finish(row, sum));
                CHECK(v.wrong.empty());
                CHECK(v.scale_units <= lab10::scale_bound(cols, lab10::exact_sum(row.x.data(), cols) / cols, kEps) / lab10::kUnit);
            }
        }
    }
}

TEST_CASE("the bound: a scale just inside is accepted, one past it is not", "[lab10][judge]") {
    const Row row = random_row(4096, 99);
    const double mean = lab10::exact_sum(row.x.data(), 4096) / 4096;
    const double exact = 1.0 / std::sqrt(mean + kEps), bound = lab10::scale_bound(4096, mean, kEps);
    // The bound of a 4096-long row: about half of 4095 u for the sum, a few u more for the rest.
    CHECK(bound / lab10::kUnit > 2047);
    CHECK(bound / lab10::kUnit < 2060);
    Out inside = finish(row, serial(row, 0, 4096));
    inside.scale = float(exact * (1 + 0.9 * bound));
    inside = [&] {
        Out o = inside;
        o.y.clear();
        for (int j = 0; j < 4096; ++j)
            o.y.push_back(std::bit_cast<std::uint16_t>(rmsnorm::normalize(std::bit_cast<__nv_bfloat16>(row.x[std::size_t(j)]), o.scale,
                                                                          std::bit_cast<__nv_bfloat16>(row.g[std::size_t(j)]))));
        return o;
    }();
    CHECK(judge(row, inside).wrong.empty());
    Out past = inside;
    past.scale = float(exact * (1 + 1.2 * bound));
    const lab10::RowVerdict v = judge(row, past);
    CHECK(v.wrong.find("beyond the") != std::string::npos);
}

TEST_CASE("what a wrong kernel leaves is caught", "[lab10][judge]") {
    SECTION("a tail of 4 large squares left out of a row of 4100: its scale is beyond the bound") {
        Row row = random_row(4100, 7);
        for (int j = 4096; j < 4100; ++j) row.x[std::size_t(j)] = gpulab::float_to_bf16_bits(1.25f);
        const lab10::RowVerdict v = judge(row, finish(row, serial(row, 0, 4096)));
        CHECK(v.wrong.find("beyond the") != std::string::npos);
    }
    SECTION("a tail of 8 left out of a row of 65544 hides inside the bound of its sum, but its outputs are never written") {
        const Row row = random_row(65544, 8);
        Out o = finish(row, serial(row, 0, 65536));
        for (int j = 65536; j < 65544; ++j) o.y[std::size_t(j)] = 0xFFFF;
        const lab10::RowVerdict v = judge(row, o);
        CHECK(v.wrong.find("column 65536: never written") != std::string::npos);
    }
    SECTION("one element one BF16 step off: named, with the value it should hold") {
        const Row row = random_row(4096, 9);
        Out o = finish(row, segmented(row, 8));
        o.y[123] ^= 1;
        const lab10::RowVerdict v = judge(row, o);
        CHECK(v.wrong.find("row 0, column 123: 0x") != std::string::npos);
    }
    SECTION("y computed with another scale than the one written") {
        const Row row = random_row(4096, 10);
        Out o = finish(row, segmented(row, 8));
        o.scale *= 1 + 200 * 0x1p-24f;  // still within the bound, but not the scale y was computed with
        const lab10::RowVerdict v = judge(row, o);
        CHECK(v.wrong.find("but normalize(x, the row's scale") != std::string::npos);
    }
    SECTION("a scale never written") {
        const Row row = random_row(64, 11);
        Out o = finish(row, serial(row, 0, 64));
        o.scale = std::bit_cast<float>(0xFFFFFFFFu);
        CHECK(judge(row, o).wrong == "row 0: its scale was never written");
    }
}
