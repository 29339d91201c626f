// FROZEN: do not edit. Lab 09's answer key: every value comes from the models (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); the case "groups", which answers.toml
// states and `grader --student ID` draws per student, carries 9.5 of the lab's 20 answer points (2.375 a question).
#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/shapes.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

double value_of(const std::optional<std::int64_t>& groups) {
    if (!groups) throw std::logic_error("lab 09 answer key: a crossover the question asks for does not exist");
    return double(*groups);
}

// Example 5-12 as the chapter states it, or with `small_calls` calls of 256 rows (Experiment 5-7: 4).
models::ShapeStrategiesInput group_of(int small_calls, std::int64_t small_rows = 256, std::int64_t mid_rows = 1536) {
    models::ShapeStrategiesInput in;
    in.rows.assign(small_calls, small_rows);
    in.rows.push_back(mid_rows);
    in.rows.push_back(2048);
    return in;
}

// The strategies for the chapter's group with `small_calls` calls of 256 rows.
models::ShapeStrategies strategies_of(int small_calls) { return models::shape_strategies(group_of(small_calls)); }

// A question: its key in answers.toml and its wording.
struct Question {
    const char* key;
    const char* text;
};

// The two rows questions Example 5-12 and Experiment 5-7 ask of their groups: the rows, and the rows computed once
// padded to the buckets.
void rows_questions(Lab& lab, int small_calls, const Question& actual, const Question& padded) {
    lab.number(actual.key, actual.text, 0.5, 0.0,
               [small_calls] { return double(strategies_of(small_calls).padding.actual_rows); });
    lab.number(padded.key, padded.text, 0.5, 0.0,
               [small_calls] { return double(strategies_of(small_calls).padding.padded_rows); });
}

}  // namespace

