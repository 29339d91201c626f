// Summary statistics of the timing protocol (no GPU needed).
#include <vector>

#include "catch_compat.hpp"
#include "labs/timing.hpp"

using gpulab::summarize;

TEST_CASE("Median and quartiles of timed samples", "[timing]") {
    const auto r = summarize({5, 1, 3, 2, 4});
    CHECK(r.count == 5);
    CHECK(r.median_ms == 3);
    CHECK(r.q1_ms == 2);
    CHECK(r.q3_ms == 4);
    CHECK(r.min_ms == 1);
    CHECK(r.rel_iqr() == gpulab::testing::Approx(2.0 / 3.0));
}

TEST_CASE("The median's confidence interval narrows with more samples", "[timing]") {
    std::vector<double> few{1.0, 1.1, 0.9, 1.05, 0.95};
    std::vector<double> many;
    for (int i = 0; i < 20; ++i) many.insert(many.end(), few.begin(), few.end());
    CHECK(summarize(many).rel_ci < summarize(few).rel_ci);
    CHECK(summarize({2.0, 2.0, 2.0}).rel_ci == 0.0);
}

TEST_CASE("An empty sample summarises to zero", "[timing]") {
    const auto r = summarize({});
    CHECK(r.count == 0);
    CHECK(r.median_ms == 0);
}
