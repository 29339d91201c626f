// Section 5.2.4: RMSNorm with one task per row vs eight segments per row; FP32 summation order.
#include <cmath>
#include <vector>

#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/reduction.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using gpulab::testing::prints_as;

TEST_CASE("RMSNorm over [1024, 4096]: 24 MiB in one launch, 32.1 MiB in three with 8 segments", "[models][reduction]") {
    const SplitReduction one = split_reduction({1024, 4096, 1});
    CHECK(one.first_stage_tasks == 1024);
    CHECK(one.launches == 1);
    CHECK(to_mib(one.total_bytes) == 24);
    CHECK(to_kib(one.temp_per_task_bytes) == 16);  // a whole FP32 row
    const SplitReduction eight = split_reduction({1024, 4096, 8});
    CHECK(eight.first_stage_tasks == 8192);
    CHECK(eight.launches == 3);
    CHECK(to_kib(eight.partial_sums_bytes) == 32);
    CHECK(to_kib(eight.scales_bytes) == 4);
    CHECK(to_mib(eight.reread_bytes) == 8);
    CHECK(prints_as(to_mib(eight.total_bytes), 32.1, 1));
    CHECK(to_kib(eight.temp_per_task_bytes) == 2);
}

TEST_CASE("FP32 addition is not associative: 1 + 2^-24 + 2^-24", "[models][reduction]") {
    const float tiny = std::ldexp(1.0f, -24);
    const std::vector<float> left{1.0f, tiny, tiny}, right{tiny, tiny, 1.0f};
    CHECK(fp32_sum_in_order(left) == 1.0f);
    CHECK(fp32_sum_in_order(right) == 1.0f + std::ldexp(1.0f, -23));
    CHECK(distinct_fp32_sums_over_orders(left) == 2);
    CHECK(std::tgamma(9.0) == 40320);  // 8! merge orders of eight partial sums
}
