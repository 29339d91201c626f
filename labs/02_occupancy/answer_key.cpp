// FROZEN: do not edit. Lab 02's answer key: every value comes from the models (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); the case "kernel", which answers.toml
// states and `grader --student ID` draws per student, carries 9 of the lab's 20 answer points (1.8 a question).
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/models/tiling.hpp"
#include "labs/models/units.hpp"
#include "limiter.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

const models::SmLimits& h100() {
    static const models::SmLimits sm = models::sm_limits(models::load_device("H100"));
    return sm;
}
const models::DeviceSpec& h100_spec() {
    static const models::DeviceSpec d = models::load_device("H100");
    return d;
}

// Section 5.1.5's kernel: a 128x128 output tile, K step 64, BF16 A and W tiles and an FP32 accumulator in
// shared memory; 256 threads, 128 registers each.
std::int64_t tile_smem_bytes(std::int64_t tile_m, std::int64_t tile_n, std::int64_t k_step) {
    return 2 * tile_m * k_step + 2 * k_step * tile_n + 4 * tile_m * tile_n;
}
const models::BlockFootprint kSection{256, 128, tile_smem_bytes(128, 128, 64)};
const models::BlockFootprint kExercise{256, 128, tile_smem_bytes(64, 64, 64)};
const models::BlockFootprint kExercise64{256, 64, tile_smem_bytes(64, 64, 64)};

models::LittlesLaw little(const models::Occupancy& o, double latency_ns, int loads_per_warp) {
    models::LittlesLawInput in;
    in.bandwidth_gbps = h100_spec().memory_bandwidth_gbps;
    in.latency_ns = latency_ns;
    in.sm_count = h100_spec().sm_count;
    in.resident_warps = o.resident_warps;
    in.loads_per_warp = loads_per_warp;
    in.warps_per_block = o.warps_per_block;
    return models::littles_law(in);
}

}  // namespace

