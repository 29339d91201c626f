// FROZEN: do not edit. Lab 03's answer key: every value comes from the models (labs_models) and the
// datasets (Qwen3-8B's shape, the H100 and RTX PRO 6000 figures); none is stored. The chapter's worked
// cases keep their keys (0.4 points each); most points are on the case "tile", which answers.toml states
// and `grader --student ID` draws per student.
#include <string>
#include <utility>

#include "grader/lab.hpp"
#include "labs/math.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/tiling.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;
using gpulab::kKiB;
using gpulab::kMiB;
using gpulab::models::kGiB;

namespace {
constexpr std::int64_t kStep = 32;  // the chapter's K step

// C = X·W of the running example: 1024 × 4096 × 12288, BF16 in and out, FP32 accumulators.
models::GemmShape running() { return models::running_example_gemm(models::load_model_shape()); }

// The running example's traffic with m × n output tiles, and one such tile's local storage (KiB), k = kStep.
models::TileTraffic traffic(std::int64_t m, std::int64_t n) { return models::tile_traffic(running(), {m, n, kStep}); }
double local_kib(std::int64_t m, std::int64_t n) {
    return models::local_storage(running(), {m, n, kStep}).total_bytes / kKiB;
}

double traffic_mib(std::int64_t tile) { return traffic(tile, tile).total_bytes / kMiB; }

// The AKG example of section 5.4.4: C = AB at 4096³, A and B BF16, C FP32.
models::GemmShape akg() { return {4096, 4096, 4096, 2, 2, 4, 4}; }

// A question on one part of a tiling's traffic: its key, its wording, and the bytes of TileTraffic it asks for.
struct TrafficPart {
    const char* key;
    const char* question;
    double models::TileTraffic::*bytes;
};

}  // namespace