void register_answers(Lab& lab) {
    // Example 5-9: the old kernel takes 10 µs for shapes A and B; the new one 5 µs for A, 20 µs for B.
    lab.number("example_5_9.p_threshold", "Example 5-9: above which fraction of A calls is the new kernel faster on average",
               0.5, 0.005, [] { return models::mix_break_even_fraction(10, 10, 5, 20).value(); });
    lab.number("example_5_9.once_each_new_us", "... one call of each shape, the new kernel (µs)", 0.5, 0.005,
               [] { return models::mix_mean_time(0.5, 5, 20) * 2; });
    lab.number("example_5_9.mix_100a_1b_new_us", "... 100 calls of A and one of B, the new kernel (µs)", 0.5, 0.005,
               [] { return models::mix_mean_time(100.0 / 101, 5, 20) * 101; });
    lab.number("example_5_9.mix_100a_1b_old_us", "... the old kernel (µs)", 0.5, 0.005,
               [] { return models::mix_mean_time(100.0 / 101, 10, 10) * 101; });
    lab.number("experiment_5_6.mean_new_us_p_half", "Experiment 5-6: the new kernel's mean time at p = 1/2 (µs)", 0.5, 0.005,
               [] { return models::mix_mean_time(0.5, 5, 20); });
    lab.number("experiment_5_6.mean_new_us_p_nine_tenths", "... at p = 9/10 (µs)", 0.5, 0.005,
               [] { return models::mix_mean_time(0.9, 5, 20); });
    lab.number("experiment_5_6.dispatch_better_above_p",
               "... dispatching by shape (1 µs per call; the new kernel for A, the old for B) beats always-old above p =",
               0.5, 0.005, [] { return models::mix_break_even_fraction(10, 10, 5 + 1, 10 + 1).value(); });

    // Example 5-12: 8 × 256 + 1536 + 2048 rows per group, buckets of 512 and 2048 rows.
    rows_questions(lab, 8, {"example_5_12.rows_actual", "Example 5-12: rows in one group"},
                   {"example_5_12.rows_bucketed", "... rows computed once padded to the buckets"});
    lab.number("example_5_12.generic_group_ms", "... one group, generic (ms)", 0.5, 0.01,
               [] { return strategies_of(8).strategies[0].group_ms; });
    lab.number("example_5_12.bucketed_group_ms", "... bucketed (ms)", 0.5, 0.01,
               [] { return strategies_of(8).strategies[1].group_ms; });
    lab.number("example_5_12.specialized_group_ms", "... specialised (ms)", 0.5, 0.01,
               [] { return strategies_of(8).strategies[2].group_ms; });
    lab.number("example_5_12.bucket_beats_generic_from", "... groups from which bucketed is faster in total than generic",
               0.5, 0.0, [] { return value_of(strategies_of(8).generic_to_bucketed); });
    lab.number("example_5_12.special_beats_bucket_from", "... groups from which specialised is faster than bucketed", 0.5,
               0.0, [] { return value_of(strategies_of(8).bucketed_to_specialized); });

    // Experiment 5-7: 4 calls of 256 rows instead of 8.
    rows_questions(lab, 4, {"experiment_5_7.rows_actual", "Experiment 5-7: rows in one group"},
                   {"experiment_5_7.rows_bucketed", "... padded to the buckets"});
    lab.number("experiment_5_7.generic_vs_bucketed_from", "... groups from which bucketed beats generic", 0.5, 0.0,
               [] { return value_of(strategies_of(4).generic_to_bucketed); });
    lab.number("experiment_5_7.bucketed_vs_specialized_from", "... groups from which specialised beats bucketed", 0.5, 0.0,
               [] { return value_of(strategies_of(4).bucketed_to_specialized); });
    lab.number("experiment_5_7.generic_vs_specialized_from", "... groups from which specialised beats generic", 0.5, 0.0,
               [] { return value_of(strategies_of(4).generic_to_specialized); });
    lab.number("experiment_5_7.cached_buckets_specialized_from",
               "... with both bucket programs already compiled (bucketed P = 0): groups from which specialised beats it",
               0.5, 0.0, [] {
                   models::ShapeStrategiesInput in = group_of(4);
                   in.bucketed_prep_ms = 0;
                   return value_of(models::shape_strategies(in).bucketed_to_specialized);
               });
    lab.number("autotune.payback_calls", "A 10-minute tuning search saving 5 µs per call: calls until it pays back", 0.5, 0.01,
               [] { return models::autotune_payback(600, 5, 1e4).calls; });

    // The case: another group of calls under the same buckets, rates and preparation times.
    lab.exercise_case("groups", "a group of `small_calls` calls of `small_rows` rows, one of `mid_rows` and one of 2048, "
                                "buckets of 512 and 2048 rows, the chapter's rates (100/200/250 TFLOP/s) and preparation "
                                "times (100/400/900 ms)",
                      // mid_rows is drawn on both sides of the 512-row bucket (384 rows pad to 512, 640 to 2048);
                      // small_rows stays in the 512-row bucket and fills at least half of it. Bucketed runs at twice
                      // generic's rate, so a call of r rows padded to b saves in bucketed iff 2r > b: the small calls
                      // never lose, the mid call loses at most 768 rows' worth and the 2048-row call saves 2048, so
                      // bucketed always catches up — no case answers 0 (drawn above 512, a dozen small calls padded
                      // to 2048 would never catch up, and "0" would be a third of the class's answer).
                      {{"small_calls", 6, 2, 12}, {"small_rows", 320, 256, 512, 64}, {"mid_rows", 1280, 256, 1920, 128}});
    const auto strategies = [](const CaseValues& v) {
        return models::shape_strategies(group_of(int(v.at("small_calls")), v.at("small_rows"), v.at("mid_rows")));
    };
    lab.number_for_case("groups", "case.rows_bucketed", "Rows computed once padded to the buckets", 2.375, 0.0,
                        [=](const CaseValues& v) { return double(strategies(v).padding.padded_rows); });
    lab.number_for_case("groups", "case.bucketed_group_ms", "One group, bucketed (ms)", 2.375, 0.01,
                        [=](const CaseValues& v) { return strategies(v).strategies[1].group_ms; });
    // Where padding doubles the rows, bucketed (twice generic's rate) never catches up: the answer is then 0 (no
    // case the ranges above draw comes to that).
    lab.number_for_case("groups", "case.bucket_beats_generic_from", "Groups from which bucketed beats generic (0: never)",
                        2.375, 0.0, [=](const CaseValues& v) { return double(strategies(v).generic_to_bucketed.value_or(0)); });
    lab.number_for_case("groups", "case.special_beats_bucket_from", "Groups from which specialised beats bucketed", 2.375, 0.0,
                        [=](const CaseValues& v) { return value_of(strategies(v).bucketed_to_specialized); });

    // The calculator runs that work these questions, each naming the parameters its questions depend on: wherever
    // `grader calc` has them at these values it shows the method, not the numbers. Numbers as the shortest text that
    // reads back as the key's; a group's rows as the model writes them, repeats folded ("8*256,1536,2048", the
    // model's default, is Example 5-12's). In shape-mix a mean time depends on the fraction and its kernel's two
    // times, the break-even fraction on the four times; autotune-payback's calls on the search and the saving.
    const auto exact = [](double x) {
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    };
    // The old kernel's times (10 µs for A and B) named when a question needs them; the fraction of A when one does.
    const auto mix_run = [=](std::optional<double> fraction_a, double new_a_us, double new_b_us, bool old_times = true) {
        CalcRun run{.model = "shape-mix", .params = {{"new-a-us", exact(new_a_us)}, {"new-b-us", exact(new_b_us)}}};
        if (fraction_a) run.params["fraction-a"] = exact(*fraction_a);
        if (old_times) run.params["old-a-us"] = run.params["old-b-us"] = exact(10);
        return run;
    };
    lab.graded_calc("example_5_9.p_threshold, example_5_9.once_each_new_us, experiment_5_6.mean_new_us_p_half",
                    mix_run(0.5, 5, 20));
    lab.graded_calc("example_5_9.mix_100a_1b_new_us, example_5_9.mix_100a_1b_old_us", mix_run(100.0 / 101, 5, 20));
    lab.graded_calc("experiment_5_6.mean_new_us_p_nine_tenths", mix_run(0.9, 5, 20, false));
    // Dispatching by shape: A on the new kernel, B on the old, 1 µs more per call.
    lab.graded_calc("experiment_5_6.dispatch_better_above_p", mix_run(std::nullopt, 5 + 1, 10 + 1));
    const auto bucketing_run = [=](const models::ShapeStrategiesInput& in) {
        const auto counts = [](const std::vector<std::int64_t>& xs) {
            std::string out;
            for (std::size_t i = 0; i < xs.size();) {
                std::size_t j = i;
                while (j < xs.size() && xs[j] == xs[i]) ++j;
                out += (out.empty() ? "" : ",") + (j - i > 1 ? std::to_string(j - i) + "*" : std::string()) +
                       std::to_string(xs[i]);
                i = j;
            }
            return out;
        };
        return CalcRun{.model = "bucketing",
                       .params = {{"rows", counts(in.rows)}, {"buckets", counts(in.buckets)},
                                  {"hidden", std::to_string(in.hidden)}, {"ffn", std::to_string(in.ffn)},
                                  {"generic-tflops", exact(in.generic_tflops)}, {"bucketed-tflops", exact(in.bucketed_tflops)},
                                  {"specialized-tflops", exact(in.specialized_tflops)},
                                  {"generic-prep-ms", exact(in.generic_prep_ms)}, {"bucketed-prep-ms", exact(in.bucketed_prep_ms)},
                                  {"specialized-prep-ms", exact(in.specialized_prep_ms)}}};
    };
    lab.graded_calc("example_5_12.*", bucketing_run(group_of(8)));
    lab.graded_calc("experiment_5_7.rows_actual, experiment_5_7.rows_bucketed, experiment_5_7.generic_vs_bucketed_from, "
                    "experiment_5_7.bucketed_vs_specialized_from, experiment_5_7.generic_vs_specialized_from",
                    bucketing_run(group_of(4)));
    models::ShapeStrategiesInput cached = group_of(4);
    cached.bucketed_prep_ms = 0;
    lab.graded_calc("experiment_5_7.cached_buckets_specialized_from", bucketing_run(cached));
    lab.graded_calc("autotune.payback_calls", {.model = "autotune-payback",
                                               .params = {{"search-s", exact(600)}, {"saving-us", exact(5)}}});
    lab.graded_calc_for_case("groups", "case.*", [=](const CaseValues& v) {
        return bucketing_run(group_of(int(v.at("small_calls")), v.at("small_rows"), v.at("mid_rows")));
    });
}
