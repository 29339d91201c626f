// Launch counts, graph replay with input copies, persistent kernel.
#include "labs/models/launch.hpp"

#include <stdexcept>

#include "labs/math.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/models/units.hpp"

namespace gpulab::models {

LaunchCounts launch_counts(std::int64_t runs, std::int64_t kernels_per_run, bool graph_replay) {
    if (runs < 0 || kernels_per_run < 0) throw std::invalid_argument("counts must not be negative");
    // A graph replaces a run's kernel launches by one graph launch; the device still runs every node.
    return {graph_replay ? runs : runs * kernels_per_run, runs * kernels_per_run};
}

std::array<LaunchVariant, 4> launch_variants(std::int64_t runs, std::int64_t kernels_per_run,
                                             std::int64_t fused_kernels_per_run) {
    return {LaunchVariant{"eager", launch_counts(runs, kernels_per_run, false)},
            LaunchVariant{"graph", launch_counts(runs, kernels_per_run, true)},
            LaunchVariant{"fused", launch_counts(runs, fused_kernels_per_run, false)},
            LaunchVariant{"fused+graph", launch_counts(runs, fused_kernels_per_run, true)}};
}

double graph_break_even_input_bytes(double saving_us, double bandwidth_gbps) {
    // 2X / B = saving  →  X = saving · B / 2.
    return saving_us * 1e-6 * bandwidth_gbps * kGBps / 2;
}

GraphReplay graph_replay(const GraphReplayInput& in) {
    if (in.input_bytes < 0) throw std::invalid_argument("input size must not be negative");
    GraphReplay g;
    g.eager_us = in.compute_us + in.host_wait_us;
    g.graph_without_copy_us = in.graph_prep_us + in.compute_us;
    g.saving_without_copy_us = g.eager_us - g.graph_without_copy_us;
    g.copy_bytes = 2 * in.input_bytes;
    g.copy_us = transfer_time_us(g.copy_bytes, in.bandwidth_gbps);
    g.graph_us = g.graph_without_copy_us + g.copy_us;
    g.saving_us = g.eager_us - g.graph_us;
    g.break_even_input_bytes = graph_break_even_input_bytes(g.saving_without_copy_us, in.bandwidth_gbps);
    return g;
}

PersistentKernel persistent_kernel(const PersistentKernelInput& in) {
    if (in.tokens < 1 || in.block_tokens < 1) throw std::invalid_argument("tokens and block size must be positive");
    PersistentKernel p;
    p.blocks = ceil_div(in.tokens, in.block_tokens);
    p.projection_flop_per_block = 2.0 * static_cast<double>(in.block_tokens) * in.hidden * in.ffn;
    p.projection_us = compute_time_us(p.projection_flop_per_block, in.peak_tflops);
    p.activation_bytes_per_block = 2.0 * static_cast<double>(in.block_tokens) * in.ffn * in.elem_bytes;
    p.activation_us = transfer_time_us(p.activation_bytes_per_block, in.bandwidth_gbps);
    // Coarse: launch the projection, run every block, launch the activation, run every block.
    p.coarse_us = 2 * in.launch_us + static_cast<double>(p.blocks) * (p.projection_us + p.activation_us);
    // Persistent: one launch; each task pays the queue and the flag; projections and activations pipeline.
    const double per_task = in.dequeue_us + in.flag_us;
    p.task_projection_us = p.projection_us + per_task;
    p.task_activation_us = p.activation_us + per_task;
    p.persistent_us = in.launch_us + pipeline_time_us(p.blocks, p.task_projection_us, p.task_activation_us);
    p.speedup = p.coarse_us / p.persistent_us;
    return p;
}

GemvChain gemv_chain(const GemvChainInput& in) {
    if (in.steps < 1 || in.dim < 1) throw std::invalid_argument("a chain needs at least one step of at least one row");
    GemvChain c;
    c.weight_bytes_per_step = static_cast<double>(in.dim) * static_cast<double>(in.dim) * in.elem_bytes;
    c.step_us = transfer_time_us(c.weight_bytes_per_step, in.bandwidth_gbps);
    c.boundaries = in.steps - 1;
    c.boundaries_us = static_cast<double>(c.boundaries) * in.boundary_us;
    c.chain_us = static_cast<double>(in.steps) * c.step_us + c.boundaries_us;
    c.boundary_share = c.chain_us > 0 ? c.boundaries_us / c.chain_us : 0;
    return c;
}

}  // namespace gpulab::models
