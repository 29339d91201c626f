// FROZEN: do not edit. Lab 12's answer key: every value comes from the models (labs_models), none is stored. The
// chapter's own figures keep their keys (Amdahl at f = 20%; the two-branch request of figure 5-38; Korch's subgraph;
// the Qwen3 SwiGLU case of section 5.6.3); most points are on the cases answers.toml states and `grader --student ID`
// draws per student.
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/request.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// Figure 5-38's request: prep, then A and B side by side, then finish, which waits for both.
std::vector<models::Task> branches(double prep, double a, double b, double finish) {
    return {{"prep", prep, {}}, {"A", a, {"prep"}}, {"B", b, {"prep"}}, {"finish", finish, {"A", "B"}}};
}

// Kernels one after another: a chain, whose critical path is every kernel.
double in_sequence(const std::vector<double>& kernels_us) {
    std::vector<models::Task> tasks;
    for (std::size_t i = 0; i < kernels_us.size(); ++i)
        tasks.push_back({"k" + std::to_string(i), kernels_us[i], i == 0 ? std::vector<std::string>{} : std::vector<std::string>{"k" + std::to_string(i - 1)}});
    return models::critical_path(tasks).length_us;
}

// Five rounds of a request before and after a change (ms), as answers.toml states them.
const std::vector<double> kBefore = {812.0, 826.5, 815.3, 830.1, 819.0};
const std::vector<double> kAfter = {810.9, 824.7, 814.1, 829.2, 817.4};

}  // namespace

