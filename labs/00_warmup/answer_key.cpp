// FROZEN: do not edit. Lab 00's answer key: every value is computed by the models, none is stored. The
// architecture notes' launch (n = 1000) is worked in the handout's spirit; most points are on the case
// "vector", which answers.toml states and `grader --student ID` draws per student.
#include "grader/lab.hpp"
#include "labs/models/roofline.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

void register_answers(Lab& lab) {
    lab.number("vector_add.grid_blocks_n1000_block256",
               "How many blocks of 256 threads does a one-thread-per-element launch need for n = 1000?", 2, 0.0,
               [] { return double(models::vector_add(1000, 256).grid_blocks); });
    lab.number("vector_add.bytes_moved_n1000_fp32",
               "How many bytes does c = a + b read and write for n = 1000 FP32 elements?", 2, 0.0,
               [] { return models::vector_add(1000, 256, 4).bytes; });
    lab.number("vector_add.intensity_flop_per_byte", "Arithmetic intensity of FP32 vector add, in FLOP per byte?", 2,
               0.01, [] { return models::vector_add(1000, 256, 4).intensity_flop_per_byte; });
    lab.choice_measured(
        "vector_add.limited_by_on_this_gpu",
        "On your GPU (the ceilings the grader measured), is vector add limited by memory or by compute?",
        {"memory", "compute"}, 2, [](const Context& ctx) -> std::string {
            const double fp32_tflops = ctx.ceiling("fp32_fma_tflops").value_or(0);
            const double copy_gbps = ctx.ceiling("d2d_copy_gbps").value_or(0);
            if (fp32_tflops <= 0 || copy_gbps <= 0) throw std::runtime_error("the ceilings lack the FP32 rate or copy bandwidth");
            const double ridge = models::device_intensity_flop_per_byte(fp32_tflops, copy_gbps);
            return models::vector_add(1000, 256, 4).intensity_flop_per_byte < ridge ? "memory" : "compute";
        });

    // The case: n elements of `bytes` bytes each (2: BF16, 4: FP32), one thread per element.
    lab.exercise_case("vector", "c = a + b over n elements of `bytes` bytes, one thread per element, blocks of `block` threads",
                      {{"n", 3000017, 100000, 100000000}, {"block", 384, 64, 1024, 32}, {"bytes", 2, 2, 4, 2}});
    const auto launch = [](const CaseValues& v) { return models::vector_add(v.at("n"), v.at("block"), int(v.at("bytes"))); };
    lab.number_for_case("vector", "vector_add.case.grid_blocks", "Blocks the launch needs", 4, 0.0,
                        [launch](const CaseValues& v) { return double(launch(v).grid_blocks); });
    lab.number_for_case("vector", "vector_add.case.idle_threads",
                        "Threads of the launch with no element (stopped by the bounds guard)", 4, 0.0,
                        [launch](const CaseValues& v) { return double(launch(v).idle_threads); });
    lab.number_for_case("vector", "vector_add.case.bytes_moved", "Bytes read plus written", 4, 0.0,
                        [launch](const CaseValues& v) { return launch(v).bytes; });
}
