// FROZEN: do not edit. Lab 05's answer key: every value comes from the models (labs_models), none is
// stored. The three Experiment 5-4 questions are answered by running each transformation on inputs that
// tell the cases apart, as the experiment asks. The chapter's worked cases keep their keys (0.5 points
// each); most points are on the case "chain", which answers.toml states and `grader --student ID` draws
// per student.
#include <cmath>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/fusion.hpp"
#include "labs/models/units.hpp"
#include "labs/numeric.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

constexpr std::int64_t kRows = 1024;   // the running example: M = 1024 tokens
constexpr std::int64_t kWidth = 12288; // Qwen3-8B FFN width

// MiB the chain over rows × width (quantized to FP8 when quant_bytes is 1; 0: no quantize step) reads and writes
// once cut by `split`, or with `peak` its peak device memory; by default at the running example's rows and width.
double chain_mib(int quant_bytes, const models::ChainSplit& split, bool peak = false, std::int64_t rows = kRows,
                 std::int64_t width = kWidth) {
    const models::ChainCost c = models::chain_cost(models::swiglu_chain(rows, width, 2, quant_bytes), split);
    return models::to_mib(peak ? c.peak_bytes : c.total_bytes);
}

// Experiment 5-2: the fewest rows for which fusing the whole FP8 chain of `width` saves, at `gbps`, the fused
// kernel's fixed overhead.
double min_fused_rows(std::int64_t width, double overhead_us, double gbps) {
    const auto one_row = models::swiglu_chain(1, width, 2, 1);
    const double saved = models::chain_cost(one_row, models::all_separate(3)).total_bytes -
                         models::chain_cost(one_row, models::all_fused(3)).total_bytes;
    return double(models::min_rows_to_amortize(saved, overhead_us, gbps));
}

// What a transformation changes, judged from one value before and after it: nothing (only the cost),
// no more than one BF16 step of the value (the rounding), or more (the math).
std::string classify(double before, double after) {
    if (before == after) return "cost";
    const double step = std::ldexp(std::max(std::fabs(before), std::fabs(after)), -7);
    return std::fabs(before - after) <= step ? "rounding" : "math";
}

}  // namespace

