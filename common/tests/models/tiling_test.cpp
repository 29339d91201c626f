// Sections 5.2.1, 5.2.2, 5.4.2, 5.4.4 and 5.4.6: tile storage, traffic, intensity, MFU ceilings, resident tiles,
// time ratios, the AKG read counts. (Experiment 5-1's answers: solutions/tests/models_answers_test.cpp.)
#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "model_fixtures.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/roofline.hpp"
#include "labs/models/tiling.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using namespace gpulab::models::fixtures;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("The running example: 103 GFLOP, matrices of 8, 96 and 24 MiB, 128 MiB once", "[models][tiling]") {
    const GemmShape g = running();
    CHECK(g.m == 1024);
    CHECK(g.k == 4096);
    CHECK(g.n == 12288);
    CHECK(prints_as(gemm_flop(g) / 1e9, 103, 0));
    CHECK(to_mib(gemm_once_bytes(g)) == 128);
    const TileTraffic whole = tile_traffic(g, {g.m, g.n, 32});  // one tile: every matrix once
    CHECK(to_mib(whole.a_read_bytes) == 8);
    CHECK(to_mib(whole.w_read_bytes) == 96);
    CHECK(to_mib(whole.c_write_bytes) == 24);
}

TEST_CASE("Local storage of one buffer set with k = 32: 8, 24 and 80 KiB", "[models][tiling]") {
    const GemmShape g = running();
    const LocalStorage s64 = local_storage(g, {64, 64, 32});
    CHECK(to_kib(s64.a_tile_bytes) == 4);
    CHECK(to_kib(s64.w_tile_bytes) == 4);
    CHECK(to_kib(s64.acc_bytes) == 16);
    CHECK(to_kib(s64.total_bytes) == 24);
    const LocalStorage s128 = local_storage(g, {128, 128, 32});
    CHECK(to_kib(s128.a_tile_bytes) == 8);
    CHECK(to_kib(s128.acc_bytes) == 64);
    CHECK(to_kib(s128.total_bytes) == 80);
    CHECK(to_kib(local_storage(g, {32, 32, 32}).total_bytes) == 8);
    // Section 5.4.6: double-buffered inputs make the working sets 32 and 96 KiB.
    CHECK(to_kib(local_storage(g, {64, 64, 32}, 2).total_bytes) == 32);
    CHECK(to_kib(local_storage(g, {128, 128, 32}, 2).total_bytes) == 96);
}

TEST_CASE("Traffic with independent tiles: 6168, 3096 and 1560 MiB; intensity 15.9, 31.7, 63.0", "[models][tiling]") {
    const GemmShape g = running();
    // Square tiles, K step 32: A is read once per column block, W once per row block, C written once (MiB).
    struct Traffic {
        std::int64_t tile, row_blocks, col_blocks;
        double a_mib, w_mib, c_mib, total_mib;
    };
    for (const Traffic& want : {Traffic{32, 32, 384, 3072, 3072, 24, 6168}, Traffic{64, 16, 192, 1536, 1536, 24, 3096},
                                Traffic{128, 8, 96, 768, 768, 24, 1560}}) {
        INFO("tile " << want.tile);
        const TileTraffic t = tile_traffic(g, {want.tile, want.tile, 32});
        CHECK(t.row_blocks == want.row_blocks);
        CHECK(t.col_blocks == want.col_blocks);
        CHECK(to_mib(t.a_read_bytes) == want.a_mib);
        CHECK(to_mib(t.w_read_bytes) == want.w_mib);
        CHECK(to_mib(t.c_write_bytes) == want.c_mib);
        CHECK(to_mib(t.total_bytes) == want.total_mib);
    }
    CHECK(prints_as(tile_traffic(g, {32, 32, 32}).intensity_flop_per_byte, 15.9, 1));
    // The chapter prints 31.7: it divides the rounded 103 GFLOP; the exact ratio is 31.75 (FINDINGS.md).
    const TileTraffic t64 = tile_traffic(g, {64, 64, 32});
    CHECK(t64.intensity_flop_per_byte == Approx(31.75).margin(0.005));
    CHECK(prints_as(103e9 / t64.total_bytes, 31.7, 1));
    CHECK(prints_as(tile_traffic(g, {128, 128, 32}).intensity_flop_per_byte, 63.0, 1));
}

