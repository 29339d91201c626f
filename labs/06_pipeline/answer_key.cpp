// FROZEN: do not edit. Lab 06's answer key: every value comes from the models (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); most points are on the case
// "pipeline", which answers.toml states and `grader --student ID` draws per student.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "grader/lab.hpp"
#include "labs/math.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/models/tiling.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// Section 5.1.5's K step on one H100 SM: a 128x128 output tile, K step 64, BF16 A and W tiles.
models::SmStepTimes kstep(const models::Tile& tile = {128, 128, 64}) {
    static const models::DeviceSpec h100 = models::load_device("H100");
    return models::sm_step_times(h100, models::GemmShape{}, tile);
}

double t_m() { return kstep().copy_us; }
double t_c() { return kstep().math_us; }

// FLOP per µs of one SM streaming n K steps through two slots, for a tile shape and a number of blocks
// sharing the SM (each gets 1/blocks of its bandwidth and of its math).
double flop_per_us(const models::Tile& tile, int blocks_per_sm, int slots, std::int64_t steps) {
    const models::SmStepTimes s = kstep(tile);
    const double total = models::simulate_pipeline(steps, s.copy_us * blocks_per_sm, s.math_us * blocks_per_sm, slots).total_us;
    return blocks_per_sm * double(steps) * s.step_flop / total;
}

// Which change makes Example 5-5's pipeline faster per SM, by the chapter's model (section 5.3.2; not what real
// hardware does, where a third slot can help): a third slot, a 256x128 output tile (more multiply-adds per byte
// moved), or two blocks sharing the SM.
std::string faster_by() {
    constexpr std::int64_t kSteps = 64;
    const std::vector<std::pair<std::string, double>> options{
        {"more_stages", flop_per_us({128, 128, 64}, 1, 3, kSteps)},
        {"bigger_tiles", flop_per_us({256, 128, 64}, 1, 2, kSteps)},
        {"more_blocks", flop_per_us({128, 128, 64}, 2, 2, kSteps)}};
    return std::max_element(options.begin(), options.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
}

const models::SmLimits& rtx_pro_6000() {
    static const models::SmLimits sm = models::sm_limits(models::load_device("RTX_PRO_6000"));
    return sm;
}

std::int64_t waiting_slots(int blocks_per_sm) {
    return models::slots_that_fit(models::smem_budget_per_block_bytes(rtx_pro_6000(), blocks_per_sm),
                                  static_cast<std::int64_t>(32 * gpulab::kKiB),
                                  static_cast<std::int64_t>(16 * gpulab::kKiB));
}

}  // namespace

