// Element-wise chains: traffic and peak memory per split; fusion legality; Example 5-8.
#include "labs/models/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "labs/math.hpp"
#include "labs/models/units.hpp"
#include "labs/numeric.hpp"

namespace gpulab::models {

ElementwiseChain swiglu_chain(std::int64_t rows, std::int64_t width, int act_bytes, int quant_bytes) {
    if (rows < 1 || width < 1 || act_bytes < 1 || quant_bytes < 0) {
        throw std::invalid_argument("rows, width and element sizes must be positive");
    }
    const double elements = static_cast<double>(rows) * static_cast<double>(width);
    const double act = elements * act_bytes;
    ElementwiseChain c;
    c.input = {"G", act};
    c.ops.push_back({"SiLU", {"T", act}, {}});
    c.ops.push_back({"mul", {"Z", act}, {{"U", act}}});
    if (quant_bytes > 0) c.ops.push_back({"quant", {"Q", elements * quant_bytes}, {}});
    return c;
}

ChainSplit all_separate(int ops) { return ChainSplit(static_cast<std::size_t>(std::max(ops, 0)), 1); }

ChainSplit all_fused(int ops) { return ChainSplit{ops}; }

namespace {

void check_split(const ElementwiseChain& chain, const ChainSplit& split) {
    const bool positive = std::all_of(split.begin(), split.end(), [](int n) { return n >= 1; });
    const int covered = std::accumulate(split.begin(), split.end(), 0);
    if (!positive || covered != static_cast<int>(chain.ops.size())) {
        throw std::invalid_argument("a split must list positive operator counts summing to the chain length (" +
                                    std::to_string(chain.ops.size()) + ")");
    }
}

}  // namespace

ChainCost chain_cost(const ElementwiseChain& chain, const ChainSplit& split) {
    check_split(chain, split);
    // Memory held at any time: every chain input exists before the chain runs.
    std::map<std::string, double> live{{chain.input.name, chain.input.bytes}};
    for (const ChainOp& op : chain.ops) {
        for (const ChainTensor& t : op.side_inputs) live[t.name] = t.bytes;
    }
    const auto live_total = [&live] {
        double sum = 0;
        for (const auto& [name, bytes] : live) sum += bytes;
        return sum;
    };

    ChainCost cost;
    ChainTensor kernel_input = chain.input;
    std::size_t first = 0;
    for (const int count : split) {
        KernelTraffic k;
        std::vector<std::string> used{kernel_input.name};
        k.read_bytes = kernel_input.bytes;
        for (std::size_t i = first; i < first + static_cast<std::size_t>(count); ++i) {
            const ChainOp& op = chain.ops[i];
            k.label += (k.label.empty() ? "" : "+") + op.name;
            for (const ChainTensor& t : op.side_inputs) {
                k.read_bytes += t.bytes;
                used.push_back(t.name);
            }
        }
        const ChainTensor& output = chain.ops[first + static_cast<std::size_t>(count) - 1].output;
        k.write_bytes = output.bytes;
        k.bytes = k.read_bytes + k.write_bytes;
        live[output.name] = output.bytes;  // allocate the output first ...
        k.live_bytes = live_total();
        for (const std::string& name : used) live.erase(name);  // ... free the used inputs after
        cost.total_bytes += k.bytes;
        cost.peak_bytes = std::max(cost.peak_bytes, k.live_bytes);
        cost.kernels.push_back(k);
        kernel_input = output;
        first += static_cast<std::size_t>(count);
    }
    return cost;
}

std::string split_label(const ElementwiseChain& chain, const ChainSplit& split) {
    std::string out;
    for (const KernelTraffic& k : chain_cost(chain, split).kernels) out += (out.empty() ? "" : " | ") + k.label;
    return out;
}

std::int64_t chain_split_count(int ops) {
    if (ops < 1 || ops > 63) throw std::invalid_argument("chain length must be 1..63");
    return std::int64_t{1} << (ops - 1);  // each of the ops − 1 boundaries is cut or not
}

std::vector<ChainSplit> all_splits(int ops) {
    if (ops < 1 || ops > 20) throw std::invalid_argument("chain length must be 1..20 to list its splits");
    std::vector<ChainSplit> splits;
    for (std::int64_t cuts = 0; cuts < chain_split_count(ops); ++cuts) {
        ChainSplit s{1};
        for (int boundary = 0; boundary < ops - 1; ++boundary) {
            if ((cuts >> boundary) & 1) s.push_back(1);  // cut: the next operator starts a kernel
            else ++s.back();                             // no cut: it joins the current kernel
        }
        splits.push_back(s);
    }
    return splits;
}

std::int64_t min_rows_to_amortize(double saved_bytes_per_row, double overhead_us, double bandwidth_gbps) {
    return first_count_exceeding(overhead_us, transfer_time_us(saved_bytes_per_row, bandwidth_gbps));
}

double silu(double x) { return x / (1.0 + std::exp(-x)); }

Fp8RowScale fp8_row_scale_roundtrip(double x, double row_absmax, double fp8_max) {
    if (!(row_absmax > 0)) throw std::invalid_argument("the row maximum must be positive");
    Fp8RowScale r;
    r.scale = fp8_max / row_absmax;
    r.scaled = x * r.scale;
    r.quantized = round_to_e4m3(static_cast<float>(r.scaled));
    r.dequantized = r.quantized / r.scale;
    r.error = std::fabs(r.dequantized - x);
    return r;
}

QuantGemmTraffic quant_gemm_traffic(const QuantGemmCase& c) {
    if (c.m < 1 || c.k < 1 || c.n < 1 || c.tile_m < 1 || c.tile_n < 1) {
        throw std::invalid_argument("matrix and tile sizes must be positive");
    }
    if (c.tile_m > c.m || c.tile_n > c.n) throw std::invalid_argument("tile larger than the matrix");
    QuantGemmTraffic t;
    const double mk = static_cast<double>(c.m) * static_cast<double>(c.k);
    t.row_blocks = ceil_div(c.m, c.tile_m);
    t.col_blocks = ceil_div(c.n, c.tile_n);
    t.input_bytes = mk * c.in_bytes;
    t.quantized_bytes = mk * c.quant_bytes;
    t.weight_bytes = static_cast<double>(c.k) * static_cast<double>(c.n) * c.w_bytes;
    t.output_bytes = static_cast<double>(c.m) * static_cast<double>(c.n) * c.out_bytes;
    // Separate: read A, write A_q once, then every column block reads A_q.
    t.separate_input_bytes = t.input_bytes + t.quantized_bytes + static_cast<double>(t.col_blocks) * t.quantized_bytes;
    // Fused: read A for the row-wide scales, then every column block reads A and quantizes locally.
    t.fused_input_bytes = t.input_bytes + static_cast<double>(t.col_blocks) * t.input_bytes;
    t.shared_bytes = static_cast<double>(t.row_blocks) * t.weight_bytes + t.output_bytes;
    t.separate_total_bytes = t.separate_input_bytes + t.shared_bytes;
    t.fused_total_bytes = t.fused_input_bytes + t.shared_bytes;
    t.fused_over_separate = t.fused_total_bytes / t.separate_total_bytes;
    t.accumulator_bytes = static_cast<double>(c.tile_m) * static_cast<double>(c.tile_n) * c.acc_bytes;
    return t;
}

}  // namespace gpulab::models
