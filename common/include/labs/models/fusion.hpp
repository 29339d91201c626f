/**
 * @file fusion.hpp
 * @brief Fusing a chain of element-wise operators: bytes moved and peak memory for any way of cutting
 * the chain into kernels, the number of ways, when a fused kernel's fixed overhead pays back, what
 * fusion must not change (SiLU after the whole K sum, the row-wide FP8 scale), and the case where
 * fusing quantization into a GEMM adds traffic (sections 5.3.1, 5.4.1, 5.4.3, Example 5-8).
 *
 * A chain starts from one input; each operator reads the previous result plus its own side inputs
 * and produces one output. A split lists how many consecutive operators each kernel runs; a kernel
 * reads its chain input and side inputs once and writes only its last output (the intermediates
 * inside it stay local). Peak memory follows the rule "allocate the output first, free used inputs
 * after": every chain input exists before the chain runs.
 *
 * @code
 * using namespace gpulab::models;
 * const ElementwiseChain c = swiglu_chain(1024, 12288);      // SiLU, multiply, quantize
 * to_mib(chain_cost(c, {1, 1, 1}).total_bytes);               // 156
 * to_mib(chain_cost(c, {2, 1}).total_bytes);                  // 108
 * to_mib(chain_cost(c, {3}).peak_bytes);                      // 60
 * @endcode
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::models {

/** @brief A named tensor of a chain. */
struct ChainTensor {
    std::string name;  ///< e.g. "G"
    double bytes = 0;  ///< its size
};

/** @brief One element-wise operator: previous result (plus side inputs) → output. */
struct ChainOp {
    std::string name;                      ///< e.g. "SiLU"
    ChainTensor output;                    ///< what it produces
    std::vector<ChainTensor> side_inputs;  ///< inputs other than the previous result
};

/** @brief A chain of element-wise operators. */
struct ElementwiseChain {
    ChainTensor input;          ///< the first operator's main input
    std::vector<ChainOp> ops;   ///< operators in order
};

/**
 * @brief The chapter's activation chain on [rows, width]: T = SiLU(G), Z = T ⊙ U, then Q = quantize(Z)
 * with a fixed scale. G, U, T, Z have @p act_bytes per element, Q has @p quant_bytes
 * (0 leaves the quantization out: Example 5-4's two-operator chain).
 * @param rows rows (tokens) @param width columns (FFN width) @param act_bytes bytes per activation
 * @param quant_bytes bytes per quantized element, 0 for no quantization step
 */
[[nodiscard]] ElementwiseChain swiglu_chain(std::int64_t rows, std::int64_t width, int act_bytes = 2,
                                            int quant_bytes = 1);

/** @brief Operators per kernel, in chain order; the entries sum to the chain's length. */
using ChainSplit = std::vector<int>;

/** @brief Every operator its own kernel. @param ops chain length */
[[nodiscard]] ChainSplit all_separate(int ops);
/** @brief One kernel for the whole chain. @param ops chain length */
[[nodiscard]] ChainSplit all_fused(int ops);

/** @brief Bytes one kernel of a split moves. */
struct KernelTraffic {
    std::string label;     ///< operator names joined by '+', e.g. "SiLU+mul"
    double read_bytes = 0;   ///< chain input of the kernel + side inputs
    double write_bytes = 0;  ///< the kernel's last output
    double bytes = 0;        ///< read + write
    double live_bytes = 0;   ///< memory held while it runs (inputs still alive + its output)
};

/** @brief Traffic and peak memory of one way of cutting a chain. */
struct ChainCost {
    std::vector<KernelTraffic> kernels;  ///< one entry per kernel
    double total_bytes = 0;              ///< sum over kernels
    double peak_bytes = 0;               ///< largest live_bytes
};

/**
 * @brief Bytes and peak memory of @p chain cut as @p split.
 * @param chain the chain @param split operators per kernel
 * @throws std::invalid_argument when the split does not cover the chain exactly
 */
[[nodiscard]] ChainCost chain_cost(const ElementwiseChain& chain, const ChainSplit& split);

/** @brief Kernel labels of a split joined by " | ", e.g. "SiLU+mul | quant". @param chain the chain @param split the split */
[[nodiscard]] std::string split_label(const ElementwiseChain& chain, const ChainSplit& split);

