// Example 5-9, Example 5-12, autotuning payback, the compile-once example of section 5.1.4. (Experiments 5-6
// and 5-7's answers: solutions/tests/models_answers_test.cpp.)
#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/shapes.hpp"

using namespace gpulab::models;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("Example 5-9: the new kernel pays only when more than 2/3 of calls are shape A", "[models][shapes]") {
    CHECK(mix_break_even_fraction(10, 10, 5, 20) == Approx(2.0 / 3.0));
    CHECK(mix_mean_time(0.5, 5, 20) == Approx(20 - 15 * 0.5));
    // One call each: 20 → 25 µs (25% longer); 100 A and 1 B: 1010 → 520 µs (≈1.9×).
    CHECK(2 * mix_mean_time(0.5, 10, 10) == Approx(20));
    CHECK(2 * mix_mean_time(0.5, 5, 20) == Approx(25));
    const double p = 100.0 / 101.0;
    const double old_total = 101 * mix_mean_time(p, 10, 10), new_total = 101 * mix_mean_time(p, 5, 20);
    CHECK(old_total == Approx(1010));
    CHECK(new_total == Approx(520));
    CHECK(prints_as(old_total / new_total, 1.9, 1));
}

TEST_CASE("Example 5-12: 5632 rows padded to 8192 (+45%)", "[models][shapes]") {
    const ShapeStrategies s = shape_strategies({});
    CHECK(s.padding.actual_rows == 5632);
    CHECK(s.padding.padded_rows == 8192);
    CHECK(prints_as(s.padding.overhead_fraction * 100, 45, 0));
    CHECK(s.padding.bucket_of_call.front() == 512);
    CHECK(s.padding.bucket_of_call.back() == 2048);
}

TEST_CASE("Example 5-12: groups take 17.0, 12.4, 6.8 ms; crossovers at 65 and 90 groups", "[models][shapes]") {
    const ModelShape q = load_model_shape();
    ShapeStrategiesInput in;
    in.hidden = q.hidden_size;
    in.ffn = q.intermediate_size;
    const ShapeStrategies s = shape_strategies(in);
    CHECK(prints_as(s.strategies[0].group_ms, 17.0, 1));
    CHECK(prints_as(s.strategies[1].group_ms, 12.4, 1));
    CHECK(prints_as(s.strategies[2].group_ms, 6.8, 1));
    CHECK(prints_as(s.strategies[0].group_ms - s.strategies[1].group_ms, 4.6, 1));
    CHECK(prints_as(s.strategies[1].group_ms - s.strategies[2].group_ms, 5.6, 1));
    CHECK(s.generic_to_bucketed == 65);
    CHECK(s.bucketed_to_specialized == 90);
    const std::vector<BestRange> best = best_strategy_ranges(s.strategies, 200);
    REQUIRE(best.size() == 3);
    CHECK((best[0].strategy == "generic" && best[0].first == 1 && best[0].last == 64));
    CHECK((best[1].strategy == "bucketed" && best[1].first == 65 && best[1].last == 89));
    CHECK((best[2].strategy == "specialized" && best[2].first == 90));
    // At 70 groups: 1.29, 1.27, 1.38 s.
    CHECK(prints_as(total_time_ms(s.strategies[0], 70) / 1e3, 1.29, 2));
    CHECK(prints_as(total_time_ms(s.strategies[1], 70) / 1e3, 1.27, 2));
    CHECK(prints_as(total_time_ms(s.strategies[2], 70) / 1e3, 1.38, 2));
    // All programs cached (P = 0): specialization wins from the first group.
    std::array<Strategy, 3> cached = s.strategies;
    for (Strategy& st : cached) st.prep_ms = 0;
    CHECK(best_strategy_ranges(cached, 200).front().strategy == "specialized");
}

TEST_CASE("Autotuning: 10 minutes at 5 us per call pays back after 1.2e8 calls", "[models][shapes]") {
    const Payback fast = autotune_payback(600, 5, 10000);
    CHECK(fast.calls == Approx(1.2e8));
    CHECK(prints_as(fast.seconds / 3600, 3.3, 1));
    const Payback slow = autotune_payback(600, 5, 100);
    CHECK(prints_as(slow.seconds / 86400, 14, 0));
}

TEST_CASE("Section 5.1.4: compile once for 100 ms, run for 1 ms", "[models][shapes]") {
    const Strategy jit{"compile once", 100, 1};
    CHECK(total_time_ms(jit, 1) == 101);
    CHECK(total_time_ms(jit, 100) == 200);
    CHECK(total_time_ms(jit, 100) / 100 == 2);
}

TEST_CASE("Buckets reject calls larger than every bucket", "[models][shapes]") {
    const std::vector<std::int64_t> rows{4096}, buckets{512, 2048};
    CHECK_THROWS_AS(bucket_padding(rows, buckets), std::invalid_argument);
    CHECK_FALSE(crossover_groups({"a", 0, 1}, {"b", 10, 2}).has_value());
}
