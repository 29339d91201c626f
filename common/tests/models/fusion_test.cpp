// Sections 5.3.1, 5.4.1, 5.4.3 and Examples 5-4, 5-7, 5-8. (Experiment 5-2's answer:
// solutions/tests/models_answers_test.cpp.)
#include <cmath>
#include <set>

#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/fusion.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

namespace {
ElementwiseChain chain(int quant_bytes) {
    const ModelShape q = load_model_shape();
    return swiglu_chain(q.running_example_tokens, q.intermediate_size, q.dtype_bytes, quant_bytes);
}
}  // namespace

TEST_CASE("Example 5-4: SiLU then multiply moves 48 + 72 = 120 MiB separately, 72 MiB fused", "[models][fusion]") {
    const ElementwiseChain c = chain(0);
    REQUIRE(c.ops.size() == 2);
    CHECK(to_mib(c.input.bytes) == 24);
    const ChainCost separate = chain_cost(c, all_separate(2));
    REQUIRE(separate.kernels.size() == 2);
    CHECK(to_mib(separate.kernels[0].bytes) == 48);
    CHECK(to_mib(separate.kernels[1].bytes) == 72);
    CHECK(to_mib(separate.total_bytes) == 120);
    const ChainCost fused = chain_cost(c, all_fused(2));
    CHECK(to_mib(fused.total_bytes) == 72);
    CHECK(fused.total_bytes / separate.total_bytes == Approx(0.6));
    CHECK(prints_as(separate.total_bytes / fused.total_bytes, 1.7, 1));
    CHECK(to_mib(separate.total_bytes - fused.total_bytes) == 48);  // one write and one read of T
}

TEST_CASE("With quantization: 156 MiB separate, 108 first two fused, 60 all fused", "[models][fusion]") {
    const ElementwiseChain c = chain(1);
    REQUIRE(c.ops.size() == 3);
    CHECK(to_mib(chain_cost(c, {1, 1, 1}).kernels[2].bytes) == 36);  // quantizing separately adds 36 MiB
    CHECK(to_mib(chain_cost(c, {1, 1, 1}).total_bytes) == 156);
    CHECK(to_mib(chain_cost(c, {2, 1}).total_bytes) == 108);
    CHECK(to_mib(chain_cost(c, {3}).total_bytes) == 60);
    CHECK(split_label(c, {2, 1}) == "SiLU+mul | quant");
}

TEST_CASE("Peak memory: 72 MiB with a separate SiLU step, 60 MiB all fused", "[models][fusion]") {
    const ElementwiseChain c = chain(1);
    const ChainCost separate = chain_cost(c, all_separate(3));
    CHECK(to_mib(separate.kernels[0].live_bytes) == 72);  // G, U and T
    CHECK(to_mib(separate.peak_bytes) == 72);
    const ChainCost fused = chain_cost(c, all_fused(3));
    CHECK(to_mib(fused.peak_bytes) == 60);                // G, U and the 12 MiB result
    CHECK(to_mib(separate.total_bytes - fused.total_bytes) == 96);
    CHECK(to_mib(separate.peak_bytes - fused.peak_bytes) == 12);
}

TEST_CASE("A chain of 10 operators can be cut 512 ways", "[models][fusion]") {
    CHECK(chain_split_count(10) == 512);
    CHECK(chain_split_count(3) == 4);  // separate, first two, last two, all three
    const std::vector<ChainSplit> splits = all_splits(10);
    CHECK(splits.size() == 512);
    CHECK(std::set<ChainSplit>(splits.begin(), splits.end()).size() == 512);
    const std::vector<ChainSplit> three = all_splits(3);
    CHECK(std::set<ChainSplit>(three.begin(), three.end()) ==
          std::set<ChainSplit>{{1, 1, 1}, {2, 1}, {1, 2}, {3}});
    CHECK_THROWS_AS(chain_cost(chain(1), {2, 2}), std::invalid_argument);
}

TEST_CASE("Legality: SiLU of partial sums is not SiLU of the sum", "[models][fusion][legality]") {
    CHECK(prints_as(silu(1) + silu(-1), 0.4621, 4));
    CHECK(silu(0) == 0);
}

TEST_CASE("Example 5-7: a whole-row E4M3 scale returns 55/56, a block-at-a-time scale returns 1", "[models][fusion][legality]") {
    const Fp8RowScale row = fp8_row_scale_roundtrip(1, 10);
    CHECK(row.scaled == Approx(44.8));
    CHECK(row.quantized == 44);
    CHECK(row.dequantized == Approx(55.0 / 56.0));
    const Fp8RowScale block = fp8_row_scale_roundtrip(1, 1);
    CHECK(block.quantized == 448);
    CHECK(block.dequantized == 1);
    CHECK(row.error == Approx(1.0 / 56.0));
    CHECK(prints_as(row.error * 100, 1.8, 1));
}

TEST_CASE("Example 5-8: fusing the quantization into the GEMM moves 620 MiB instead of 444", "[models][fusion]") {
    const QuantGemmTraffic t = quant_gemm_traffic({});
    CHECK(to_mib(t.input_bytes) == 32);
    CHECK(to_mib(t.quantized_bytes) == 16);
    CHECK(to_mib(t.weight_bytes) == 6);
    CHECK(to_mib(t.output_bytes) == 12);
    CHECK(t.row_blocks == 32);
    CHECK(t.col_blocks == 12);
    CHECK(to_mib(t.separate_input_bytes) == 240);
    CHECK(to_mib(t.fused_input_bytes) == 416);
    CHECK(to_mib(t.shared_bytes) == 204);
    CHECK(to_mib(t.separate_total_bytes) == 444);
    CHECK(to_mib(t.fused_total_bytes) == 620);
    CHECK(prints_as((t.fused_over_separate - 1) * 100, 40, 0));
    // One column block for all 1536 columns removes the repeated reads.
    QuantGemmCase wide;
    wide.tile_n = 1536;
    const QuantGemmTraffic w = quant_gemm_traffic(wide);
    CHECK(w.col_blocks == 1);
    CHECK(to_mib(w.fused_input_bytes) == 64);  // 32 for the scales + one pass of FP16 A
    // ... but the tile's FP32 accumulator grows from 128 to 1536 columns: 128·128·4 B = 64 KiB to
    // 128·1536·4 B = 768 KiB, 12 times as much.
    CHECK(to_kib(t.accumulator_bytes) == 64);
    CHECK(to_kib(w.accumulator_bytes) == 768);
    CHECK(w.accumulator_bytes / t.accumulator_bytes == 12);
}