void register_answers(Lab& lab) {
    lab.number("gemm.gflop", "FLOPs of C = A·W for the running example, in GFLOP (10^9)", 0.4, 0.005,
               [] { return models::gemm_flop(running()) / 1e9; });
    lab.number("example_5_3.local_kib_64x64", "Example 5-3: local storage of a 64x64 tile, k = 32 (KiB)", 0.4, 0.0,
               [] { return local_kib(64, 64); });
    lab.number("example_5_3.local_kib_128x128", "Example 5-3: local storage of a 128x128 tile, k = 32 (KiB)", 0.4, 0.0,
               [] { return local_kib(128, 128); });
    lab.number("traffic.mib_32x32", "Traffic with independent 32x32 tiles (MiB)", 0.4, 0.0, [] { return traffic_mib(32); });
    lab.number("traffic.mib_64x64", "Traffic with independent 64x64 tiles (MiB)", 0.4, 0.0, [] { return traffic_mib(64); });
    lab.number("traffic.mib_128x128", "Traffic with independent 128x128 tiles (MiB)", 0.4, 0.0,
               [] { return traffic_mib(128); });
    lab.number("intensity.flop_per_byte_64x64", "Arithmetic intensity of the 64x64 tiling (FLOP/byte)", 0.4, 0.005,
               [] { return traffic(64, 64).intensity_flop_per_byte; });
    lab.number("mfu_ceiling.h100_128x128", "MFU ceiling of the 128x128 tiling on an H100 (a fraction, 0..1)", 0.4, 0.025,
               [] { return models::tiling_report(running(), {128, 128, kStep}, models::load_device("H100")).mfu_ceiling; });
    lab.number("ratio.t128_over_t64_at_40pct_bandwidth",
               "T128 / T64 when the 128x128 tiling gets 40% of the 64x64 tiling's bandwidth", 0.4, 0.005, [] {
                   return models::time_ratio(traffic(128, 128).total_bytes, traffic(64, 64).total_bytes, 0.4, 1.0);
               });
    lab.number("akg.naive_reads_gib", "AKG example: input reads when every multiply-add fetches both operands (GiB)", 0.4,
               0.0, [] { return models::naive_input_read_bytes(akg()) / kGiB; });
    lab.number("akg.tiled_reads_gib", "AKG example: input reads with 64x64 output tiles and BK = 32 (GiB)", 0.4, 0.0,
               [] { return models::tile_traffic(akg(), {64, 64, kStep}).input_read_bytes / kGiB; });
    lab.number("experiment_5_1.local_kib", "Experiment 5-1: local storage of a 64x128 tile, k = 32 (KiB)", 0.4, 0.0,
               [] { return local_kib(64, 128); });
    using Traffic = models::TileTraffic;
    const TrafficPart experiment_5_1_parts[] = {
        {"experiment_5_1.reads_a_mib", "Experiment 5-1: reads of A with 64x128 tiles (MiB)", &Traffic::a_read_bytes},
        {"experiment_5_1.reads_w_mib", "Experiment 5-1: reads of W with 64x128 tiles (MiB)", &Traffic::w_read_bytes},
        {"experiment_5_1.total_mib", "Experiment 5-1: total traffic with 64x128 tiles (MiB)", &Traffic::total_bytes},
    };
    for (const TrafficPart& part : experiment_5_1_parts)
        lab.number(part.key, part.question, 0.4, 0.0, [bytes = part.bytes] { return traffic(64, 128).*bytes / kMiB; });
    lab.number("experiment_5_1.min_bandwidth_fraction",
               "Experiment 5-1: least fraction of the 64x64 tiling's bandwidth the 64x128 tiling needs to be faster", 0.4,
               0.005, [] {
                   return models::break_even_bandwidth_fraction(traffic(64, 128).total_bytes,
                                                                traffic(64, 64).total_bytes);
               });
    lab.number("experiment_5_1.resident_sets_rtx_pro_6000",
               "Experiment 5-1: 64x128 working sets that fit in one RTX PRO 6000 SM at once", 0.4, 0.0, [] {
                   return double(models::tiling_report(running(), {64, 128, kStep}, models::load_device("RTX PRO 6000"))
                                     .resident_tiles_per_sm);
               });

    // The case: C[M, N] = A[M, K] · W[K, N] (BF16, FP32 accumulators) with m × n output tiles advanced k at
    // a time. M and N are multiples of 768, so of every tile side drawn, and K of every k: tiles are whole.
    // (The intensity depends on m, n and K alone, so all three vary.)
    lab.exercise_case("tile", "C = A·W with A [M, K], W [K, N], BF16; m × n output tiles, k at a time",
                      {{"M", 3072, 768, 8448, 768}, {"N", 12288, 6144, 24576, 768}, {"K", 4096, 2048, 8192, 512},
                       {"m", 192, 64, 256, 64}, {"n", 64, 64, 256, 64}, {"k", 16, 16, 64, 16}});
    const auto shape = [](const CaseValues& v) { return models::GemmShape{v.at("M"), v.at("K"), v.at("N"), 2, 2, 2, 4}; };
    const auto tile = [](const CaseValues& v) { return models::Tile{v.at("m"), v.at("n"), v.at("k")}; };
    lab.number_for_case("tile", "case.local_kib", "Local storage S of one tile (KiB)", 1.7, 0.0, [=](const CaseValues& v) {
        return models::local_storage(shape(v), tile(v)).total_bytes / kKiB;
    });
    lab.number_for_case("tile", "case.traffic_mib", "Traffic V of the whole GEMM (MiB)", 1.7, 0.005, [=](const CaseValues& v) {
        return models::tile_traffic(shape(v), tile(v)).total_bytes / kMiB;
    });
    lab.number_for_case("tile", "case.intensity", "Arithmetic intensity (FLOP per byte of V)", 1.7, 0.005,
                        [=](const CaseValues& v) { return models::tile_traffic(shape(v), tile(v)).intensity_flop_per_byte; });
    lab.number_for_case("tile", "case.min_bandwidth_fraction_vs_64x64",
                        "Least fraction of a 64x64 tiling's bandwidth this tiling needs to be faster", 1.7, 0.005,
                        [=](const CaseValues& v) {
                            return models::break_even_bandwidth_fraction(
                                models::tile_traffic(shape(v), tile(v)).total_bytes,
                                models::tile_traffic(shape(v), {64, 64, v.at("k")}).total_bytes);
                        });
    lab.number_for_case("tile", "case.mfu_ceiling_h100", "MFU ceiling on an H100 (a fraction, 0..1)", 1.7, 0.025,
                        [=](const CaseValues& v) {
                            return models::tiling_report(shape(v), tile(v), models::load_device("H100")).mfu_ceiling;
                        });
    lab.number_for_case("tile", "case.resident_sets_rtx_pro_6000", "Working sets that fit in one RTX PRO 6000 SM", 1.7, 0.0,
                        [=](const CaseValues& v) {
                            return double(models::tiling_report(shape(v), tile(v), models::load_device("RTX PRO 6000"))
                                              .resident_tiles_per_sm);
                        });

    // The calculator runs that work these questions (tile-traffic), each naming the parameters its questions depend
    // on: wherever `grader calc` has them at these values it shows the method, not the numbers. A tile's local
    // storage depends on the tile and the element sizes; the traffic and intensity on the GEMM's shape, the tile's
    // m x n and the element sizes (the FLOPs on the shape alone); an MFU ceiling or a count of resident sets also on
    // the device. (A run naming fewer parameters is listed before one whose inputs it would also match.)
    const auto tiling_run = [](const models::GemmShape& g, const models::Tile& t, bool storage, bool traffic,
                               std::string device) {
        CalcRun run{.model = "tile-traffic", .device = std::move(device)};
        run.params["in-bytes"] = std::to_string(g.a_bytes);  // A and W alike
        run.params["tile-m"] = std::to_string(t.m);
        run.params["tile-n"] = std::to_string(t.n);
        if (storage) {
            run.params["tile-k"] = std::to_string(t.k);
            run.params["buffers"] = "1";
            run.params["acc-bytes"] = std::to_string(g.acc_bytes);
        }
        if (traffic) {
            run.params["m"] = std::to_string(g.m);
            run.params["k"] = std::to_string(g.k);
            run.params["n"] = std::to_string(g.n);
            run.params["out-bytes"] = std::to_string(g.c_bytes);
        }
        return run;
    };
    lab.graded_calc("experiment_5_1.resident_sets_rtx_pro_6000",
                    tiling_run(running(), {64, 128, kStep}, true, false, "RTX_PRO_6000"));
    lab.graded_calc_for_case("tile", "case.resident_sets_rtx_pro_6000", [=](const CaseValues& v) {
        return tiling_run(shape(v), tile(v), true, false, "RTX_PRO_6000");
    });
    lab.graded_calc("gemm.gflop, example_5_3.local_kib_64x64, traffic.mib_64x64, intensity.flop_per_byte_64x64",
                    tiling_run(running(), {64, 64, kStep}, true, true, ""));
    lab.graded_calc("example_5_3.local_kib_128x128, traffic.mib_128x128, mfu_ceiling.h100_128x128",
                    tiling_run(running(), {128, 128, kStep}, true, true, "H100"));
    lab.graded_calc("traffic.mib_32x32", tiling_run(running(), {32, 32, kStep}, false, true, ""));
    lab.graded_calc("experiment_5_1.local_kib, experiment_5_1.reads_a_mib, experiment_5_1.reads_w_mib, experiment_5_1.total_mib",
                    tiling_run(running(), {64, 128, kStep}, true, true, ""));
    // The AKG example: its input reads are a_read_bytes + w_read_bytes.
    lab.graded_calc("akg.tiled_reads_gib", tiling_run(akg(), {64, 64, kStep}, false, true, ""));
    lab.graded_calc_for_case("tile", "case.local_kib, case.traffic_mib, case.intensity, case.mfu_ceiling_h100",
                             [=](const CaseValues& v) { return tiling_run(shape(v), tile(v), true, true, "H100"); });
}