/** @brief Ways to cut a chain of @p ops operators at its ops − 1 boundaries: 2^(ops−1). @param ops chain length (≥ 1) */
[[nodiscard]] std::int64_t chain_split_count(int ops);

/** @brief Every split of a chain of @p ops operators (2^(ops−1) of them). @param ops chain length (1..20) */
[[nodiscard]] std::vector<ChainSplit> all_splits(int ops);

/**
 * @brief The fewest rows for which a fused kernel's fixed overhead is paid back by the traffic it
 * saves: the smallest n with n · saved_bytes_per_row / bandwidth > overhead (Experiment 5-2).
 * @param saved_bytes_per_row bytes fusion saves per row @param overhead_us fixed overhead per call
 * @param bandwidth_gbps interface bandwidth, GB/s
 */
[[nodiscard]] std::int64_t min_rows_to_amortize(double saved_bytes_per_row, double overhead_us, double bandwidth_gbps);

/** @brief SiLU(x) = x / (1 + e^−x). @param x input */
[[nodiscard]] double silu(double x);

/** @brief One value through a row-wise FP8 (E4M3FN) scale: scale, round, dequantize. */
struct Fp8RowScale {
    double scale = 0;        ///< fp8_max / row_absmax
    double scaled = 0;       ///< x · scale
    double quantized = 0;    ///< scaled rounded to E4M3FN (nearest even, saturating)
    double dequantized = 0;  ///< quantized / scale
    double error = 0;        ///< |dequantized − x|
};

/**
 * @brief @p x quantized with a scale set by @p row_absmax (Example 5-7: x = 1 with the whole row's
 * maximum 10 comes back as 55/56; with the first block's maximum 1 it comes back as 1).
 * @param x the value @param row_absmax the largest magnitude the scale is chosen for (> 0)
 * @param fp8_max largest finite value of the format (E4M3FN: 448)
 */
[[nodiscard]] Fp8RowScale fp8_row_scale_roundtrip(double x, double row_absmax, double fp8_max = 448.0);

/** @brief Example 5-8: quantize A (FP16 → FP8, row-wise scale) then GEMM with FP8 weights. */
struct QuantGemmCase {
    std::int64_t m = 4096;       ///< rows of A and of the output
    std::int64_t k = 4096;       ///< columns of A, rows of W
    std::int64_t n = 1536;       ///< columns of W and of the output
    std::int64_t tile_m = 128;   ///< output tile rows
    std::int64_t tile_n = 128;   ///< output tile columns
    int in_bytes = 2;            ///< bytes per element of A (FP16)
    int quant_bytes = 1;         ///< bytes per quantized element of A (FP8)
    int w_bytes = 1;             ///< bytes per weight (FP8)
    int out_bytes = 2;           ///< bytes per output element (FP16)
    int acc_bytes = 4;           ///< bytes per accumulator element (FP32 accumulation)
};

/** @brief Traffic of quantizing separately vs inside the GEMM. */
struct QuantGemmTraffic {
    std::int64_t row_blocks = 0;     ///< ⌈M / tile_m⌉
    std::int64_t col_blocks = 0;     ///< ⌈N / tile_n⌉
    double input_bytes = 0;          ///< A as given
    double quantized_bytes = 0;      ///< A in FP8
    double weight_bytes = 0;         ///< W
    double output_bytes = 0;         ///< the result
    double separate_input_bytes = 0; ///< read A + write A_q + every column block reads A_q
    double fused_input_bytes = 0;    ///< read A for the row scales + every column block reads A
    double shared_bytes = 0;         ///< both: every row block reads W, the output is written once
    double separate_total_bytes = 0; ///< separate_input + shared
    double fused_total_bytes = 0;    ///< fused_input + shared
    double fused_over_separate = 0;  ///< fused / separate total
    /**
     * @brief One output tile's accumulator, tile_m · tile_n · acc_bytes: what a wider tile costs in
     * local storage (64 KiB at 128 × 128; one tile over all 1536 columns removes the column blocks'
     * re-reads but needs 768 KiB, 12 times as much).
     */
    double accumulator_bytes = 0;
};

/** @brief Example 5-8's traffic for @p c. @param c the case */
[[nodiscard]] QuantGemmTraffic quant_gemm_traffic(const QuantGemmCase& c);

}  // namespace gpulab::models