void register_answers(Lab& lab) {
    lab.number("amdahl.speedup_f20_s2", "The request's speed-up when a stage of 20% gets twice as fast", 0.5, 0.005,
               [] { return models::amdahl_speedup(0.2, 2); });
    lab.number("amdahl.time_f20_s10", "The request's new time, as a fraction of the old, when that stage gets ten times as fast",
               0.5, 0.005, [] { return 1 / models::amdahl_speedup(0.2, 10); });
    lab.number("amdahl.limit_f20", "The most any speed-up of that stage can give", 0.5, 0.005, [] { return models::amdahl_limit(0.2); });
    lab.graded_calc("amdahl.*", {.model = "amdahl", .params = {{"fraction", "0.2"}, {"speedup", "2"}}});

    lab.number("path.request_us", "µs for the request: prep 10, A 60 beside B 40, finish 10", 0.5, 0.0,
               [] { return models::critical_path(branches(10, 60, 40, 10)).length_us; });
    lab.number("path.a_15_us", "µs once A takes 15 µs", 0.5, 0.0, [] { return models::critical_path(branches(10, 15, 40, 10)).length_us; });
    lab.number("path.b_90_us", "µs when the new A slows B to 90 µs", 0.5, 0.0,
               [] { return models::critical_path(branches(10, 15, 90, 10)).length_us; });
    lab.number("path.a_knee_us", "µs below which shortening A no longer shortens the request", 0.5, 0.0,
               [] { return models::knee_us(branches(10, 60, 40, 10), "A"); });

    lab.number("korch.three_kernels_us", "µs of Korch's subgraph as 3 kernels (38.7, 24.2, 28.2 µs)", 0.5, 0.005,
               [] { return in_sequence({38.7, 24.2, 28.2}); });
    lab.number("korch.four_kernels_us", "µs of it re-partitioned as 4 kernels (7.6, 18.4, 7.5, 35.7 µs)", 0.5, 0.005,
               [] { return in_sequence({7.6, 18.4, 7.5, 35.7}); });

    lab.number("qwen.per_call_saving_us", "µs each of the 1116 decode calls saves (2.4 ms before, 0.92 ms after)", 0.5, 0.01,
               [] { return models::per_call_saving_us(2.4, 0.92, 1116); });
    lab.number("qwen.saving_127_steps_ms", "ms saved by 127 decode steps of 36 layers at that saving per call", 0.5, 0.01,
               [] { return models::per_call_saving_us(2.4, 0.92, 1116) * 36 * 127 / 1e3; });

    lab.number("pairs.median_difference_ms", "The five rounds: the median of the paired differences, ms", 1, 0.001, [] {
        std::vector<double> d;
        for (std::size_t i = 0; i < kBefore.size(); ++i) d.push_back(kBefore[i] - kAfter[i]);
        return models::median(d);
    });
    lab.number("pairs.difference_of_medians_ms", "The five rounds: the median before less the median after, ms", 1, 0.001,
               [] { return models::median(kBefore) - models::median(kAfter); });

    // Case "amdahl": another fraction and speed-up.
    lab.exercise_case("amdahl", "a stage taking fraction_pct percent of a request's time gets `speedup` times faster",
                      {{"fraction_pct", 30, 5, 80}, {"speedup", 3, 2, 20}});
    lab.number_for_case("amdahl", "amdahl.case.speedup", "The request's speed-up", 2.5, 0.005,
                        [](const CaseValues& v) { return models::amdahl_speedup(double(v.at("fraction_pct")) / 100, double(v.at("speedup"))); });
    lab.number_for_case("amdahl", "amdahl.case.limit", "The most any speed-up of that stage can give", 2.5, 0.005,
                        [](const CaseValues& v) { return models::amdahl_limit(double(v.at("fraction_pct")) / 100); });
    lab.graded_calc_for_case("amdahl", "amdahl.case.*", [](const CaseValues& v) {
        const std::int64_t pct = v.at("fraction_pct");
        return CalcRun{.model = "amdahl", .params = {{"fraction", (pct < 10 ? "0.0" : "0.") + std::to_string(pct)},
                                                     {"speedup", std::to_string(v.at("speedup"))}}};
    });

    // Case "branches": another two-branch request, and A shortened.
    lab.exercise_case("branches", "prep `prep` µs, then A `a` µs beside B `b` µs, then finish `finish` µs waiting for both; A "
                                  "then shortened to `a_new` µs",
                      {{"prep", 5, 1, 40}, {"a", 70, 20, 200}, {"b", 45, 10, 150}, {"finish", 8, 1, 40}, {"a_new", 20, 1, 100}});
    const auto br = [](const CaseValues& v, double a) {
        return branches(double(v.at("prep")), a, double(v.at("b")), double(v.at("finish")));
    };
    lab.number_for_case("branches", "branches.case.request_us", "µs for the request", 1.5, 0.0,
                        [=](const CaseValues& v) { return models::critical_path(br(v, double(v.at("a")))).length_us; });
    lab.number_for_case("branches", "branches.case.a_new_us", "µs once A takes a_new µs", 2, 0.0,
                        [=](const CaseValues& v) { return models::critical_path(br(v, double(v.at("a_new")))).length_us; });
    lab.number_for_case("branches", "branches.case.knee_us", "µs below which shortening A no longer shortens the request", 2.5,
                        0.0, [=](const CaseValues& v) { return models::knee_us(br(v, double(v.at("a"))), "A"); });

    // Case "decode": another model, step count and kernel.
    lab.exercise_case("decode", "`layers` layers, `steps` decode steps measured: the activation's decode calls took old_cms / 100 "
                                "ms in all before and new_cms / 100 ms after; then a request of new_steps decode steps",
                      {{"layers", 28, 16, 96}, {"steps", 31, 8, 128}, {"old_cms", 180, 50, 900}, {"new_cms", 70, 10, 400},
                       {"new_steps", 255, 16, 2048}});
    const auto per_call = [](const CaseValues& v) {
        return models::per_call_saving_us(double(v.at("old_cms")) / 100, double(v.at("new_cms")) / 100,
                                          double(v.at("layers") * v.at("steps")));
    };
    lab.number_for_case("decode", "decode.case.per_call_saving_us", "µs each decode call saves", 2.5, 0.01,
                        [=](const CaseValues& v) { return per_call(v); });
    lab.number_for_case("decode", "decode.case.saving_ms", "ms the activation saves over new_steps decode steps", 3, 0.01,
                        [=](const CaseValues& v) { return per_call(v) * double(v.at("layers") * v.at("new_steps")) / 1e3; });
}
