// FROZEN: do not edit. Lab NN's answer key: every value is computed by the models at grading time, none is stored.
// (The template's key: a new lab asks the chapter's figures, and gives most points to cases the chapter does not
// work — `exercise_case` draws one per student.)
#include "grader/lab.hpp"
#include "labs/models/roofline.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

void register_answers(Lab& lab) {
    lab.number("scale.intensity_flop_per_byte", "Arithmetic intensity of FP32 y = a · x, in FLOP per byte?", 2, 0.01,
               [] { return models::arithmetic_intensity(1.0, 8.0); });

    // The case: n FP32 elements at a copy bandwidth of `gbps` GB/s.
    lab.exercise_case("scale", "y = a · x over n FP32 elements on a GPU that copies at `gbps` GB/s",
                      {{"n", 50000017, 1000000, 500000000}, {"gbps", 3000, 1000, 8000, 100}});
    lab.number_for_case("scale", "scale.case.time_us", "The roofline's time for the call, in µs", 4, 0.005,
                        [](const CaseValues& v) {
                            const double n = v.at("n");
                            return models::roofline_time_us(n, 8.0 * n, 60.0, v.at("gbps"));
                        });
}