void register_answers(Lab& lab) {
    const std::vector<std::string> kinds{"math", "rounding", "cost"};
    lab.number("example_5_4.bytes_separate_mib", "Example 5-4: MiB read and written by T = SiLU(G) then Z = T*U", 0.5,
               0.005, [] { return chain_mib(0, models::all_separate(2)); });
    lab.number("example_5_4.bytes_fused_mib", "Example 5-4: MiB read and written by the fused SiLU*U", 0.5, 0.005,
               [] { return chain_mib(0, models::all_fused(2)); });
    lab.number("chain.bytes_all_separate_mib", "Chain with FP8 quantization, three kernels: MiB", 0.5, 0.005,
               [] { return chain_mib(1, models::all_separate(3)); });
    lab.number("chain.bytes_first_two_fused_mib", "Chain, SiLU*U fused then quantize: MiB", 0.5, 0.005,
               [] { return chain_mib(1, {2, 1}); });
    lab.number("chain.bytes_all_fused_mib", "Chain, all three fused: MiB", 0.5, 0.005,
               [] { return chain_mib(1, models::all_fused(3)); });
    lab.number("peak.separate_silu_mib", "Peak device memory of the separate chain (its SiLU step): MiB", 0.5, 0.005,
               [] { return chain_mib(1, models::all_separate(3), true); });
    lab.number("peak.all_fused_mib", "Peak device memory of the fully fused chain: MiB", 0.5, 0.005,
               [] { return chain_mib(1, models::all_fused(3), true); });
    lab.number("cuts.ten_operator_chain", "Ways to cut a chain of 10 element-wise operators into kernels", 0.5, 0.0,
               [] { return double(models::chain_split_count(10)); });
    lab.number("legality.silu_sum_of_parts", "SiLU(1) + SiLU(-1)", 0.5, 0.001,
               [] { return models::silu(1.0) + models::silu(-1.0); });
    lab.number("e4m3.whole_row_scale_result", "Example 5-7: the first element after quantizing with the whole row's scale",
               0.5, 0.001, [] { return models::fp8_row_scale_roundtrip(1.0, 10.0).dequantized; });
    lab.number("example_5_8.separate_quant_mib", "Example 5-8: MiB with quantization as its own kernel", 0.5, 0.005,
               [] { return models::to_mib(models::quant_gemm_traffic({}).separate_total_bytes); });
    lab.number("example_5_8.fused_quant_mib", "Example 5-8: MiB with quantization fused into the GEMM", 0.5, 0.005,
               [] { return models::to_mib(models::quant_gemm_traffic({}).fused_total_bytes); });
    lab.number("experiment_5_2.min_rows",
               "Experiment 5-2: fewest rows for which full fusion pays a fixed 5 us overhead at 1792 GB/s", 0.5, 0.0,
               [] { return min_fused_rows(kWidth, 5.0, 1792.0); });
    lab.choice("experiment_5_4.silu_inside_ko_loop", "Experiment 5-4: SiLU moved inside the ko loop changes the ...",
               kinds, 0.5, [] {
                   // Two partial sums of one output, 1 and -1: SiLU of the sum versus the sum of SiLUs.
                   return classify(models::silu(1.0 + -1.0), models::silu(1.0) + models::silu(-1.0));
               });
    lab.choice("experiment_5_4.drop_bf16_rounding", "Experiment 5-4: dropping the BF16 rounding before SiLU changes the ...",
               kinds, 0.5, [] {
                   // An FP32 accumulator value that BF16 cannot hold: 1 + 2^-10.
                   const float acc = 1.0f + std::ldexp(1.0f, -10);
                   return classify(models::silu(gpulab::round_to_bf16(acc)), models::silu(acc));
               });
    lab.choice("experiment_5_4.quant_inside_column_blocks",
               "Experiment 5-4: quantizing (fixed per-tensor scale) inside each column block changes the ...", kinds, 0.5, [] {
                   // Example 5-7's row (1 in the first block of 128, 10 in the second) with the lab's fixed
                   // scale: the whole row at once, versus block by block.
                   std::vector<float> row(256, 0.0f);
                   row[0] = 1.0f;
                   row[128] = 10.0f;
                   const float scale = 1.0f / 64.0f;
                   double whole = 0, blocks = 0;
                   for (std::size_t i = 0; i < row.size(); ++i) whole += gpulab::round_to_e4m3(row[i] / scale);
                   for (std::size_t b = 0; b < 2; ++b)
                       for (std::size_t i = 128 * b; i < 128 * (b + 1); ++i) blocks += gpulab::round_to_e4m3(row[i] / scale);
                   return classify(whole, blocks);
               });

    // The case: the SiLU·U → FP8 chain at another row count and width, and the two questions of Experiment 5-2
    // and of the cut count at other parameters.
    lab.exercise_case("chain", "G, U [rows, width] BF16, Q FP8; a chain of `ops` operators; a fused kernel's fixed "
                      "overhead and the bandwidth", {{"rows", 2560, 256, 8192, 256}, {"width", 13312, 4096, 28672, 1024},
                                                     {"ops", 12, 5, 16}, {"overhead_us", 4, 2, 10}, {"gbps", 3350, 1000, 8000, 50}});
    const auto mib = [](const CaseValues& v, const models::ChainSplit& split, bool peak = false) {
        return chain_mib(1, split, peak, v.at("rows"), v.at("width"));
    };
    lab.number_for_case("chain", "case.bytes_all_separate_mib", "Three kernels: MiB read and written", 2, 0.005,
                        [=](const CaseValues& v) { return mib(v, models::all_separate(3)); });
    lab.number_for_case("chain", "case.bytes_first_two_fused_mib", "SiLU*U fused, quantize separate: MiB", 2, 0.005,
                        [=](const CaseValues& v) { return mib(v, {2, 1}); });
    lab.number_for_case("chain", "case.bytes_all_fused_mib", "All three fused: MiB", 2, 0.005,
                        [=](const CaseValues& v) { return mib(v, models::all_fused(3)); });
    lab.number_for_case("chain", "case.peak_separate_mib", "Peak device memory of the separate chain: MiB", 2, 0.005,
                        [=](const CaseValues& v) { return mib(v, models::all_separate(3), true); });
    lab.number_for_case("chain", "case.min_rows", "Fewest rows for which full fusion pays its fixed overhead", 2, 0.0,
                        [](const CaseValues& v) {
                            return min_fused_rows(v.at("width"), double(v.at("overhead_us")), double(v.at("gbps")));
                        });
    lab.number_for_case("chain", "case.cuts", "Ways to cut a chain of `ops` element-wise operators into kernels", 2, 0.0,
                        [](const CaseValues& v) { return double(models::chain_split_count(int(v.at("ops")))); });

    // The calculator runs that work these questions, each naming the parameters its questions depend on: wherever
    // `grader calc` has them at these values it shows the method, not the numbers. Every fusion-chain run shows the
    // all-separate and all-fused bytes whatever its split, so a chain's bytes and peaks are one run of its rows and
    // width (any split). min_rows depends on the width, the overhead and the device's bandwidth, not on the rows: the
    // stated case's is a run of its own, on the device whose bandwidth the case states (3350 GB/s: the H100's);
    // Experiment 5-2's (5 µs at 1792 GB/s: the model's defaults) goes with the running example's bytes, whose run it
    // would otherwise also match. The model's chain has 2 or 3 operators: the cut counts of longer chains are not its.
    const auto device_at = [](std::int64_t gbps) -> std::string {
        for (const std::string& key : models::device_keys())
            if (models::load_device(key).memory_bandwidth_gbps == double(gbps)) return key;
        return "";  // none has it: any device (the run then hides the case's width and overhead everywhere)
    };
    const auto chain_run = [](int quant_bytes, std::int64_t rows, std::int64_t width) {
        return CalcRun{.model = "fusion-chain",
                       .params = {{"rows", std::to_string(rows)}, {"width", std::to_string(width)}, {"act-bytes", "2"},
                                  {"quant-bytes", std::to_string(quant_bytes)}}};
    };
    lab.graded_calc("example_5_4.*", chain_run(0, kRows, kWidth));
    // Experiment 5-2's rows depend on the width, the overhead and the bandwidth, not on the rows given: a run of its
    // own (any rows, 5 µs, the RTX PRO 6000's 1792 GB/s) hides them everywhere. Its printed line leaves the rows at
    // the model's default, the running example's 1024, and the running example's line leaves the overhead and the
    // device at theirs: each is also at the other's case, and `grader calc` names the first run that matches. So the
    // running example's run comes first and names Experiment 5-2 first too (its defaults are Experiment 5-2's inputs).
    lab.graded_calc("experiment_5_2.min_rows, chain.*, peak.*", chain_run(1, kRows, kWidth));
    lab.graded_calc("experiment_5_2.min_rows", {.model = "fusion-chain",
                                                .params = {{"width", std::to_string(kWidth)}, {"act-bytes", "2"},
                                                           {"quant-bytes", "1"}, {"overhead-us", "5"}},
                                                .device = "rtx_pro_6000"});
    const models::QuantGemmCase example_5_8{};
    lab.graded_calc("example_5_8.*", {.model = "quant-gemm",
                                      .params = {{"m", std::to_string(example_5_8.m)}, {"k", std::to_string(example_5_8.k)},
                                                 {"n", std::to_string(example_5_8.n)},
                                                 {"tile-m", std::to_string(example_5_8.tile_m)},
                                                 {"tile-n", std::to_string(example_5_8.tile_n)}}});
    lab.graded_calc_for_case("chain", "case.bytes_*, case.peak_separate_mib",
                             [=](const CaseValues& v) { return chain_run(1, v.at("rows"), v.at("width")); });
    lab.graded_calc_for_case("chain", "case.min_rows", [=](const CaseValues& v) {
        return CalcRun{.model = "fusion-chain",
                       .params = {{"width", std::to_string(v.at("width"))}, {"act-bytes", "2"}, {"quant-bytes", "1"},
                                  {"overhead-us", std::to_string(v.at("overhead_us"))}},
                       .device = device_at(v.at("gbps"))};
    });
}