void register_answers(Lab& lab) {
    const std::vector<std::string> limiters{"threads", "registers", "shared_memory", "block_limit"};
    const auto section = [] { return models::occupancy(h100(), kSection); };
    lab.number("section_5_1_5.resident_blocks", "Section 5.1.5's kernel on an H100: resident blocks per SM", 0.5, 0.0,
               [=] { return double(section().resident_blocks); });
    lab.number("section_5_1_5.occupancy", "... and its occupancy (a fraction)", 0.5, 0.005,
               [=] { return section().occupancy; });
    lab.number("section_5_1_5.bytes_needed_per_sm_kb", "Little's law at 600 ns: bytes in flight needed per SM (KB, 1000 B)",
               0.5, 0.01, [=] { return little(section(), 600, 4).needed_per_sm_bytes / 1000.0; });
    lab.number("section_5_1_5.bytes_available_kib", "Bytes its resident warps keep in flight (KiB), 4 loads per warp",
               0.5, 0.005, [=] { return models::to_kib(little(section(), 600, 4).available_per_sm_bytes); });
    lab.number("section_5_1_5.coverage", "Available over needed", 0.5, 0.01, [=] { return little(section(), 600, 4).coverage; });
    lab.number("slow_memory.coverage", "At 1000 ns and 2 loads per warp: coverage", 0.5, 0.01,
               [=] { return little(section(), 1000, 2).coverage; });
    lab.number("slow_memory.warps_needed", "... warps needed per SM to cover it", 0.5, 0.0,
               [=] { return double(little(section(), 1000, 2).warps_needed); });

    const auto ex = [] { return models::occupancy(h100(), kExercise); };
    const auto ex64 = [] { return models::occupancy(h100(), kExercise64); };
    lab.number("exercise_5_1.smem_per_block_kib", "Exercise 5-1: shared memory per block with the reserve (KiB)", 0.5, 0.0,
               [=] { return models::to_kib(double(ex().smem_per_block_bytes)); });
    lab.number("exercise_5_1.blocks_by_threads", "Blocks the thread slots allow", 0.5, 0.0, [=] { return double(ex().blocks_by_threads); });
    lab.number("exercise_5_1.blocks_by_regs", "Blocks the registers allow", 0.5, 0.0, [=] { return double(ex().blocks_by_regs); });
    lab.number("exercise_5_1.blocks_by_smem", "Blocks the shared memory allows", 0.5, 0.0, [=] { return double(ex().blocks_by_smem); });
    lab.number("exercise_5_1.occupancy", "Occupancy", 0.5, 0.005, [=] { return ex().occupancy; });
    lab.choice("exercise_5_1.limiter", "What limits it?", limiters, 0.5, [=] { return limiter_word(ex().limiters.front()); });
    lab.number("exercise_5_1.regs64_blocks_by_regs", "At 64 registers per thread: blocks the registers allow", 0.5, 0.0,
               [=] { return double(ex64().blocks_by_regs); });
    lab.number("exercise_5_1.regs64_occupancy", "... occupancy", 0.5, 0.005, [=] { return ex64().occupancy; });
    lab.choice("exercise_5_1.regs64_limiter", "... what limits it now?", limiters, 0.5, [=] { return limiter_word(ex64().limiters.front()); });
    lab.number("exercise_5_1.regs64_inflight_kib", "... bytes in flight per SM, 4 loads of 16 B per lane (KiB)", 0.5, 0.005,
               [=] { return models::to_kib(little(ex64(), 600, 4).available_per_sm_bytes); });
    lab.number("exercise_5_1.regs64_coverage", "... coverage at 600 ns and 3.35 TB/s", 0.5, 0.01,
               [=] { return little(ex64(), 600, 4).coverage; });
    // One MMA instruction is 16x8x16; the block's 8 warps share the 128x128x64 step (labs_models' mma_count).
    const auto mma = [] { return models::mma_count(models::Tile{128, 128, 64}, 8); };
    lab.number("mma.instructions_per_tile", "MMA instructions (16x8x16) for a 128x128x64 block", 0.5, 0.0,
               [=] { return double(mma().instructions); });
    lab.number("mma.flop_per_tile", "... and its FLOPs", 0.5, 0.0, [=] { return mma().tile_flop; });

    // Answered from the student's own measurement, graded against the grader's: this GPU's DRAM latency (its
    // pointer chase) and the rate at which its copy reads — half its copy bandwidth (read + write), as the lab's
    // experiment counts it (a copy writes what it reads) —, all its SMs, 4 loads of 16 B per lane in flight.
    lab.number_measured("measured.warps_needed_on_this_gpu",
                        "On this GPU: warps per SM needed to cover the DRAM latency at the copy's read rate (half its read + write "
                        "bandwidth), 4 loads of 16 B per lane in flight per warp",
                        1.0, 0.25, [](const Context& ctx) {
                            models::LittlesLawInput in;
                            in.bandwidth_gbps = ctx.ceiling("d2d_copy_gbps").value_or(0) / 2;
                            in.latency_ns = ctx.ceiling("dram_latency_ns").value_or(0);
                            in.sm_count = static_cast<int>(ctx.ceiling("sm_count").value_or(1));
                            in.resident_warps = 1;
                            in.loads_per_warp = 4;
                            return double(models::littles_law(in).warps_needed);
                        });

    // The case: another kernel on the same SM, and Little's law for it.
    lab.exercise_case("kernel", "a block of `threads` threads using `regs` registers each and `smem_kib` KiB of shared memory "
                                "(reserve not included) on an H100; memory latency `latency_ns`, `loads` loads of 16 B per "
                                "lane in flight",
                      {{"threads", 384, 64, 1024, 64}, {"regs", 72, 24, 168, 8}, {"smem_kib", 40, 0, 160, 4},
                       {"latency_ns", 700, 400, 1200, 50}, {"loads", 2, 1, 8}});
    const auto mine = [](const CaseValues& v) {
        return models::occupancy(h100(), {int(v.at("threads")), int(v.at("regs")), v.at("smem_kib") * 1024});
    };
    lab.number_for_case("kernel", "case.resident_blocks", "Resident blocks per SM", 1.8, 0.0,
                        [=](const CaseValues& v) { return double(mine(v).resident_blocks); });
    lab.number_for_case("kernel", "case.occupancy", "Occupancy", 1.8, 0.005, [=](const CaseValues& v) { return mine(v).occupancy; });
    lab.number_for_case("kernel", "case.smem_free_kib", "Shared memory left free on the SM (KiB)", 1.8, 0.005,
                        [=](const CaseValues& v) { return models::to_kib(double(mine(v).smem_free_bytes)); });
    lab.number_for_case("kernel", "case.coverage", "Little's law coverage at the case's latency and loads", 1.8, 0.01,
                        [=](const CaseValues& v) {
                            return little(mine(v), double(v.at("latency_ns")), int(v.at("loads"))).coverage;
                        });
    lab.number_for_case("kernel", "case.warps_needed", "Warps per SM needed to cover the latency", 1.8, 0.0,
                        [=](const CaseValues& v) {
                            return double(little(mine(v), double(v.at("latency_ns")), int(v.at("loads"))).warps_needed);
                        });

    // The calculator runs that work these questions, each naming the parameters its questions depend on: wherever
    // `grader calc` has them at these values it shows the method, not the numbers. Each kernel's occupancy (on the
    // H100's SM), then Little's law with its resident warps at the H100's bandwidth and SM count and 16 B per lane
    // per load, as little() takes them (warps per block only turn warps into blocks: no question's).
    const auto occupancy_run = [](const models::BlockFootprint& b) {
        return CalcRun{.model = "occupancy",
                       .params = {{"threads", std::to_string(b.threads)}, {"regs", std::to_string(b.regs_per_thread)},
                                  {"smem-bytes", std::to_string(b.smem_bytes)}},
                       .device = "H100"};
    };
    const auto exact = [](double x) {  // the shortest text that reads back as x
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    };
    const auto little_run = [=](const models::Occupancy& o, std::int64_t latency_ns, int loads_per_warp) {
        return CalcRun{.model = "littles-law",
                       .params = {{"bandwidth-gbps", exact(h100_spec().memory_bandwidth_gbps)},
                                  {"sm-count", std::to_string(h100_spec().sm_count)},
                                  {"latency-ns", std::to_string(latency_ns)}, {"loads-per-warp", std::to_string(loads_per_warp)},
                                  {"bytes-per-load", std::to_string(models::LittlesLawInput{}.bytes_per_thread_per_load)},
                                  {"warps", std::to_string(o.resident_warps)}}};
    };
    lab.graded_calc("section_5_1_5.resident_blocks, section_5_1_5.occupancy", occupancy_run(kSection));
    lab.graded_calc("section_5_1_5.bytes_needed_per_sm_kb, section_5_1_5.bytes_available_kib, section_5_1_5.coverage",
                    little_run(section(), 600, 4));
    lab.graded_calc("slow_memory.*", little_run(section(), 1000, 2));
    lab.graded_calc("exercise_5_1.smem_per_block_kib, exercise_5_1.blocks_by_*, exercise_5_1.occupancy, exercise_5_1.limiter",
                    occupancy_run(kExercise));
    lab.graded_calc("exercise_5_1.regs64_blocks_by_regs, exercise_5_1.regs64_occupancy, exercise_5_1.regs64_limiter",
                    occupancy_run(kExercise64));
    lab.graded_calc("exercise_5_1.regs64_inflight_kib, exercise_5_1.regs64_coverage", little_run(ex64(), 600, 4));
    // A 128x128x64 block's FLOPs are those of a GEMM of that size (tile-traffic's flop, whatever its tiles).
    lab.graded_calc("mma.flop_per_tile", {.model = "tile-traffic", .params = {{"m", "128"}, {"k", "64"}, {"n", "128"}}});
    lab.graded_calc_for_case("kernel", "case.resident_blocks, case.occupancy, case.smem_free_kib", [=](const CaseValues& v) {
        return occupancy_run({int(v.at("threads")), int(v.at("regs")), v.at("smem_kib") * 1024});
    });
    lab.graded_calc_for_case("kernel", "case.coverage, case.warps_needed", [=](const CaseValues& v) {
        return little_run(mine(v), v.at("latency_ns"), int(v.at("loads")));
    });
}