TEST_CASE("All three tilings sit far below the H100 ridge: MFU ceilings 5%, 11%, 21%", "[models][tiling]") {
    const DeviceSpec h100 = load_device("H100");
    const GemmShape g = running();
    CHECK(prints_as(tiling_report(g, {32, 32, 32}, h100).mfu_ceiling * 100, 5, 0));
    CHECK(prints_as(tiling_report(g, {64, 64, 32}, h100).mfu_ceiling * 100, 11, 0));
    const TilingReport r128 = tiling_report(g, {128, 128, 32}, h100);
    CHECK(prints_as(r128.mfu_ceiling * 100, 21, 0));
    CHECK(prints_as(r128.device_intensity_flop_per_byte, 295, 0));
    CHECK(mfu_ceiling(1000, 295) == 1);
}

TEST_CASE("On an RTX PRO 6000 SM four 24 KiB tiles fit but only one 80 KiB tile", "[models][tiling]") {
    const DeviceSpec pro = load_device("RTX PRO 6000");
    const GemmShape g = running();
    CHECK(tiling_report(g, {64, 64, 32}, pro).resident_tiles_per_sm == 4);
    CHECK(tiling_report(g, {128, 128, 32}, pro).resident_tiles_per_sm == 1);
    // Section 5.4.6: double buffering turns 4 and 1 into 3 and 1.
    CHECK(tiling_report(g, {64, 64, 32}, pro, 2).resident_tiles_per_sm == 3);
    CHECK(tiling_report(g, {128, 128, 32}, pro, 2).resident_tiles_per_sm == 1);
}

TEST_CASE("The big tile is 26% slower if it gets only 40% of the bandwidth", "[models][tiling]") {
    const GemmShape g = running();
    const double v64 = tile_traffic(g, {64, 64, 32}).total_bytes;
    const double v128 = tile_traffic(g, {128, 128, 32}).total_bytes;
    CHECK(prints_as(time_ratio(v128, v64, 1, 1), 0.504, 3));
    CHECK(prints_as(time_ratio(v128, v64, 0.4, 1.0), 1.26, 2));
}

TEST_CASE("Loop transforms of section 5.4.2: 16 x 192 output tiles, 128 reduction tiles, 3072 tile ids", "[models][tiling]") {
    const TileTraffic t = tile_traffic(running(), {64, 64, 32});
    CHECK(t.row_blocks == 16);
    CHECK(t.col_blocks == 192);
    CHECK(t.k_steps == 128);
    CHECK(t.output_tiles == 3072);
    // Computing SiLU right after each tile's K loop saves C's write and read back: 48 MiB.
    CHECK(to_mib(2 * t.c_write_bytes) == 48);
}

TEST_CASE("AKG example: 137.4 GFLOP, naive reads 256 GiB, 64x64x32 tiles read 4 GiB", "[models][tiling][akg]") {
    const GemmShape g{4096, 4096, 4096, 2, 2, 4, 4};  // A, B BF16; C FP32
    CHECK(prints_as(gemm_flop(g) / 1e9, 137.4, 1));
    CHECK(to_gib(naive_input_read_bytes(g)) == 256);
    const TileTraffic t = tile_traffic(g, {64, 64, 32});
    CHECK(t.output_tiles == 4096);
    CHECK(t.k_steps == 128);
    CHECK(to_kib(t.input_bytes_per_tile) == 1024);
    CHECK(to_gib(t.input_read_bytes) == 4);
    CHECK(naive_input_read_bytes(g) / t.input_read_bytes == 64);
    CHECK(to_mib(t.c_write_bytes) == 64);
    const LocalStorage one = local_storage(g, {64, 64, 32});
    CHECK(to_kib(one.a_tile_bytes) == 4);
    CHECK(to_kib(one.acc_bytes) == 16);
    CHECK(to_kib(local_storage(g, {64, 64, 32}, 2).a_tile_bytes) == 8);  // double-buffered slot
}

TEST_CASE("Tiles larger than the matrix or empty are rejected", "[models][tiling]") {
    const GemmShape g{64, 64, 64};
    CHECK_THROWS_AS(tile_traffic(g, {128, 64, 32}), std::invalid_argument);
    CHECK_THROWS_AS(tile_traffic(g, {64, 64, 0}), std::invalid_argument);
    CHECK_THROWS_AS(local_storage(g, {64, 64, 32}, 0), std::invalid_argument);
    // Partial tiles: ⌈N/n⌉ column blocks each read all of A.
    CHECK(tile_traffic({100, 64, 100}, {64, 64, 64}).col_blocks == 2);
}

TEST_CASE("Lab 00: vector add over 1000 FP32 elements", "[models][roofline]") {
    const VectorAdd v = vector_add(1000, 256);
    CHECK(v.grid_blocks == 4);
    CHECK(v.idle_threads == 24);
    CHECK(v.bytes == 12000);
    CHECK(v.intensity_flop_per_byte == Approx(1.0 / 12.0));
    CHECK_THROWS_AS(vector_add(0, 256), std::invalid_argument);
}
