// The calculator's models: each reads its parameters, calls the topic models, and records every
// step with its unit and formula. The numbers come from the topic headers; nothing is computed here
// that they do not compute.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "calc_context.hpp"
#include "labs/models/attention.hpp"
#include "labs/models/banks.hpp"
#include "labs/models/fusion.hpp"
#include "labs/models/launch.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/models/reduction.hpp"
#include "labs/models/request.hpp"
#include "labs/models/roofline.hpp"
#include "labs/models/shapes.hpp"
#include "labs/models/tiling.hpp"
#include "labs/models/units.hpp"

namespace gpulab::models::calc_detail {
namespace {

using K = ParamKind;

// ---------------------------------------------------------------------------------------------
void run_occupancy(Context& c) {
    BlockFootprint block;
    block.threads = static_cast<int>(c.whole("threads"));
    block.regs_per_thread = static_cast<int>(c.whole("regs"));
    block.smem_bytes = c.whole("smem-bytes");
    c.device_figure("warp_size", "threads");
    c.device_figure("max_threads_per_sm", "threads");
    c.device_figure("max_threads_per_block", "threads");
    c.device_figure("max_blocks_per_sm", "blocks");
    c.device_figure("regs_per_sm", "registers");
    c.device_figure("max_regs_per_thread", "registers");
    c.device_figure("reg_alloc_unit", "registers");
    c.device_figure("reg_file_partitions", "partitions");
    c.device_figure("smem_per_sm_bytes", "bytes");
    c.device_figure("smem_per_block_max_bytes", "bytes");
    c.device_figure("smem_reserved_per_block_bytes", "bytes");
    c.device_figure("smem_alloc_unit_bytes", "bytes");

    const Occupancy o = occupancy(sm_limits(c.device()), block);
    c.step("warps_per_block", o.warps_per_block, "warps", "ceil(threads / warp_size)");
    c.step("max_warps_per_sm", o.max_warps_per_sm, "warps", "max_threads_per_sm / warp_size");
    c.step("regs_per_warp", o.regs_per_warp, "registers", "round_up(regs · warp_size, reg_alloc_unit)");
    c.step("regs_per_block", o.regs_per_block, "registers", "regs_per_warp · warps_per_block");
    c.step("smem_per_block_bytes", static_cast<double>(o.smem_per_block_bytes), "bytes",
           "round_up(smem_bytes + smem_reserved_per_block_bytes, smem_alloc_unit_bytes)");
    c.step("blocks_by_threads", o.blocks_by_threads, "blocks", "floor(max_warps_per_sm / warps_per_block)");
    c.step("blocks_by_regs", o.blocks_by_regs, "blocks",
           "floor(floor(regs_per_sm / reg_file_partitions / regs_per_warp) · reg_file_partitions / warps_per_block)");
    c.step("blocks_by_smem", o.blocks_by_smem, "blocks", "floor(smem_per_sm_bytes / smem_per_block_bytes)");
    c.step("blocks_by_limit", o.blocks_by_limit, "blocks", "max_blocks_per_sm");
    c.result("resident_blocks", o.resident_blocks, "blocks",
             "min(blocks_by_threads, blocks_by_regs, blocks_by_smem, blocks_by_limit)");
    c.result("resident_warps", o.resident_warps, "warps", "resident_blocks · warps_per_block");
    c.result("occupancy", o.occupancy, "fraction", "resident_warps / max_warps_per_sm");
    c.result_text("limiter", o.limiter(), "every resource whose allowance equals resident_blocks");
    c.result("threads_used", o.threads_used, "threads", "resident_warps · warp_size");
    c.result("regs_free", o.regs_free, "registers", "regs_per_sm − resident_blocks · regs_per_block");
    c.result("smem_free_bytes", static_cast<double>(o.smem_free_bytes), "bytes",
             "smem_per_sm_bytes − resident_blocks · smem_per_block_bytes");
}

// ---------------------------------------------------------------------------------------------
void run_littles_law(Context& c) {
    LittlesLawInput in;
    in.bandwidth_gbps = c.number("bandwidth-gbps");
    in.latency_ns = c.number("latency-ns");
    in.sm_count = static_cast<int>(c.whole("sm-count"));
    in.resident_warps = static_cast<int>(c.whole("warps"));
    in.loads_per_warp = static_cast<int>(c.whole("loads-per-warp"));
    in.bytes_per_thread_per_load = static_cast<int>(c.whole("bytes-per-load"));
    in.warps_per_block = static_cast<int>(c.whole("warps-per-block"));
    in.warp_size = static_cast<int>(c.device_figure("warp_size", "threads"));
    const LittlesLaw l = littles_law(in);
    c.step("needed_device_bytes", l.needed_device_bytes, "bytes", "bandwidth_gbps · latency_ns");
    c.step("needed_per_sm_bytes", l.needed_per_sm_bytes, "bytes", "needed_device_bytes / sm_count");
    c.step("bytes_per_warp_load", l.bytes_per_warp_load, "bytes", "bytes_per_load · warp_size");
    c.step("available_per_sm_bytes", l.available_per_sm_bytes, "bytes", "warps · loads_per_warp · bytes_per_warp_load");
    c.result("coverage", l.coverage, "", "available_per_sm_bytes / needed_per_sm_bytes");
    c.result("warps_needed", l.warps_needed, "warps", "ceil(needed_per_sm_bytes / (loads_per_warp · bytes_per_warp_load))");
    c.result("blocks_needed", l.blocks_needed, "blocks", "ceil(warps_needed / warps_per_block)");
    c.result("effective_bandwidth_gbps", l.effective_bandwidth_gbps, "GB/s",
             "min(bandwidth_gbps, available_per_sm_bytes · sm_count / latency_ns)");
}

// ---------------------------------------------------------------------------------------------
void run_tile_traffic(Context& c) {
    GemmShape g;
    g.m = c.whole("m");
    g.k = c.whole("k");
    g.n = c.whole("n");
    Tile t;
    t.m = c.whole("tile-m");
    t.n = c.whole("tile-n");
    t.k = c.whole("tile-k");
    const int buffers = static_cast<int>(c.whole("buffers"));
    g.a_bytes = g.w_bytes = static_cast<int>(c.whole("in-bytes"));
    g.acc_bytes = static_cast<int>(c.whole("acc-bytes"));
    g.c_bytes = static_cast<int>(c.whole("out-bytes"));
    c.device_figure("bf16_dense_tflops", "TFLOP/s");
    c.device_figure("memory_bandwidth_gbps", "GB/s");
    c.device_figure("smem_per_sm_bytes", "bytes");
    c.device_figure("smem_reserved_per_block_bytes", "bytes");

    const TilingReport r = tiling_report(g, t, c.device(), buffers);
    c.step("flop", r.flop, "FLOP", "2 · m · k · n");
    c.step("once_bytes", r.once_bytes, "bytes", "m·k·in_bytes + k·n·in_bytes + m·n·out_bytes");
    c.step("a_tile_bytes", r.local.a_tile_bytes, "bytes", "buffers · tile_m · tile_k · in_bytes");
    c.step("w_tile_bytes", r.local.w_tile_bytes, "bytes", "buffers · tile_k · tile_n · in_bytes");
    c.step("accumulator_bytes", r.local.acc_bytes, "bytes", "tile_m · tile_n · acc_bytes");
    c.result("local_bytes", r.local.total_bytes, "bytes", "a_tile_bytes + w_tile_bytes + accumulator_bytes");
    c.step("row_blocks", static_cast<double>(r.traffic.row_blocks), "blocks", "ceil(m / tile_m)");
    c.step("col_blocks", static_cast<double>(r.traffic.col_blocks), "blocks", "ceil(n / tile_n)");
    c.step("output_tiles", static_cast<double>(r.traffic.output_tiles), "tiles", "row_blocks · col_blocks");
    c.step("k_steps", static_cast<double>(r.traffic.k_steps), "steps", "ceil(k / tile_k)");
    c.step("a_read_bytes", r.traffic.a_read_bytes, "bytes", "col_blocks · m · k · in_bytes");
    c.step("w_read_bytes", r.traffic.w_read_bytes, "bytes", "row_blocks · k · n · in_bytes");
    c.step("c_write_bytes", r.traffic.c_write_bytes, "bytes", "m · n · out_bytes");
    c.result("traffic_bytes", r.traffic.total_bytes, "bytes", "a_read_bytes + w_read_bytes + c_write_bytes");
    c.result("traffic_mib", to_mib(r.traffic.total_bytes), "MiB", "traffic_bytes / 2^20");
    c.result("intensity_flop_per_byte", r.traffic.intensity_flop_per_byte, "FLOP/B", "flop / traffic_bytes");
    c.step("device_intensity_flop_per_byte", r.device_intensity_flop_per_byte, "FLOP/B",
           "bf16_dense_tflops / memory_bandwidth_gbps");
    c.result("mfu_ceiling", r.mfu_ceiling, "fraction", "min(1, intensity_flop_per_byte / device_intensity_flop_per_byte)");
    c.result("resident_tiles_per_sm", r.resident_tiles_per_sm, "tiles",
             "floor(smem_per_sm_bytes / round_up(local_bytes + smem_reserved_per_block_bytes, smem_alloc_unit))");
}

// ---------------------------------------------------------------------------------------------
void run_bank_rounds(Context& c) {
    const std::int64_t width = c.whole("width");
    const std::int64_t pad = c.whole("pad");
    const bool swizzle = c.whole("swizzle") == 1;
    const std::int64_t lanes = c.whole("lanes");
    const int element_bytes = static_cast<int>(c.whole("element-bytes"));
    if (swizzle && pad > 0) throw std::invalid_argument("choose padding or swizzle, not both");
    // Lane i reads row i of column 0 of a tile whose rows are width + pad elements apart.
    const std::vector<std::int64_t> offsets = column_addresses(lanes, width, 0, width + pad, swizzle);
    const std::int64_t lane_1 = offsets.size() > 1 ? offsets[1] : offsets[0];
    const PaddingCost p = padding_cost(lanes, width, pad, element_bytes);
    c.step("row_stride_elements", static_cast<double>(p.row_stride_words), "elements", "width + pad");
    c.step("lane_1_element", static_cast<double>(lane_1), "elements",
           swizzle ? "1 · row_stride_elements + (0 XOR 1)" : "1 · row_stride_elements");
    c.step("lane_1_word", static_cast<double>(lane_1 * element_bytes / 4), "words",
           "floor(lane_1_element · element_bytes / 4): a bank word holds 4 bytes");
    c.step("lane_1_bank", bank_of(lane_1 * element_bytes / 4), "", "lane_1_word mod 32");
    c.result("rounds", element_access_rounds(offsets, element_bytes), "rounds",
             "largest number of distinct words any bank serves (lane i reads row i of column 0)");
    c.result("tile_bytes", static_cast<double>(p.unpadded_bytes), "bytes", "lanes · width · element_bytes");
    c.result("padded_tile_bytes", static_cast<double>(p.padded_bytes), "bytes", "lanes · row_stride_elements · element_bytes");
    c.result("extra_bytes", static_cast<double>(p.extra_bytes), "bytes", "padded_tile_bytes − tile_bytes");
    c.result("overhead_fraction", p.overhead_fraction, "fraction", "extra_bytes / tile_bytes");
}

// ---------------------------------------------------------------------------------------------
ChainSplit parse_split(const std::string& text, int ops) {
    if (text == "separate") return all_separate(ops);
    if (text == "fused") return all_fused(ops);
    ChainSplit s;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 1) {
            throw std::invalid_argument("--split expects \"separate\", \"fused\" or operator counts like \"2,1\", got '" +
                                        text + "'");
        }
        s.push_back(static_cast<int>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return s;
}

void run_fusion_chain(Context& c) {
    const std::int64_t rows = c.whole("rows");
    const std::int64_t width = c.whole("width");
    const int act_bytes = static_cast<int>(c.whole("act-bytes"));
    const int quant_bytes = static_cast<int>(c.whole("quant-bytes"));
    const std::string split_text = c.word("split");
    const double overhead_us = c.number("overhead-us");
    const double bw = c.device_figure("memory_bandwidth_gbps", "GB/s");

    const ElementwiseChain chain = swiglu_chain(rows, width, act_bytes, quant_bytes);
    const int ops = static_cast<int>(chain.ops.size());
    const ChainSplit split = parse_split(split_text, ops);
    const ChainCost cost = chain_cost(chain, split);
    c.step("operators", ops, "", quant_bytes > 0 ? "SiLU, mul, quant" : "SiLU, mul");
    c.step("tensor_bytes", chain.input.bytes, "bytes", "rows · width · act_bytes (G, U, T, Z each)");
    for (std::size_t i = 0; i < cost.kernels.size(); ++i) {
        const KernelTraffic& k = cost.kernels[i];
        const std::string prefix = "kernel_" + std::to_string(i + 1);
        c.step(prefix + "_bytes", k.bytes, "bytes", k.label + ": reads its chain input and side inputs, writes its last output");
        c.step(prefix + "_live_bytes", k.live_bytes, "bytes", k.label + ": inputs still alive + its output");
    }
    c.result_text("kernels", split_label(chain, split), "operators per kernel");
    c.result("total_bytes", cost.total_bytes, "bytes", "sum of kernel_i_bytes");
    c.result("total_mib", to_mib(cost.total_bytes), "MiB", "total_bytes / 2^20");
    c.result("peak_bytes", cost.peak_bytes, "bytes", "max of kernel_i_live_bytes (allocate the output first, free inputs after)");
    c.result("peak_mib", to_mib(cost.peak_bytes), "MiB", "peak_bytes / 2^20");
    c.result("time_us", transfer_time_us(cost.total_bytes, bw), "µs", "total_bytes / memory_bandwidth_gbps");
    const double separate = chain_cost(chain, all_separate(ops)).total_bytes;
    const double fused = chain_cost(chain, all_fused(ops)).total_bytes;
    c.step("all_separate_mib", to_mib(separate), "MiB", "every operator its own kernel");
    c.step("all_fused_mib", to_mib(fused), "MiB", "one kernel");
    c.result("ways_to_cut", static_cast<double>(chain_split_count(ops)), "splits", "2^(operators − 1)");
    const double saved_per_row = (separate - fused) / static_cast<double>(rows);
    c.step("saved_bytes_per_row", saved_per_row, "bytes", "(all_separate − all_fused) / rows");
    c.result("min_rows_for_overhead", static_cast<double>(min_rows_to_amortize(saved_per_row, overhead_us, bw)), "rows",
             "smallest r with r · saved_bytes_per_row / memory_bandwidth_gbps > overhead_us");
}

// ---------------------------------------------------------------------------------------------
void run_split_reduction(Context& c) {
    const std::int64_t rows = c.whole("rows");
    const std::int64_t cols = c.whole("cols");
    const std::int64_t segments = c.whole("segments");
    const int elem = static_cast<int>(c.whole("elem-bytes"));
    if (segments > cols) throw std::invalid_argument("split-reduction: segments must not exceed cols");
    const SplitReduction one = split_reduction({rows, cols, 1, elem, 4});
    const SplitReduction s = split_reduction({rows, cols, segments, elem, 4});
    c.step("input_bytes", s.input_bytes, "bytes", "rows · cols · elem_bytes (x; gamma read per row and y written: the same)");
    c.step("one_group_bytes", one.total_bytes, "bytes", "x read + gamma read per row + y written");
    c.result("one_group_mib", to_mib(one.total_bytes), "MiB", "one_group_bytes / 2^20");
    c.result("first_stage_tasks", static_cast<double>(s.first_stage_tasks), "tasks", "rows · segments");
    c.step("partial_sums_bytes", s.partial_sums_bytes, "bytes", "rows · segments · 4 (none with one segment)");
    c.result("partial_sums_kib", to_kib(s.partial_sums_bytes), "KiB", "partial_sums_bytes / 2^10");
    c.step("scales_bytes", s.scales_bytes, "bytes", "rows · 4 (none with one segment)");
    c.result("scales_kib", to_kib(s.scales_bytes), "KiB", "scales_bytes / 2^10");
    c.step("reread_bytes", s.reread_bytes, "bytes", "x read again to normalise (none with one segment)");
    c.step("total_bytes", s.total_bytes, "bytes", "one_group_bytes + reread_bytes + 2 · (partial_sums_bytes + scales_bytes)");
    c.result("total_mib", to_mib(s.total_bytes), "MiB", "total_bytes / 2^20");
    c.result("extra_mib", to_mib(s.total_bytes - one.total_bytes), "MiB", "(total_bytes − one_group_bytes) / 2^20");
    c.result("launches", s.launches, "launches", "1 with one segment; 3 split (partial sums, merge, normalise)");
    c.result("row_fp32_kib", to_kib(one.temp_per_task_bytes), "KiB", "cols · 4 / 2^10");
    c.result("segment_fp32_kib", to_kib(s.temp_per_task_bytes), "KiB", "cols / segments · 4 / 2^10");
    const std::int64_t chain = longest_rounding_path(cols, segments);
    c.result("one_segment_chain", static_cast<double>(longest_rounding_path(cols, 1)), "roundings", "cols − 1");
    c.result("longest_chain", static_cast<double>(chain), "roundings", "(⌈cols / segments⌉ − 1) + (segments − 1)");
    c.result("best_segments", static_cast<double>(best_segment_count(cols)), "segments",
             "the fewest segments whose longest chain is the shortest (near √cols)");
    c.result("relative_bound", fp32_error_bound(chain), "", "γ(longest_chain) = k·u / (1 − k·u), u = 2^-24");
    if (segments <= 20) c.result("merge_orders", static_cast<double>(merge_orders(static_cast<int>(segments))), "orders", "segments!");
    c.result("tree_depth", pairwise_merge_depth(segments), "levels", "⌈log2 segments⌉ (a pairwise merge)");
}

// ---------------------------------------------------------------------------------------------
void run_pipeline(Context& c) {
    const std::int64_t blocks = c.whole("blocks");
    const double tm = c.number("move-us");
    const double tc = c.number("compute-us");
    const int slots = static_cast<int>(c.whole("slots"));
    const PipelineTimeline t = simulate_pipeline(blocks, tm, tc, slots);
    c.step("serial_us", serial_time_us(blocks, tm, tc), "µs", "blocks · (move_us + compute_us)");
    c.step("t_pipe_us", pipeline_time_us(blocks, tm, tc), "µs",
           "move_us + (blocks − 1) · max(move_us, compute_us) + compute_us (enough slots)");
    const std::size_t shown = std::min<std::size_t>(t.blocks.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) {
        const BlockTimes& b = t.blocks[i];
        const std::string p = "block_" + std::to_string(i);
        const std::string slot = "slot " + std::to_string(b.slot);
        c.step(p + "_move_start_us", b.move_start_us, "µs", slot + ": max(previous move done, slot's empty event)");
        c.step(p + "_full_us", b.full_us, "µs", slot + " full: move_start + move_us");
        c.step(p + "_empty_us", b.empty_us, "µs", slot + " empty: max(full, previous compute done) + compute_us");
    }
    c.result("total_us", t.total_us, "µs", "last block's empty event (simulated timeline)");
    c.result("saving_fraction", 1 - t.total_us / t.serial_us, "fraction", "1 − total_us / serial_us");
    c.result("move_busy_fraction", t.move_busy_fraction, "fraction", "blocks · move_us / total_us");
    c.result("compute_busy_fraction", t.compute_busy_fraction, "fraction", "blocks · compute_us / total_us");
}

// ---------------------------------------------------------------------------------------------
void run_stream_pipeline(Context& c) {
    const std::int64_t chunks = c.whole("chunks");
    const StreamStages s{c.number("h2d-us"), c.number("kernel-us"), c.number("d2h-us")};
    const int slots = static_cast<int>(c.whole("slots"));
    const double serial = stream_serial_time_us(chunks, s), overlapped = stream_pipeline_time_us(chunks, s, slots);
    c.step("serial_us", serial, "µs", "chunks · (h2d_us + kernel_us + d2h_us): nothing overlapped");
    c.result_text("bottleneck", stream_bottleneck(s), "the slowest stage sets the pace (on a tie, the earliest)");
    c.result("overlapped_us", overlapped, "µs",
             slots == 0 ? "h2d_us + kernel_us + d2h_us + (chunks − 1) · max(h2d_us, kernel_us, d2h_us): enough slots"
                        : "three in-order engines; chunk j in slot j mod slots: its copy in waits until the slot's "
                          "last kernel is done, its kernel until that chunk is copied out (simulated)");
    c.result("speedup", serial / overlapped, "", "serial_us / overlapped_us");
}

// ---------------------------------------------------------------------------------------------
void run_attention_capacity(Context& c) {
    AttentionShape a;
    a.seq_len = c.whole("seq-len");
    a.head_dim = c.whole("head-dim");
    const std::int64_t b = c.whole("kv-rows");
    const std::int64_t budget = c.whole("budget-bytes");
    const int prefetch = static_cast<int>(c.whole("prefetch-slots"));
    const FlashPlan p = flash_plan(a, b, budget, prefetch);
    const MaterialisedAttention m = materialised_attention(a);
    c.step("bytes_per_q_row", flash_local_bytes(1, b, a.head_dim, prefetch) - flash_local_bytes(0, b, a.head_dim, prefetch),
           "bytes", "2·head_dim + 4·kv_rows + 4·head_dim + 12");
    c.step("fixed_bytes", flash_local_bytes(0, b, a.head_dim, prefetch), "bytes", "(1 + prefetch_slots) · 2 · kv_rows · head_dim");
    c.result("q_rows", static_cast<double>(p.q_rows), "rows", "floor((budget_bytes − fixed_bytes) / bytes_per_q_row)");
    c.result("local_bytes", p.local_bytes, "bytes", "2ad + 2bd + 4ab + 4ad + 12a (+ 2bd per prefetch slot)");
    c.result("passes", static_cast<double>(p.passes), "passes", "ceil(seq_len / q_rows)");
    c.step("kv_bytes_per_pass", p.kv_bytes_per_pass, "bytes", "2 · seq_len · head_dim · 2 (K and V, BF16)");
    c.result("traffic_bytes", p.traffic_bytes, "bytes", "passes · kv_bytes_per_pass + Q read + O written");
    c.result("traffic_mib", to_mib(p.traffic_bytes), "MiB", "traffic_bytes / 2^20");
    c.step("kv_blocks_per_pass", static_cast<double>(p.kv_blocks_per_pass), "blocks", "ceil(seq_len / kv_rows)");
    c.result("state_updates", static_cast<double>(p.state_updates), "updates", "passes · kv_blocks_per_pass");
    c.step("score_matrix_bytes", m.score_matrix_bytes, "bytes", "seq_len² · 4 (S or P in FP32)");
    c.result("materialised_traffic_bytes", m.total_bytes, "bytes", "Q, K, V, O once + S and P each written and read");
}

// ---------------------------------------------------------------------------------------------
void run_graph_breakeven(Context& c) {
    GraphReplayInput in;
    in.compute_us = c.number("compute-us");
    in.host_wait_us = c.number("host-wait-us");
    in.graph_prep_us = c.number("graph-prep-us");
    in.input_bytes = c.number("input-bytes");
    in.bandwidth_gbps = c.number("bandwidth-gbps");
    const GraphReplay g = graph_replay(in);
    c.step("eager_us", g.eager_us, "µs", "compute_us + host_wait_us");
    c.step("graph_without_copy_us", g.graph_without_copy_us, "µs", "graph_prep_us + compute_us");
    c.step("saving_without_copy_us", g.saving_without_copy_us, "µs", "eager_us − graph_without_copy_us");
    c.step("copy_bytes", g.copy_bytes, "bytes", "2 · input_bytes (read the new input, write the captured buffer)");
    c.step("copy_us", g.copy_us, "µs", "copy_bytes / bandwidth_gbps");
    c.result("graph_us", g.graph_us, "µs", "graph_without_copy_us + copy_us");
    c.result("saving_us", g.saving_us, "µs", "eager_us − graph_us");
    c.result("break_even_input_bytes", g.break_even_input_bytes, "bytes", "saving_without_copy_us · bandwidth_gbps / 2");
    c.result("break_even_input_mib", to_mib(g.break_even_input_bytes), "MiB", "break_even_input_bytes / 2^20");
}

// ---------------------------------------------------------------------------------------------
void run_bucketing(Context& c) {
    ShapeStrategiesInput in;
    in.rows = c.counts("rows");
    in.buckets = c.counts("buckets");
    in.hidden = c.whole("hidden");
    in.ffn = c.whole("ffn");
    in.generic_tflops = c.number("generic-tflops");
    in.bucketed_tflops = c.number("bucketed-tflops");
    in.specialized_tflops = c.number("specialized-tflops");
    in.generic_prep_ms = c.number("generic-prep-ms");
    in.bucketed_prep_ms = c.number("bucketed-prep-ms");
    in.specialized_prep_ms = c.number("specialized-prep-ms");
    const std::int64_t groups = c.whole("groups");
    const ShapeStrategies s = shape_strategies(in);
    c.step("actual_rows", static_cast<double>(s.padding.actual_rows), "rows", "sum of rows");
    c.step("padded_rows", static_cast<double>(s.padding.padded_rows), "rows", "sum of each call's smallest bucket ≥ its rows");
    c.result("padding_overhead", s.padding.overhead_fraction, "fraction", "padded_rows / actual_rows − 1");
    c.step("flop_per_row", s.flop_per_row, "FLOP", "6 · hidden · ffn");
    const char* rates[] = {"generic_tflops", "bucketed_tflops", "specialized_tflops"};
    const char* rows[] = {"actual_rows", "padded_rows", "actual_rows"};
    for (std::size_t i = 0; i < s.strategies.size(); ++i) {
        const Strategy& st = s.strategies[i];
        c.step(st.name + "_group_ms", st.group_ms, "ms", std::string(rows[i]) + " · flop_per_row / " + rates[i]);
    }
    for (const Strategy& st : s.strategies) {
        c.result(st.name + "_total_ms", total_time_ms(st, static_cast<double>(groups)), "ms",
                 st.name + "_prep_ms + groups · " + st.name + "_group_ms");
    }
    const auto crossover = [&](const std::string& name, const std::optional<std::int64_t>& v, const std::string& formula) {
        if (v) c.result(name, static_cast<double>(*v), "groups", formula);
        else c.result_text(name, "never", formula);
    };
    crossover("generic_to_bucketed_groups", s.generic_to_bucketed,
              "floor((bucketed_prep − generic_prep) / (generic_group − bucketed_group)) + 1");
    crossover("bucketed_to_specialized_groups", s.bucketed_to_specialized,
              "floor((specialized_prep − bucketed_prep) / (bucketed_group − specialized_group)) + 1");
    crossover("generic_to_specialized_groups", s.generic_to_specialized,
              "floor((specialized_prep − generic_prep) / (generic_group − specialized_group)) + 1");
    const auto best = std::min_element(s.strategies.begin(), s.strategies.end(), [&](const Strategy& a, const Strategy& b) {
        return total_time_ms(a, static_cast<double>(groups)) < total_time_ms(b, static_cast<double>(groups));
    });
    c.result_text("best_at_groups", best->name, "the least *_total_ms");
}

// ---------------------------------------------------------------------------------------------
void run_amdahl(Context& c) {
    const double f = c.number("fraction");
    const double s = c.number("speedup");
    c.step("new_time_fraction", (1 - f) + f / s, "", "(1 − fraction) + fraction / speedup");
    c.result("request_speedup", amdahl_speedup(f, s), "", "1 / new_time_fraction");
    if (f < 1) c.result("limit_speedup", amdahl_limit(f), "", "1 / (1 − fraction): the stage made free");
}

// ---------------------------------------------------------------------------------------------
void run_shape_mix(Context& c) {
    const double p = c.number("fraction-a");
    const double old_a = c.number("old-a-us"), old_b = c.number("old-b-us");
    const double new_a = c.number("new-a-us"), new_b = c.number("new-b-us");
    c.result("old_mean_us", mix_mean_time(p, old_a, old_b), "µs", "fraction_a · old_a_us + (1 − fraction_a) · old_b_us");
    c.result("new_mean_us", mix_mean_time(p, new_a, new_b), "µs", "fraction_a · new_a_us + (1 − fraction_a) · new_b_us");
    const std::optional<double> threshold = mix_break_even_fraction(old_a, old_b, new_a, new_b);
    const std::string formula = "(new_b_us − old_b_us) / ((new_b_us − old_b_us) + (old_a_us − new_a_us))";
    if (threshold) c.result("break_even_fraction_a", *threshold, "fraction", formula);
    else c.result_text("break_even_fraction_a", "none", formula);
}

// ---------------------------------------------------------------------------------------------
void run_autotune_payback(Context& c) {
    const double search_s = c.number("search-s");
    const double saving_us = c.number("saving-us");
    const double rate = c.number("calls-per-s");
    const Payback p = autotune_payback(search_s, saving_us, rate);
    c.result("calls", p.calls, "calls", "search_s / saving_us");
    c.result("payback_s", p.seconds, "s", "calls / calls_per_s");
    c.result("payback_hours", p.seconds / 3600, "h", "payback_s / 3600");
    c.result("payback_days", p.seconds / 86400, "days", "payback_s / 86400");
}

// ---------------------------------------------------------------------------------------------
void run_online_softmax(Context& c) {
    const std::vector<double> scores = c.numbers("scores");
    const std::vector<double> values = c.numbers("values");
    const std::int64_t block = c.whole("block");
    const std::vector<SoftmaxUpdate> steps = online_softmax(scores, values, static_cast<std::size_t>(block));
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const std::string p = "block_" + std::to_string(i + 1);
        c.step(p + "_m", steps[i].after.m, "", "max(m, max of the block's scores)");
        c.step(p + "_r", steps[i].r, "", "exp(m_old − m)");
        c.step(p + "_l", steps[i].after.l, "", "r · l_old + Σ exp(s − m)");
        c.step(p + "_u", steps[i].after.u, "", "r · u_old + Σ exp(s − m) · v");
    }
    c.result("result", steps.back().after.result(), "", "u / l");
    c.result("whole_row_result", softmax_weighted_sum(scores, values), "", "Σ softmax(s)_j · v_j over the whole row");
}

// ---------------------------------------------------------------------------------------------
void run_persistent_kernel(Context& c) {
    PersistentKernelInput in;
    in.tokens = c.whole("tokens");
    in.block_tokens = c.whole("block-tokens");
    in.hidden = c.whole("hidden");
    in.ffn = c.whole("ffn");
    in.peak_tflops = c.number("peak-tflops");
    in.bandwidth_gbps = c.number("bandwidth-gbps");
    in.launch_us = c.number("launch-us");
    in.dequeue_us = c.number("dequeue-us");
    in.flag_us = c.number("flag-us");
    const PersistentKernel p = persistent_kernel(in);
    c.step("blocks", static_cast<double>(p.blocks), "blocks", "ceil(tokens / block_tokens)");
    c.step("projection_flop_per_block", p.projection_flop_per_block, "FLOP", "2 · block_tokens · hidden · ffn");
    c.step("projection_us", p.projection_us, "µs", "projection_flop_per_block / peak_tflops");
    c.step("activation_bytes_per_block", p.activation_bytes_per_block, "bytes", "block_tokens · ffn · (2 read + 2 written)");
    c.step("activation_us", p.activation_us, "µs", "activation_bytes_per_block / bandwidth_gbps");
    c.result("coarse_us", p.coarse_us, "µs", "2 · launch_us + blocks · (projection_us + activation_us)");
    c.step("task_projection_us", p.task_projection_us, "µs", "projection_us + dequeue_us + flag_us");
    c.step("task_activation_us", p.task_activation_us, "µs", "activation_us + dequeue_us + flag_us");
    c.result("persistent_us", p.persistent_us, "µs",
             "launch_us + task_projection_us + (blocks − 1) · max(task_projection_us, task_activation_us) + task_activation_us");
    c.result("speedup", p.speedup, "", "coarse_us / persistent_us");
}

// ---------------------------------------------------------------------------------------------
void run_gemv_chain(Context& c) {
    GemvChainInput in;
    in.steps = c.whole("steps");
    in.dim = c.whole("dim");
    in.bandwidth_gbps = c.number("bandwidth-gbps");
    in.boundary_us = c.number("boundary-us");
    const GemvChain g = gemv_chain(in);
    c.step("weight_bytes_per_step", g.weight_bytes_per_step, "bytes", "dim · dim · 2");
    c.step("step_us", g.step_us, "µs", "weight_bytes_per_step / bandwidth_gbps");
    c.result("boundaries", static_cast<double>(g.boundaries), "", "steps − 1");
    c.result("boundaries_us", g.boundaries_us, "µs", "boundaries · boundary_us");
    c.result("chain_us", g.chain_us, "µs", "steps · step_us + boundaries_us");
    c.result("boundary_share", g.boundary_share, "", "boundaries_us / chain_us");
}

// ---------------------------------------------------------------------------------------------
void run_quant_gemm(Context& c) {
    QuantGemmCase q;
    q.m = c.whole("m");
    q.k = c.whole("k");
    q.n = c.whole("n");
    q.tile_m = c.whole("tile-m");
    q.tile_n = c.whole("tile-n");
    const QuantGemmTraffic t = quant_gemm_traffic(q);
    c.step("row_blocks", static_cast<double>(t.row_blocks), "blocks", "ceil(m / tile_m)");
    c.step("col_blocks", static_cast<double>(t.col_blocks), "blocks", "ceil(n / tile_n)");
    c.step("input_bytes", t.input_bytes, "bytes", "m · k · 2 (FP16)");
    c.step("quantized_bytes", t.quantized_bytes, "bytes", "m · k · 1 (FP8)");
    c.step("weight_bytes", t.weight_bytes, "bytes", "k · n · 1 (FP8)");
    c.step("output_bytes", t.output_bytes, "bytes", "m · n · 2 (FP16)");
    c.step("separate_input_bytes", t.separate_input_bytes, "bytes", "input + quantized + col_blocks · quantized");
    c.step("fused_input_bytes", t.fused_input_bytes, "bytes", "input (row scales) + col_blocks · input");
    c.step("shared_bytes", t.shared_bytes, "bytes", "row_blocks · weight + output");
    c.result("separate_total_mib", to_mib(t.separate_total_bytes), "MiB", "(separate_input_bytes + shared_bytes) / 2^20");
    c.result("fused_total_mib", to_mib(t.fused_total_bytes), "MiB", "(fused_input_bytes + shared_bytes) / 2^20");
    c.result("fused_over_separate", t.fused_over_separate, "", "fused_total / separate_total");
}

// ---------------------------------------------------------------------------------------------
CalcParam p(std::string name, std::string unit, K kind, std::string def, std::string description) {
    CalcParam out;
    out.name = std::move(name);
    out.unit = std::move(unit);
    out.kind = kind;
    if (def.rfind("device:", 0) == 0 || def.rfind("model:", 0) == 0) out.default_from = std::move(def);
    else out.default_value = std::move(def);
    out.description = std::move(description);
    return out;
}

std::vector<Entry> make_registry() {
    std::vector<Entry> r;
    r.push_back({{"occupancy", "resident blocks of one kernel on one SM, the limiting resource(s), occupancy", "5.1.5",
                  {p("threads", "threads", K::count, "", "threads per block"),
                   p("regs", "registers", K::size, "", "registers per thread"),
                   p("smem-bytes", "bytes", K::size, "", "shared-memory working set per block (the model adds the reserve)")},
                  "H100"},
                 run_occupancy});
    r.push_back({{"littles-law", "bytes in flight needed vs kept by resident warps, and the coverage ratio", "5.1.5",
                  {p("bandwidth-gbps", "GB/s", K::positive, "device:memory_bandwidth_gbps", "memory bandwidth"),
                   p("latency-ns", "ns", K::positive, "600", "memory latency"),
                   p("sm-count", "SMs", K::count, "device:sm_count", "SMs sharing the bandwidth"),
                   p("warps", "warps", K::size, "16", "resident warps per SM"),
                   p("loads-per-warp", "loads", K::count, "4", "outstanding loads per warp"),
                   p("bytes-per-load", "bytes", K::count, "16", "bytes per thread per load"),
                   p("warps-per-block", "warps", K::count, "8", "warps per block")},
                  "H100"},
                 run_littles_law});
    r.push_back({{"tile-traffic", "local storage, traffic, intensity and MFU ceiling of a tiled GEMM", "5.2.2",
                  {p("m", "rows", K::count, "model:running_example_tokens", "rows of A and C"),
                   p("k", "elements", K::count, "model:hidden_size", "reduction length"),
                   p("n", "columns", K::count, "model:intermediate_size", "columns of W and C"),
                   p("tile-m", "rows", K::count, "64", "output tile rows"),
                   p("tile-n", "columns", K::count, "64", "output tile columns"),
                   p("tile-k", "elements", K::count, "32", "K step"),
                   p("buffers", "sets", K::count, "1", "input buffer sets (2: double buffering)"),
                   p("in-bytes", "bytes", K::count, "model:dtype_bytes", "bytes per element of A and W"),
                   p("acc-bytes", "bytes", K::count, "4", "bytes per accumulator element"),
                   p("out-bytes", "bytes", K::count, "model:dtype_bytes", "bytes per element of C")},
                  "H100"},
                 run_tile_traffic});
    r.push_back({{"bank-rounds", "shared-memory rounds of a column read, with padding or XOR swizzle", "5.2.3",
                  {p("width", "elements", K::count, "32", "elements per row of the tile"),
                   p("pad", "elements", K::size, "0", "elements of padding added to each row"),
                   p("swizzle", "", K::flag, "0", "1: store (r, c) at column c XOR r"),
                   p("lanes", "lanes", K::count, "32", "lanes reading (one row each)"),
                   p("element-bytes", "bytes", K::count, "4", "bytes per element: 4 (FP32), 2 (BF16) or 1; a bank word holds 4")},
                  ""},
                 run_bank_rounds});
    r.push_back({{"fusion-chain", "bytes and peak memory of SiLU, multiply, quantize cut into kernels", "5.3.1",
                  {p("rows", "rows", K::count, "model:running_example_tokens", "rows (tokens)"),
                   p("width", "columns", K::count, "model:intermediate_size", "columns (FFN width)"),
                   p("act-bytes", "bytes", K::count, "model:dtype_bytes", "bytes per activation element"),
                   p("quant-bytes", "bytes", K::size, "1", "bytes per quantized element (0: no quantize step)"),
                   p("split", "", K::word, "separate", "\"separate\", \"fused\" or operators per kernel, e.g. \"2,1\""),
                   p("overhead-us", "µs", K::non_negative, "5", "fixed overhead of the fused kernel (Experiment 5-2)")},
                  "RTX PRO 6000"},
                 run_fusion_chain});
    r.push_back({{"split-reduction", "a row reduction (RMSNorm) split into segments: tasks, bytes, launches, rounding chains",
                  "5.2.4",
                  {p("rows", "rows", K::count, "model:running_example_tokens", "rows (tokens)"),
                   p("cols", "elements", K::count, "model:hidden_size", "elements per row"),
                   p("segments", "segments", K::count, "8", "segments per row (1: one group per row)"),
                   p("elem-bytes", "bytes", K::count, "model:dtype_bytes", "bytes per input, gamma and output element")},
                  ""},
                 run_split_reduction});
    r.push_back({{"pipeline", "two-stage pipeline through buffer slots: T_pipe and the full/empty timeline", "5.3.2",
                  {p("blocks", "blocks", K::count, "4", "blocks (or segments)"),
                   p("move-us", "µs", K::non_negative, "1.29", "stage 1 per block (copy, or host preparation)"),
                   p("compute-us", "µs", K::non_negative, "0.28", "stage 2 per block (compute, or device work)"),
                   p("slots", "slots", K::count, "2", "buffer slots")},
                  ""},
                 run_pipeline});
    r.push_back({{"stream-pipeline", "chunks through copy in, kernel and copy out on three engines: serial vs overlapped",
                  "5.1.3",
                  {p("chunks", "chunks", K::count, "16", "chunks n"),
                   p("h2d-us", "µs", K::non_negative, "50", "one chunk's copy in"),
                   p("kernel-us", "µs", K::non_negative, "80", "one chunk's kernel"),
                   p("d2h-us", "µs", K::non_negative, "50", "one chunk's copy out"),
                   p("slots", "slots", K::size, "0", "device slots (an input and an output buffer each); 0: enough")},
                  ""},
                 run_stream_pipeline});
    r.push_back({{"attention-capacity", "largest query block for a K/V block in a shared-memory budget, and its cost", "5.3.3",
                  {p("seq-len", "tokens", K::count, "8192", "sequence length L"),
                   p("head-dim", "elements", K::count, "model:head_dim", "head dimension d"),
                   p("kv-rows", "rows", K::count, "64", "K/V block rows b"),
                   p("budget-bytes", "bytes", K::count, "device:smem_per_block_max_bytes", "shared memory of one block"),
                   p("prefetch-slots", "slots", K::size, "0", "extra b × d BF16 prefetch slots")},
                  "RTX PRO 6000"},
                 run_attention_capacity});
    r.push_back({{"graph-breakeven", "graph replay's saving against the copy of its inputs", "5.5.2",
                  {p("compute-us", "µs", K::non_negative, "20", "device work per step"),
                   p("host-wait-us", "µs", K::non_negative, "20", "eager: device waiting for the host"),
                   p("graph-prep-us", "µs", K::non_negative, "5", "graph launch and metadata"),
                   p("input-bytes", "bytes", K::size, "2097152", "input copied into the captured buffer"),
                   p("bandwidth-gbps", "GB/s", K::positive, "device:memory_bandwidth_gbps", "copy bandwidth")},
                  "RTX PRO 6000"},
                 run_graph_breakeven});
    r.push_back({{"bucketing", "generic vs bucketed vs specialised programs: P + r·T and the crossovers", "5.5.3",
                  {p("rows", "rows", K::counts, "8*256,1536,2048", "rows of each call in the group (\"8*256\" repeats)"),
                   p("buckets", "rows", K::counts, "512,2048", "bucket sizes"),
                   p("hidden", "elements", K::count, "model:hidden_size", "H"),
                   p("ffn", "elements", K::count, "model:intermediate_size", "F"),
                   p("generic-tflops", "TFLOP/s", K::positive, "100", "generic program's rate"),
                   p("bucketed-tflops", "TFLOP/s", K::positive, "200", "bucketed programs' rate"),
                   p("specialized-tflops", "TFLOP/s", K::positive, "250", "specialised programs' rate"),
                   p("generic-prep-ms", "ms", K::non_negative, "100", "generic preparation"),
                   p("bucketed-prep-ms", "ms", K::non_negative, "400", "bucketed preparation"),
                   p("specialized-prep-ms", "ms", K::non_negative, "900", "specialised preparation"),
                   p("groups", "groups", K::count, "70", "how many times the group runs")},
                  ""},
                 run_bucketing});
    r.push_back({{"amdahl", "whole-request speed-up from speeding up one stage", "5.6.1",
                  {p("fraction", "", K::fraction, "0.2", "fraction of the time in the stage"),
                   p("speedup", "", K::positive, "2", "the stage's speed-up")},
                  ""},
                 run_amdahl});
    r.push_back({{"shape-mix", "mean time of old vs new kernel over a mix of two shapes", "5.4.6",
                  {p("fraction-a", "", K::fraction, "0.5", "fraction of calls with shape A"),
                   p("old-a-us", "µs", K::non_negative, "10", "old kernel, shape A"),
                   p("old-b-us", "µs", K::non_negative, "10", "old kernel, shape B"),
                   p("new-a-us", "µs", K::non_negative, "5", "new kernel, shape A"),
                   p("new-b-us", "µs", K::non_negative, "20", "new kernel, shape B")},
                  ""},
                 run_shape_mix});
    r.push_back({{"autotune-payback", "calls before a tuning search pays back", "5.5.3",
                  {p("search-s", "s", K::non_negative, "600", "search time"),
                   p("saving-us", "µs", K::positive, "5", "saving per call"),
                   p("calls-per-s", "calls/s", K::positive, "10000", "call rate")},
                  ""},
                 run_autotune_payback});
    r.push_back({{"online-softmax", "online softmax state (m, l, u) block by block", "5.3.3",
                  {p("scores", "", K::numbers, "0,0.6931471805599453", "scores of one row"),
                   p("values", "", K::numbers, "1,3", "values (one per score)"),
                   p("block", "elements", K::count, "1", "elements per block")},
                  ""},
                 run_online_softmax});
    r.push_back({{"persistent-kernel", "two kernels vs one persistent kernel with a task queue", "5.5.4",
                  {p("tokens", "tokens", K::count, "512", "rows projected"),
                   p("block-tokens", "tokens", K::count, "64", "rows per task"),
                   p("hidden", "elements", K::count, "model:hidden_size", "H"),
                   p("ffn", "elements", K::count, "model:intermediate_size", "F"),
                   p("peak-tflops", "TFLOP/s", K::positive, "device:bf16_dense_tflops", "matrix rate"),
                   p("bandwidth-gbps", "GB/s", K::positive, "device:memory_bandwidth_gbps", "memory bandwidth"),
                   p("launch-us", "µs", K::non_negative, "5", "one host launch"),
                   p("dequeue-us", "µs", K::non_negative, "0.15", "per task: queue counter"),
                   p("flag-us", "µs", K::non_negative, "0.37", "per task: ready flag")},
                  "RTX PRO 6000"},
                 run_persistent_kernel});
    r.push_back({{"gemv-chain", "a chain of GEMVs: weights at the bandwidth plus a cost per boundary", "5.5.4",
                  {p("steps", "GEMVs", K::count, "64", "GEMVs in the chain"),
                   p("dim", "elements", K::count, "model:hidden_size", "each matrix is dim × dim (BF16)"),
                   p("bandwidth-gbps", "GB/s", K::positive, "device:memory_bandwidth_gbps", "memory bandwidth"),
                   p("boundary-us", "µs", K::non_negative, "1.2", "one dependency between steps")},
                  "RTX PRO 6000"},
                 run_gemv_chain});
    r.push_back({{"quant-gemm", "quantize separately vs inside the GEMM (Example 5-8)", "5.4.5",
                  {p("m", "rows", K::count, "4096", "rows of A"),
                   p("k", "elements", K::count, "4096", "columns of A"),
                   p("n", "columns", K::count, "1536", "columns of W"),
                   p("tile-m", "rows", K::count, "128", "output tile rows"),
                   p("tile-n", "columns", K::count, "128", "output tile columns")},
                  ""},
                 run_quant_gemm});
    return r;
}

}  // namespace

const std::vector<Entry>& registry() {
    static const std::vector<Entry> entries = make_registry();
    return entries;
}

}  // namespace gpulab::models::calc_detail
