// Two-stage pipelines: closed form and slot-by-slot timeline.
#include "labs/models/pipeline.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpulab::models {

double pipeline_time_us(std::int64_t blocks, double move_us, double compute_us) {
    if (blocks < 1) throw std::invalid_argument("at least one block");
    return move_us + static_cast<double>(blocks - 1) * std::max(move_us, compute_us) + compute_us;
}

double serial_time_us(std::int64_t blocks, double move_us, double compute_us) {
    return static_cast<double>(blocks) * (move_us + compute_us);
}

double move_time_in_flight_us(double rate_us, double alone_us, int in_flight) {
    if (in_flight < 1) throw std::invalid_argument("at least one move in flight");
    if (rate_us < 0 || alone_us < 0) throw std::invalid_argument("move times must not be negative");
    return std::max(rate_us, alone_us / in_flight);
}

double slots_time_us(std::int64_t blocks, int slots, double rate_us, double alone_us, double compute_us) {
    if (slots < 1) throw std::invalid_argument("at least one slot");
    if (slots == 1) return serial_time_us(blocks, alone_us, compute_us);
    return pipeline_time_us(blocks, move_time_in_flight_us(rate_us, alone_us, slots - 1), compute_us);
}

PipelineTimeline simulate_pipeline(const std::vector<double>& move_us, const std::vector<double>& compute_us,
                                   int slots) {
    if (move_us.empty() || move_us.size() != compute_us.size()) {
        throw std::invalid_argument("one move time and one compute time per block, at least one block");
    }
    if (slots < 1) throw std::invalid_argument("at least one slot");
    const bool non_negative = std::all_of(move_us.begin(), move_us.end(), [](double t) { return t >= 0; }) &&
                              std::all_of(compute_us.begin(), compute_us.end(), [](double t) { return t >= 0; });
    if (!non_negative) throw std::invalid_argument("stage times must not be negative");

    PipelineTimeline t;
    std::vector<double> slot_empty_at(static_cast<std::size_t>(slots), 0.0);
    double mover_free_at = 0, compute_free_at = 0;
    for (std::size_t j = 0; j < move_us.size(); ++j) {
        BlockTimes b;
        b.block = static_cast<int>(j);
        b.slot = static_cast<int>(j % static_cast<std::size_t>(slots));
        double& slot_free = slot_empty_at[static_cast<std::size_t>(b.slot)];
        // Stage 1 waits for itself (one block at a time) and for the slot's "empty" event.
        b.move_start_us = std::max(mover_free_at, slot_free);
        b.slot_wait_us = b.move_start_us - mover_free_at;
        b.full_us = b.move_start_us + move_us[j];
        mover_free_at = b.full_us;
        // Stage 2 waits for the slot's "full" event and for the previous block.
        b.compute_start_us = std::max(b.full_us, compute_free_at);
        b.empty_us = b.compute_start_us + compute_us[j];
        compute_free_at = b.empty_us;
        slot_free = b.empty_us;
        t.events.push_back({b.full_us, "full", b.block, b.slot});
        t.events.push_back({b.empty_us, "empty", b.block, b.slot});
        t.blocks.push_back(b);
    }
    std::stable_sort(t.events.begin(), t.events.end(),
                     [](const SlotEvent& a, const SlotEvent& b) { return a.time_us < b.time_us; });
    const double moving = std::accumulate(move_us.begin(), move_us.end(), 0.0);
    const double computing = std::accumulate(compute_us.begin(), compute_us.end(), 0.0);
    t.total_us = t.blocks.back().empty_us;
    t.serial_us = moving + computing;
    t.move_busy_fraction = t.total_us > 0 ? moving / t.total_us : 0;
    t.compute_busy_fraction = t.total_us > 0 ? computing / t.total_us : 0;
    return t;
}

PipelineTimeline simulate_pipeline(std::int64_t blocks, double move_us, double compute_us, int slots) {
    if (blocks < 1) throw std::invalid_argument("at least one block");
    return simulate_pipeline(std::vector<double>(static_cast<std::size_t>(blocks), move_us),
                             std::vector<double>(static_cast<std::size_t>(blocks), compute_us), slots);
}

std::int64_t smem_budget_per_block_bytes(const SmLimits& sm, int blocks_per_sm) {
    if (blocks_per_sm < 1) throw std::invalid_argument("at least one block per SM");
    const std::int64_t shared = (sm.smem_per_sm_bytes - blocks_per_sm * sm.smem_reserved_per_block_bytes) / blocks_per_sm;
    return std::min(shared, sm.smem_per_block_max_bytes);
}

std::int64_t slots_that_fit(std::int64_t budget_bytes, std::int64_t fixed_bytes, std::int64_t slot_bytes) {
    if (slot_bytes < 1 || fixed_bytes < 0) throw std::invalid_argument("slot size must be positive, fixed part not negative");
    if (fixed_bytes > budget_bytes) return 0;
    return (budget_bytes - fixed_bytes) / slot_bytes;
}

std::string stream_bottleneck(const StreamStages& s) {
    if (s.h2d_us >= s.kernel_us && s.h2d_us >= s.d2h_us) return "h2d";
    return s.kernel_us >= s.d2h_us ? "kernel" : "d2h";
}

double stream_serial_time_us(std::int64_t chunks, const StreamStages& s) {
    if (chunks < 1) throw std::invalid_argument("at least one chunk");
    return static_cast<double>(chunks) * (s.h2d_us + s.kernel_us + s.d2h_us);
}

double stream_pipeline_time_us(std::int64_t chunks, const StreamStages& s, int slots) {
    if (chunks < 1) throw std::invalid_argument("at least one chunk");
    if (slots < 0) throw std::invalid_argument("slots must not be negative (0: unlimited)");
    if (s.h2d_us < 0 || s.kernel_us < 0 || s.d2h_us < 0) throw std::invalid_argument("stage times must not be negative");
    std::vector<double> kernel_done(static_cast<std::size_t>(chunks), 0.0), out_done(static_cast<std::size_t>(chunks), 0.0);
    double in_free = 0, sm_free = 0, out_free = 0;
    for (std::int64_t j = 0; j < chunks; ++j) {
        const bool reuse = slots > 0 && j >= slots;
        const auto before = static_cast<std::size_t>(j - (reuse ? slots : 0));
        // The slot's input buffer is free once the previous chunk's kernel has read it ("compute done"); its
        // output buffer once the previous chunk's result has been copied out ("copy-out done").
        const double in_end = std::max(in_free, reuse ? kernel_done[before] : 0.0) + s.h2d_us;
        const double k_end = std::max({sm_free, in_end, reuse ? out_done[before] : 0.0}) + s.kernel_us;
        const double out_end = std::max(out_free, k_end) + s.d2h_us;
        in_free = in_end;
        sm_free = k_end;
        out_free = out_end;
        kernel_done[static_cast<std::size_t>(j)] = k_end;
        out_done[static_cast<std::size_t>(j)] = out_end;
    }
    return out_free;
}

bool event_wait_blocks(bool recorded) {
    // cudaStreamWaitEvent waits for the work captured by the most recent cudaEventRecord; an event never
    // recorded captures no work, so there is nothing to wait for.
    return recorded;
}

std::string missing_used_event_effect() {
    // Were a wait on a never-recorded event to block until a record that never comes, the writer would hang;
    // in CUDA it returns at once, so the writer goes ahead while the buffer may still be read.
    return event_wait_blocks(false) ? "hang" : "race";
}

}  // namespace gpulab::models
