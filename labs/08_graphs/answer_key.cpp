// FROZEN: do not edit. Lab 08's answer key: every value comes from the models (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); most points are on the case "replay",
// which answers.toml states and `grader --student ID` draws per student.
#include <algorithm>
#include <charconv>
#include <string>

#include "grader/lab.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/launch.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// Example 5-11 on a device: 20 µs of compute, 20 µs waiting for the host eagerly, 5 µs to prepare a replay, the
// input copied at the device's memory bandwidth.
models::GraphReplay example_5_11(double input_mib, const char* device = "RTX_PRO_6000") {
    return models::graph_replay({20, 20, 5, input_mib * gpulab::kMiB, models::load_device(device).memory_bandwidth_gbps});
}

// The FFN of section 5.5.2 run 3 times: 6 kernels, 5 once the activation chain is fused.
models::LaunchCounts ffn(int which) { return models::launch_variants(3, 6, 5)[which].counts; }

}  // namespace

void register_answers(Lab& lab) {
    lab.number("example_5_10.serial_us", "Example 5-10: 100 segments, 20 µs on the host and 20 µs on the device each, one "
                                         "after the other (µs)", 0.5, 0.005,
               [] { return models::serial_time_us(100, 20, 20); });
    lab.number("example_5_10.pipelined_us", "... pipelined (µs)", 0.5, 0.005, [] { return models::pipeline_time_us(100, 20, 20); });
    lab.number("example_5_10.fast_device_us", "... with the device at 5 µs per segment (µs)", 0.5, 0.005,
               [] { return models::pipeline_time_us(100, 20, 5); });
    lab.number("example_5_10.fast_both_us", "... with the host at 5 µs too (µs)", 0.5, 0.005,
               [] { return models::pipeline_time_us(100, 5, 5); });
    lab.number("ffn_x3.eager_host_launches", "Section 5.5.2's FFN, three runs launched eagerly: host launches", 0.5, 0.0,
               [] { return double(ffn(0).host_submissions); });
    lab.number("ffn_x3.graph_host_launches", "... replayed as one graph per run: host launches", 0.5, 0.0,
               [] { return double(ffn(1).host_submissions); });
    lab.number("ffn_x3.fused_device_kernels", "... with the activation chain fused: kernels the device runs", 0.5, 0.0,
               [] { return double(ffn(2).device_kernels); });
    lab.number("example_5_11.small_input_total_us", "Example 5-11: the graph's step with a 2 MiB input copied in (µs)", 0.5,
               0.01, [] { return example_5_11(2).graph_us; });
    lab.number("example_5_11.large_input_total_us", "... with a 16 MiB input (µs)", 0.5, 0.01,
               [] { return example_5_11(16).graph_us; });
    lab.number("example_5_11.breakeven_mib", "... the input size at which the copy eats the whole saving (MiB)", 0.5, 0.01,
               [] { return models::to_mib(example_5_11(2).break_even_input_bytes); });
    lab.number("experiment_5_8.rtx4090_breakeven_mib", "Experiment 5-8: the same on an RTX 4090 (1008 GB/s) (MiB)", 0.5, 0.01,
               [] { return models::to_mib(example_5_11(2, "RTX_4090").break_even_input_bytes); });

    // The case: another step — its compute, its eager host wait, its replay preparation, its input and bandwidth.
    lab.exercise_case("replay", "a step of `compute_us` µs of device work that eagerly also waits `wait_us` µs for the "
                                "host; a replay costs `prep_us` µs; its input of `input_mib` MiB is copied at `gbps` GB/s",
                      {{"compute_us", 30, 5, 100}, {"wait_us", 25, 5, 60}, {"prep_us", 4, 2, 10}, {"input_mib", 3, 1, 32},
                       {"gbps", 3350, 500, 4800, 10}});
    const auto replay = [](const CaseValues& v) {
        return models::graph_replay({double(v.at("compute_us")), double(v.at("wait_us")), double(v.at("prep_us")),
                                     v.at("input_mib") * gpulab::kMiB, double(v.at("gbps"))});
    };
    lab.number_for_case("replay", "case.eager_us", "One step launched eagerly (µs)", 3.0, 0.01,
                        [=](const CaseValues& v) { return replay(v).eager_us; });
    lab.number_for_case("replay", "case.graph_us", "One step replayed, its input copied in first (µs)", 3.0, 0.01,
                        [=](const CaseValues& v) { return replay(v).graph_us; });
    lab.number_for_case("replay", "case.breakeven_mib", "The input size at which the copy eats the replay's whole saving (MiB)",
                        3.0, 0.01, [=](const CaseValues& v) { return models::to_mib(replay(v).break_even_input_bytes); });
    lab.number_for_case("replay", "case.direct_write_saving_us",
                        "The saving per step when the producer writes the input into the graph's buffer directly (µs)", 3.0,
                        0.01, [=](const CaseValues& v) { return replay(v).saving_without_copy_us; });

    // This GPU, from the ceilings the grader measures at the start of a run: the three FFN runs' 18 kernels cost each
    // launch_device_us of device time when launched back to back, graph_node_us when replayed; the input is copied
    // at the D2D copy rate (bytes read + written per second). 11 × 0.5 + 4 × 3.0 + 2.5 = 20 points.
    lab.number_measured("measured.breakeven_mib_on_this_gpu",
                        "On this GPU: the input size at which copying it cancels what replaying the kernels of three FFN "
                        "runs saves on the device (MiB)",
                        2.5, 0.25, [](const Context& ctx) {
                            const double saving_us = 18 * (ctx.ceiling("launch_device_us").value_or(0) -
                                                           ctx.ceiling("graph_node_us").value_or(0));
                            return models::to_mib(models::graph_break_even_input_bytes(
                                std::max(saving_us, 0.0), ctx.ceiling("d2d_copy_gbps").value_or(0)));
                        });

    // The calculator runs that work these questions, each naming the parameters its questions depend on: wherever
    // `grader calc` has them at these values it shows the method, not the numbers. Example 5-10 is a pipeline of host
    // (move) and device (compute) stages, whose serial time and T_pipe do not depend on its slots. In
    // graph-breakeven a step's time with its copy depends on the compute, the preparation, the input and the
    // bandwidth; the break-even input on the host wait, the preparation and the bandwidth (the compute cancels); the
    // eager step on the compute and the host wait. The bandwidth is named as a number: a device's, or typed.
    const auto exact = [](double x) {  // the shortest text that reads back as x
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    };
    const auto segments = [=](double host_us, double device_us) {
        return CalcRun{.model = "pipeline",
                       .params = {{"blocks", "100"}, {"move-us", exact(host_us)}, {"compute-us", exact(device_us)}}};
    };
    lab.graded_calc("example_5_10.serial_us, example_5_10.pipelined_us", segments(20, 20));
    lab.graded_calc("example_5_10.fast_device_us", segments(20, 5));
    lab.graded_calc("example_5_10.fast_both_us", segments(5, 5));
    constexpr int kWithCopy = 1, kBreakEven = 2, kEager = 4;  // what a run's questions ask of the step
    const auto replay_run = [=](const models::GraphReplayInput& in, int asks) {
        CalcRun run{.model = "graph-breakeven"};
        if (asks & (kWithCopy | kEager)) run.params["compute-us"] = exact(in.compute_us);
        if (asks & (kBreakEven | kEager)) run.params["host-wait-us"] = exact(in.host_wait_us);
        if (asks & (kWithCopy | kBreakEven)) {
            run.params["graph-prep-us"] = exact(in.graph_prep_us);
            run.params["bandwidth-gbps"] = exact(in.bandwidth_gbps);
        }
        if (asks & kWithCopy) run.params["input-bytes"] = exact(in.input_bytes);
        return run;
    };
    // Example 5-11's step, as example_5_11() takes it.
    const auto step = [](double input_mib, const char* device) {
        return models::GraphReplayInput{20, 20, 5, input_mib * gpulab::kMiB, models::load_device(device).memory_bandwidth_gbps};
    };
    lab.graded_calc("example_5_11.small_input_total_us, example_5_11.breakeven_mib",
                    replay_run(step(2, "RTX_PRO_6000"), kWithCopy | kBreakEven));
    lab.graded_calc("example_5_11.large_input_total_us", replay_run(step(16, "RTX_PRO_6000"), kWithCopy));
    lab.graded_calc("experiment_5_8.rtx4090_breakeven_mib", replay_run(step(2, "RTX_4090"), kBreakEven));
    lab.graded_calc_for_case("replay", "case.*", [=](const CaseValues& v) {
        return replay_run({double(v.at("compute_us")), double(v.at("wait_us")), double(v.at("prep_us")),
                           v.at("input_mib") * gpulab::kMiB, double(v.at("gbps"))},
                          kWithCopy | kBreakEven | kEager);
    });
}
