// FROZEN: do not edit. Lab 01's answer key: every value comes from the models (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); most points are on the case
// "stream", which answers.toml states and `grader --student ID` draws per student.
#include <charconv>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/math.hpp"
#include "labs/models/pipeline.hpp"
#include "labs/models/request.hpp"
#include "labs/models/shapes.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// Example 5-2: the host submits for 3 µs, then H2D, the kernel and D2H run one after another.
double result_at_us(double kernel_us) {
    return models::critical_path({{"submit", 3, {}}, {"h2d", 8, {"submit"}}, {"kernel", kernel_us, {"h2d"}},
                                  {"d2h", 4, {"kernel"}}})
        .length_us;
}

// The compile example: 100 ms once, then 1 ms per call.
double compile_total_ms(double calls) { return models::total_time_ms({"compiled", 100.0, 1.0}, calls); }

const models::StreamStages kPaperPipeline{100, 60, 40};  // µs per chunk: H2D, kernel, D2H
constexpr std::int64_t kPaperChunks = 8;

}  // namespace

void register_answers(Lab& lab) {
    lab.number("example_5_1.t_h2d_ms", "Example 5-1: 64 MiB over a 64 GB/s link, in ms", 0.5, 0.005,
               [] { return models::transfer_time_us(64 * gpulab::kMiB, 64) / 1e3; });
    lab.number("example_5_1.t_half_ms", "Example 5-1: each 32 MiB half, in ms", 0.5, 0.005,
               [] { return models::transfer_time_us(32 * gpulab::kMiB, 64) / 1e3; });
    lab.number("example_5_2.result_at_us", "Example 5-2: when is the result usable on the host (µs)?", 0.5, 0.0,
               [] { return result_at_us(20); });
    lab.number("example_5_2.fast_kernel_result_at_us", "Example 5-2 with a 5 µs kernel: when is the result usable (µs)?",
               0.5, 0.0, [] { return result_at_us(5); });
    lab.number("example_5_2.overall_speedup", "Example 5-2: the whole call's speed-up from the 4x faster kernel", 0.5, 0.005,
               [] { return result_at_us(20) / result_at_us(5); });
    lab.number("compile.one_call_ms", "One call that compiles first (ms)", 0.5, 0.0, [] { return compile_total_ms(1); });
    lab.number("compile.hundred_calls_ms", "100 calls, compiled once (ms)", 0.5, 0.0, [] { return compile_total_ms(100); });
    lab.number("compile.avg_ms", "Average per call over those 100 (ms)", 0.5, 0.005,
               [] { return compile_total_ms(100) / 100; });
    lab.number("pipeline.serial_us", "8 chunks, nothing overlapped (µs)", 0.5, 0.0,
               [] { return models::stream_serial_time_us(kPaperChunks, kPaperPipeline); });
    lab.number("pipeline.overlapped_us", "8 chunks, copy in, kernel and copy out overlapped, enough buffers (µs)", 0.5, 0.0,
               [] { return models::stream_pipeline_time_us(kPaperChunks, kPaperPipeline); });
    lab.choice("pipeline.bottleneck", "Which stage sets the pace of that pipeline?", {"h2d", "kernel", "d2h"}, 0.5,
               [] { return models::stream_bottleneck(kPaperPipeline); });
    lab.choice("events.missing_used_event",
               "The copy into a slot waits on the slot's \"used\" event, which was never recorded. What follows?",
               {"hang", "race", "nothing"}, 0.5, [] { return models::missing_used_event_effect(); });

    // The case: another tensor and link, and another pipeline, with enough slots and with one.
    lab.exercise_case("stream", "a tensor of `mib` MiB over a `gbps` GB/s link; a pipeline of `chunks` chunks with "
                                "per-chunk copy in, kernel and copy out times in µs",
                      {{"mib", 96, 16, 512, 16}, {"gbps", 25, 8, 64}, {"chunks", 12, 4, 64}, {"h2d_us", 70, 20, 200, 5},
                       {"kernel_us", 110, 20, 200, 5}, {"d2h_us", 45, 20, 200, 5}});
    const auto stages = [](const CaseValues& v) {
        return models::StreamStages{double(v.at("h2d_us")), double(v.at("kernel_us")), double(v.at("d2h_us"))};
    };
    lab.number_for_case("stream", "case.transfer_ms", "The tensor over the link, in ms", 3.5, 0.005, [](const CaseValues& v) {
        return models::transfer_time_us(double(v.at("mib")) * gpulab::kMiB, double(v.at("gbps"))) / 1e3;
    });
    lab.number_for_case("stream", "case.serial_us", "The pipeline's chunks one step at a time (µs)", 3.5, 0.0,
                        [=](const CaseValues& v) { return models::stream_serial_time_us(v.at("chunks"), stages(v)); });
    lab.number_for_case("stream", "case.overlapped_us", "Overlapped, with enough device slots (µs)", 3.5, 0.0,
                        [=](const CaseValues& v) { return models::stream_pipeline_time_us(v.at("chunks"), stages(v)); });
    lab.number_for_case("stream", "case.one_slot_us", "Overlapped as far as one device slot allows (µs)", 3.5, 0.0,
                        [=](const CaseValues& v) { return models::stream_pipeline_time_us(v.at("chunks"), stages(v), 1); });

    // The calculator runs that work graded questions: Example 5-2's speed-up (Amdahl: the kernel is 20 µs of the
    // 35 µs critical path, made 4x faster) and the pipelines (stream-pipeline, at the paper pipeline's and the case's
    // chunks and stage times, any slots): where `grader calc` has these values it shows the method, not the numbers.
    // The calculator has no model of a transfer or a compile's cost: those questions have no run.
    const auto exact = [](double x) {  // the shortest text that reads back as x
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    };
    lab.graded_calc("example_5_2.overall_speedup",
                    {.model = "amdahl", .params = {{"fraction", exact(20 / result_at_us(20))}, {"speedup", exact(20.0 / 5)}}});
    const auto pipeline_run = [=](std::int64_t chunks, const models::StreamStages& s) {
        return CalcRun{.model = "stream-pipeline",
                       .params = {{"chunks", std::to_string(chunks)}, {"h2d-us", exact(s.h2d_us)},
                                  {"kernel-us", exact(s.kernel_us)}, {"d2h-us", exact(s.d2h_us)}}};
    };
    lab.graded_calc("pipeline.serial_us, pipeline.overlapped_us, pipeline.bottleneck", pipeline_run(kPaperChunks, kPaperPipeline));
    lab.graded_calc_for_case("stream", "case.serial_us, case.overlapped_us, case.one_slot_us",
                             [=](const CaseValues& v) { return pipeline_run(v.at("chunks"), stages(v)); });
}
