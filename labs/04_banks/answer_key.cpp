// FROZEN: do not edit. Lab 04's answer key: every value comes from the bank model (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); most points are on the case "tile",
// which answers.toml states and `grader --student ID` draws per student.
#include <cstdint>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/banks.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

constexpr std::int64_t kTile = 32;      // a 32x32 tile; a warp's 32 lanes
constexpr std::int64_t kSide = 8192;    // the timed transpose: 8192 x 8192 FP32

// Rounds when lane i reads element (row = i, col) of a row-major tile with `stride` elements per row.
double column_rounds(std::int64_t stride, int element_bytes) {
    return double(models::strided_element_rounds(stride, element_bytes));
}

double transpose_mib(std::int64_t rows, std::int64_t cols, int element_bytes) {
    return models::to_mib(2.0 * double(rows) * double(cols) * element_bytes);  // every element read once, written once
}

}  // namespace

void register_answers(Lab& lab) {
    lab.number("banks.row_read_rounds_fp32_32x32", "A warp reads one row of a 32x32 FP32 tile: rounds?", 0.5, 0.0,
               [] { return column_rounds(1, 4); });
    lab.number("banks.column_read_rounds_fp32_32x32", "A warp reads one column of a 32x32 FP32 tile: rounds?", 0.5, 0.0,
               [] { return column_rounds(kTile, 4); });
    lab.number("banks.column_read_rounds_padded_33", "The same column with rows 33 words apart: rounds?", 0.5, 0.0,
               [] { return column_rounds(kTile + 1, 4); });
    lab.number("banks.column_read_rounds_padded_34", "The same column with rows 34 words apart: rounds?", 0.5, 0.0,
               [] { return column_rounds(kTile + 2, 4); });
    lab.number("banks.padded_tile_bytes", "Bytes of the 32x32 FP32 tile padded to 33 words per row", 0.5, 0.0,
               [] { return double(models::padding_cost(kTile, kTile, 1).padded_bytes); });
    lab.number("banks.padding_overhead_percent", "That padding's cost, in percent of the unpadded tile", 0.5, 0.01,
               [] { return 100.0 * models::padding_cost(kTile, kTile, 1).overhead_fraction; });
    lab.number("banks.column_read_rounds_swizzled", "A column of the XOR-swizzled FP32 tile: rounds?", 0.5, 0.0,
               [] { return double(models::swizzled_column_read_rounds(kTile, kTile, 0)); });
    lab.number("banks.swizzle_extra_bytes", "Extra bytes the XOR swizzle costs", 0.5, 0.0,
               [] { return double(models::padding_cost(kTile, kTile, 0).extra_bytes); });
    lab.number("banks.column_read_rounds_bf16_32x32", "A column of a 32x32 BF16 tile, rows 32 elements apart: rounds?", 0.5,
               0.0, [] { return column_rounds(kTile, 2); });
    lab.number("transpose.bytes_moved_mib_8192_fp32", "MiB a transpose of an 8192x8192 FP32 matrix reads plus writes", 0.5,
               0.005, [] { return transpose_mib(kSide, kSide, 4); });
    lab.number("transpose.naive_tile_conflicts_8192",
               "Extra rounds of the plain tiled transpose's shared-memory column reads at 8192x8192 FP32", 0.5, 0.001,
               [] { return double(models::tiled_transpose_extra_rounds(kSide, kSide, kTile)); });

    // The case: a tile of another width, padding and element size, and a transpose of another shape.
    lab.exercise_case("tile", "a tile of 32 rows of `width` elements of `bytes` bytes, each row padded by `pad` elements; "
                              "an FP32 matrix of rows x cols",
                      {{"width", 80, 16, 128, 16}, {"pad", 3, 1, 4}, {"bytes", 2, 2, 4, 2}, {"rows", 6144, 1024, 16384, 32},
                       {"cols", 3072, 1024, 16384, 32}});
    lab.number_for_case("tile", "case.columns_extra_rounds",
                        "Extra rounds (beyond one per warp request) to read each of the tile's `width` columns once", 2.9,
                        0.0, [](const CaseValues& v) {
                            const std::int64_t stride = v.at("width") + v.at("pad");
                            double extra = 0;
                            for (std::int64_t col = 0; col < v.at("width"); ++col) {
                                std::vector<std::int64_t> lanes;  // lane r reads (row r, col)
                                for (std::int64_t r = 0; r < kTile; ++r) lanes.push_back(r * stride + col);
                                extra += models::element_access_rounds(lanes, static_cast<int>(v.at("bytes"))) - 1;
                            }
                            return extra;
                        });
    lab.number_for_case("tile", "case.tile_bytes", "Bytes of the padded tile", 2.9, 0.0, [](const CaseValues& v) {
        return double(models::padding_cost(kTile, v.at("width"), v.at("pad"), static_cast<int>(v.at("bytes"))).padded_bytes);
    });
    lab.number_for_case("tile", "case.overhead_percent", "The padding's cost, in percent of the unpadded tile", 2.9, 0.01,
                        [](const CaseValues& v) {
                            return 100.0 * models::padding_cost(kTile, v.at("width"), v.at("pad"),
                                                                static_cast<int>(v.at("bytes"))).overhead_fraction;
                        });
    lab.number_for_case("tile", "case.transpose_mib", "MiB the rows x cols FP32 transpose reads plus writes", 2.9, 0.005,
                        [](const CaseValues& v) { return transpose_mib(v.at("rows"), v.at("cols"), 4); });
    lab.number_for_case("tile", "case.plain_tile_conflicts",
                        "Extra rounds of the plain tiled transpose's shared-memory column reads for that matrix", 2.9, 0.001,
                        [](const CaseValues& v) {
                            return double(models::tiled_transpose_extra_rounds(v.at("rows"), v.at("cols"), kTile));
                        });

    // The calculator runs that work these questions (bank-rounds: lane i reads row i of column 0 of a tile of 32 rows
    // of `width` elements, `pad` more per row), each naming the parameters its questions depend on: wherever
    // `grader calc` has them at these values it shows the method, not the numbers. A row read is the column read of
    // a one-element-wide tile (rows 1 element apart). A tile's bytes do not depend on the swizzle.
    const auto rounds = [](std::int64_t width, std::int64_t pad, int element_bytes, bool swizzle = false) {
        return CalcRun{.model = "bank-rounds",
                       .params = {{"lanes", std::to_string(kTile)}, {"width", std::to_string(width)}, {"pad", std::to_string(pad)},
                                  {"element-bytes", std::to_string(element_bytes)}, {"swizzle", swizzle ? "1" : "0"}}};
    };
    lab.graded_calc("banks.row_read_rounds_fp32_32x32", rounds(1, 0, 4));
    lab.graded_calc("banks.column_read_rounds_fp32_32x32", rounds(kTile, 0, 4));
    lab.graded_calc("banks.column_read_rounds_padded_33, banks.padded_tile_bytes, banks.padding_overhead_percent",
                    rounds(kTile, 1, 4));
    lab.graded_calc("banks.column_read_rounds_padded_34", rounds(kTile, 2, 4));
    lab.graded_calc("banks.column_read_rounds_swizzled, banks.swizzle_extra_bytes", rounds(kTile, 0, 4, true));
    lab.graded_calc("banks.column_read_rounds_bf16_32x32", rounds(kTile, 0, 2));
    lab.graded_calc_for_case("tile", "case.tile_bytes, case.overhead_percent (and column 0 of case.columns_extra_rounds)",
                             [=](const CaseValues& v) {
                                 CalcRun run = rounds(v.at("width"), v.at("pad"), int(v.at("bytes")));
                                 run.params.erase("swizzle");
                                 return run;
                             });
}
