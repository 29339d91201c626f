// Section 5.3.3: materialised S and P, Example 5-6, the capacity table. (Experiment 5-3's answers:
// solutions/tests/models_answers_test.cpp.)
#include <cmath>
#include <vector>

#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "model_fixtures.hpp"
#include "labs/models/attention.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using namespace gpulab::models::fixtures;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("One head at L = 8192: 8 MiB of Q, K, V, O against 1 GiB of S and P traffic", "[models][attention]") {
    const MaterialisedAttention m = materialised_attention(head());
    CHECK(to_mib(m.qkvo_bytes) == 8);
    CHECK(to_mib(m.score_matrix_bytes) == 256);
    CHECK(to_gib(m.intermediate_bytes) == 1);
}

TEST_CASE("Example 5-6: scores [0, ln 2], values [1, 3], one element per block", "[models][attention][softmax]") {
    const std::vector<double> s{0, std::log(2.0)}, v{1, 3};
    const std::vector<SoftmaxUpdate> steps = online_softmax(s, v, 1);
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].after.m == 0);
    CHECK(steps[0].after.l == 1);
    CHECK(steps[0].after.u == 1);
    CHECK(steps[1].r == Approx(0.5));
    CHECK(steps[1].after.m == Approx(std::log(2.0)));
    CHECK(steps[1].after.l == Approx(1.5));
    CHECK(steps[1].after.u == Approx(3.5));
    CHECK(steps[1].after.result() == Approx(7.0 / 3.0));
    CHECK(softmax_weighted_sum(s, v) == Approx(7.0 / 3.0));  // the whole row at once: (1 + 2·3) / 3
}

TEST_CASE("Capacity within 99 KB: b = 1, 64, 128 give a = 128, 82, 53", "[models][attention]") {
    struct Row { std::int64_t b, a, passes, traffic_mib, updates; };
    const auto row = GENERATE(Row{1, 128, 64, 260, 524288}, Row{64, 82, 100, 404, 12800}, Row{128, 53, 155, 624, 9920});
    INFO("b = " << row.b);
    const FlashPlan p = flash_plan(head(), row.b, budget());
    CHECK(p.q_rows == row.a);
    CHECK(p.local_bytes <= 101376);
    CHECK(flash_local_bytes(p.q_rows + 1, row.b, 128) > 101376);
    CHECK(p.passes == row.passes);
    CHECK(to_mib(p.kv_bytes_per_pass) == 4);
    CHECK(to_mib(p.traffic_bytes) == row.traffic_mib);
    CHECK(p.state_updates == row.updates);
}

TEST_CASE("Going from b = 64 to b = 1 reads 144 MiB less but updates the state about 41 times more", "[models][attention]") {
    const FlashPlan b64 = flash_plan(head(), 64, budget());
    const FlashPlan b1 = flash_plan(head(), 1, budget());
    CHECK(to_mib(b64.traffic_bytes - b1.traffic_bytes) == 144);
    CHECK(prints_as(static_cast<double>(b1.state_updates) / b64.state_updates, 41, 0));
}

TEST_CASE("Capacity rejects block sizes outside the sequence", "[models][attention]") {
    CHECK_THROWS_AS(flash_plan(head(), 0, budget()), std::invalid_argument);
    CHECK_THROWS_AS(flash_plan(head(), 8193, budget()), std::invalid_argument);
    CHECK_THROWS_AS(flash_plan(head(), 4096, budget()), std::invalid_argument);  // the K/V slot alone is 1 MiB
    CHECK(max_q_rows(4096, 128, 101376) == 0);
}