void register_answers(Lab& lab) {
    lab.number("kstep.copy_us", "One K step's A and W tiles (32 KiB) at one H100 SM's share of the bandwidth (µs)", 0.5,
               0.01, [] { return t_m(); });
    lab.number("kstep.math_us", "Its 2,097,152 FLOP at one SM's share of the BF16 peak (µs)", 0.5, 0.01, [] { return t_c(); });
    lab.number("pipeline_5_3_2.serial_4_blocks_us", "Example 5-5: four blocks, one stage at a time (µs)", 0.5, 0.01,
               [] { return models::serial_time_us(4, t_m(), t_c()); });
    lab.number("pipeline_5_3_2.two_slots_4_blocks_us", "... with two slots (µs)", 0.5, 0.01,
               [] { return models::simulate_pipeline(4, t_m(), t_c(), 2).total_us; });
    lab.number("pipeline_5_3_2.three_slots_4_blocks_us", "... with three slots (µs)", 0.5, 0.01,
               [] { return models::simulate_pipeline(4, t_m(), t_c(), 3).total_us; });
    lab.number("pipeline_5_3_2.compute_busy_fraction", "... with two slots: the fraction of the time compute is busy", 0.5,
               0.02, [] { return models::simulate_pipeline(4, t_m(), t_c(), 2).compute_busy_fraction; });
    lab.number("pipeline_5_3_2.t_pipe_10_blocks_us", "T_pipe for ten blocks (µs)", 0.5, 0.01,
               [] { return models::pipeline_time_us(10, t_m(), t_c()); });
    lab.number("backpressure.waiting_slots_one_block",
               "RTX PRO 6000 (100 KB = 102,400 B of shared memory per SM), one block per SM: 16 KiB waiting slots "
               "beside 32 KiB of reorder space",
               0.5, 0.0,
               [] { return double(waiting_slots(1)); });
    lab.number("backpressure.waiting_slots_two_blocks", "... with two blocks per SM", 0.5, 0.0,
               [] { return double(waiting_slots(2)); });
    lab.choice("pipeline.faster_by",
               "In the chapter's model: what makes Example 5-5's pipeline faster once it overlaps?",
               {"more_stages", "bigger_tiles", "more_blocks"}, 0.5, [] { return faster_by(); });

    // The case: another pipeline, with its own move and compute times, blocks and slots.
    lab.exercise_case("pipeline", "`blocks` blocks, each moved in `move_ns` ns and computed in `compute_ns` ns, "
                                  "through `slots` slots",
                      {{"move_ns", 900, 200, 3000, 10}, {"compute_ns", 1400, 200, 3000, 10}, {"blocks", 6, 3, 12},
                       {"slots", 2, 1, 4}});
    const auto sim = [](const CaseValues& v) {
        return models::simulate_pipeline(v.at("blocks"), v.at("move_ns") / 1e3, v.at("compute_ns") / 1e3,
                                         static_cast<int>(v.at("slots")));
    };
    lab.number_for_case("pipeline", "case.serial_us", "One stage at a time (µs)", 3.75, 0.01, [](const CaseValues& v) {
        return models::serial_time_us(v.at("blocks"), v.at("move_ns") / 1e3, v.at("compute_ns") / 1e3);
    });
    lab.number_for_case("pipeline", "case.total_us", "Through the case's slots (µs)", 3.75, 0.01,
                        [=](const CaseValues& v) { return sim(v).total_us; });
    lab.number_for_case("pipeline", "case.move_busy_fraction", "The fraction of that time the mover is busy", 3.75, 0.02,
                        [=](const CaseValues& v) { return sim(v).move_busy_fraction; });
    lab.number_for_case("pipeline", "case.last_slot_wait_us",
                        "How long the mover waits for a slot before moving the last block (µs)", 3.75, 0.02,
                        [=](const CaseValues& v) { return sim(v).blocks.back().slot_wait_us; });

    // The calculator runs that work these questions (pipeline: blocks, move and compute time per block, slots), each
    // naming the parameters its questions depend on: wherever `grader calc` has them at these values it shows the
    // method, not the numbers. A pipeline's serial time and T_pipe do not depend on its slots, so each case is one
    // run of its blocks and stage times, any slots. Example 5-5 at the key's t_m and t_c, and at those to two
    // decimals, as the chapter gives them (1.29 µs and 0.28 µs, the model's defaults: within the tolerances).
    const auto exact = [](double x) {  // the shortest text that reads back as x
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    };
    const auto pipeline_run = [=](std::int64_t blocks, double move_us, double compute_us) {
        return CalcRun{.model = "pipeline",
                       .params = {{"blocks", std::to_string(blocks)}, {"move-us", exact(move_us)},
                                  {"compute-us", exact(compute_us)}}};
    };
    for (const bool rounded : {false, true}) {
        const auto as_given = [rounded](double us) { return rounded ? std::round(us * 100) / 100 : us; };
        lab.graded_calc("pipeline_5_3_2.serial_4_blocks_us, pipeline_5_3_2.*_slots_4_blocks_us, "
                        "pipeline_5_3_2.compute_busy_fraction",
                        pipeline_run(4, as_given(t_m()), as_given(t_c())));
        lab.graded_calc("pipeline_5_3_2.t_pipe_10_blocks_us", pipeline_run(10, as_given(t_m()), as_given(t_c())));
    }
    lab.graded_calc_for_case("pipeline", "case.*", [=](const CaseValues& v) {
        return pipeline_run(v.at("blocks"), v.at("move_ns") / 1e3, v.at("compute_ns") / 1e3);
    });
}
