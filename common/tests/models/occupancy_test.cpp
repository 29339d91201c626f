// Section 5.1.5: residency of the 128×128 tile kernel on an H100 SM, Little's law, MMA counts,
// per-SM copy and math time of one K step. (Exercise 5-1, which the chapter does not work, is tested with the
// solutions: solutions/tests/models_answers_test.cpp.)
#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "model_fixtures.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/models/roofline.hpp"
#include "labs/models/tiling.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using namespace gpulab::models::fixtures;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("The 128x128 tile kernel keeps 2 blocks on an H100 SM, limited by registers and shared memory",
          "[models][occupancy]") {
    // 256 threads, 128 registers per thread, 96 KiB working set (A and W tiles 16 KiB each, FP32 accumulator 64 KiB).
    const Occupancy o = occupancy(h100(), {256, 128, 96 * kKiB});
    CHECK(o.warps_per_block == 8);
    CHECK(o.regs_per_block == 32 * 1024);        // 256 × 128 = 32K
    CHECK(o.smem_per_block_bytes == 97 * kKiB);  // 96 KiB + 1 KiB reserve
    check_residency(o, {8, 2, 2, 32, 2, 0.25, "regs+smem"});
    CHECK(o.resident_warps == 16);
    CHECK(o.smem_free_bytes == 34 * kKiB);  // two blocks leave 34 KiB
    CHECK(o.threads_used == 512);
    CHECK(o.regs_free == 0);
}

TEST_CASE("Moving the accumulator into registers shifts the limiter but not the count", "[models][occupancy]") {
    // The 64 KiB accumulator moves into registers: 64 more per thread (64 + 64 = 128 for a kernel that
    // used 64 before), and the shared-memory working set drops to the two 16 KiB input tiles.
    const Occupancy o = occupancy(h100(), {256, 128, 32 * kKiB});
    check_residency(o, {8, 2, 6, 32, 2, 0.25, "regs"});
}

TEST_CASE("Register allocation follows the warp granularity and the four sub-partitions", "[models][occupancy]") {
    // 192 registers per thread: 6144 per warp; a quarter of the file (16384) holds 2 warps → 8 warps,
    // not the 10 a whole-file division would give.
    const Occupancy o = occupancy(h100(), {64, 192, 0});
    CHECK(o.regs_per_warp == 6144);
    CHECK(o.blocks_by_regs == 4);
    // 33 registers round up to 40 per thread (1280 per warp).
    CHECK(occupancy(h100(), {32, 33, 0}).regs_per_warp == 1280);
    // Over the per-thread limit, or a block larger than the device allows: nothing launches.
    CHECK(occupancy(h100(), {32, 256, 0}).resident_blocks == 0);
    CHECK(occupancy(h100(), {2048, 16, 0}).resident_blocks == 0);
    // Shared memory beyond the per-block opt-in maximum: no block.
    CHECK(occupancy(h100(), {128, 32, 232449}).blocks_by_smem == 0);
    // No working set still takes the 1 KiB reserve: 228 blocks' worth, so the block limit rules.
    CHECK(occupancy(h100(), {32, 16, 0}).blocks_by_smem == 228);
    CHECK(occupancy(h100(), {32, 16, 0}).limiter() == "blocks");
}

TEST_CASE("Occupancy rejects impossible footprints", "[models][occupancy]") {
    CHECK_THROWS_AS(occupancy(h100(), {0, 32, 0}), std::invalid_argument);
    CHECK_THROWS_AS(occupancy(h100(), {32, -1, 0}), std::invalid_argument);
    CHECK_THROWS_AS(occupancy(h100(), {32, 32, -4}), std::invalid_argument);
}

TEST_CASE("Little's law: 16 warps cover 600 ns on an H100 SM 2.15 times over", "[models][occupancy][littles]") {
    const DeviceSpec d = load_device("H100");
    const LittlesLaw l = littles_law({d.memory_bandwidth_gbps, 600, d.sm_count, 16, 4, 16, 32, 8});
    CHECK(prints_as(l.needed_device_bytes / 1e6, 2.01, 2));   // 2.01 MB for the whole GPU
    CHECK(prints_as(l.needed_per_sm_bytes / 1e3, 15.2, 1));   // 15.2 KB per SM
    CHECK(l.bytes_per_warp_load == 512);
    CHECK(l.available_per_sm_bytes == 32 * kKiB);
    CHECK(prints_as(l.coverage, 2.15, 2));
    CHECK(l.warps_needed == 8);                                // one block would suffice
    CHECK(l.blocks_needed == 1);
    CHECK(l.effective_bandwidth_gbps == Approx(d.memory_bandwidth_gbps));
}

TEST_CASE("Little's law: at 1000 ns and 2 loads per warp 16 warps cover only 0.65", "[models][occupancy][littles]") {
    const DeviceSpec d = load_device("H100");
    const LittlesLaw l = littles_law({d.memory_bandwidth_gbps, 1000, d.sm_count, 16, 2, 16, 32, 8});
    CHECK(prints_as(l.needed_per_sm_bytes / 1e3, 25.4, 1));   // 25.4 KB
    CHECK(l.available_per_sm_bytes == 16 * kKiB);
    CHECK(prints_as(l.coverage, 0.65, 2));
    CHECK(l.warps_needed == 25);
    CHECK(l.blocks_needed == 4);
    CHECK(l.effective_bandwidth_gbps < d.memory_bandwidth_gbps);
}

TEST_CASE("The 128x128x64 tile issues 512 MMA instructions, 64 per warp", "[models][occupancy][mma]") {
    const MmaCount c = mma_count({128, 128, 64}, 8);
    CHECK(c.instructions == 512);
    CHECK(c.flop_per_instruction == 4096);
    CHECK(c.tile_flop == 2097152);
    CHECK(c.per_warp == 64);
    CHECK(c.fragments_per_warp == 16);
}

TEST_CASE("One K step copies in 1.29 us and multiplies in 0.28 us on an H100 SM", "[models][occupancy][sm-step]") {
    const DeviceSpec d = load_device("H100");
    const SmStepTimes s = sm_step_times(d, GemmShape{1024, 4096, 12288}, {128, 128, 64});
    CHECK(prints_as(s.per_sm_bandwidth_gbps, 25.4, 1));
    CHECK(prints_as(s.per_sm_tflops, 7.50, 2));
    CHECK(s.step_bytes == 32 * kKiB);
    CHECK(prints_as(s.copy_us, 1.29, 2));
    CHECK(prints_as(s.math_us, 0.28, 2));
    CHECK(prints_as(s.copy_over_math, 4.6, 1));
    CHECK(s.step_intensity_flop_per_byte == 64);
    CHECK(prints_as(device_intensity_flop_per_byte(d), 295, 0));
}
