// Sections 5.1.2, 5.1.4, 5.6.1, 5.6.2: Example 5-1's transfer, Example 5-2's timeline, Amdahl, the critical path.
#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/request.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("Example 5-1: 64 MiB over PCIe Gen5 x16 takes 1.05 ms, each 32 MiB half 0.52 ms", "[models][request]") {
    const double pcie = *load_device("RTX PRO 6000").figure("pcie_gbps_per_direction");
    CHECK(to_mib(8192.0 * 4096 * 2) == 64);
    CHECK(prints_as(transfer_time_us(64 * gpulab::kMiB, pcie) / 1e3, 1.05, 2));
    CHECK(prints_as(transfer_time_us(32 * gpulab::kMiB, pcie) / 1e3, 0.52, 2));
}

TEST_CASE("Example 5-2: the result is ready at 35 us; a 4x faster kernel gives 20 us (about 1.8x)", "[models][request]") {
    const auto call = [](double kernel_us) {
        return critical_path({{"submit", 3, {}}, {"H2D", 8, {"submit"}}, {"kernel", kernel_us, {"H2D"}},
                              {"D2H", 4, {"kernel"}}});
    };
    const CriticalPath slow = call(20), fast = call(5);
    CHECK(slow.length_us == 35);
    CHECK(fast.length_us == 20);
    CHECK(prints_as(slow.length_us / fast.length_us, 1.8, 1));
    CHECK(slow.path == std::vector<std::string>{"submit", "H2D", "kernel", "D2H"});
}

TEST_CASE("Amdahl: a 20% stage made 2x faster gives 1.11x; the limit is 1.25x", "[models][request]") {
    CHECK(prints_as(amdahl_speedup(0.2, 2), 1.11, 2));
    CHECK(prints_as(1 / amdahl_speedup(0.2, 10), 0.82, 2));
    CHECK(amdahl_limit(0.2) == Approx(1.25));
    CHECK_THROWS_AS(amdahl_speedup(1.5, 2), std::invalid_argument);
}

TEST_CASE("Critical path: 80 us, 60 us once A is 15 us, 110 us if B slows to 90 us", "[models][request]") {
    const auto request = [](double a_us, double b_us) {
        return critical_path({{"prep", 10, {}}, {"A", a_us, {"prep"}}, {"B", b_us, {"prep"}}, {"finish", 10, {"A", "B"}}});
    };
    const CriticalPath base = request(60, 40);
    CHECK(base.length_us == 80);
    CHECK(base.path == std::vector<std::string>{"prep", "A", "finish"});
    const CriticalPath faster = request(15, 40);
    CHECK(faster.length_us == 60);
    CHECK(faster.path == std::vector<std::string>{"prep", "B", "finish"});  // B takes over
    CHECK(request(40, 40).length_us == 60);  // below 40 µs, speeding A up no longer helps
    CHECK(request(15, 90).length_us == 110);
}

TEST_CASE("The knee: A stops helping at 40 us, where B takes over; shortening B saves nothing", "[models][request]") {
    const std::vector<Task> request = {{"prep", 10, {}}, {"A", 60, {"prep"}}, {"B", 40, {"prep"}}, {"finish", 10, {"A", "B"}}};
    CHECK(knee_us(request, "A") == Approx(40));
    CHECK(knee_us(request, "B") == Approx(40));  // its own: off the path
    CHECK(knee_us(request, "prep") == Approx(0));  // every chain goes through it
    CHECK_THROWS_AS(knee_us(request, "nope"), std::invalid_argument);
}

TEST_CASE("Section 5.6.3: 1116 decode calls from 2.4 to 0.92 ms save 1.33 us each; the median of pairs", "[models][request]") {
    CHECK(prints_as(per_call_saving_us(2.4, 0.92, 1116), 1.33, 2));
    // 127 decode steps of 36 layers at that saving: about 6.06 ms.
    CHECK(prints_as(per_call_saving_us(2.4, 0.92, 1116) * 36 * 127 / 1e3, 6.06, 2));
    CHECK(median({3, 1, 2}) == 2);
    CHECK(median({4, 1, 3, 2}) == Approx(2.5));
    CHECK_THROWS_AS(median({}), std::invalid_argument);
    CHECK_THROWS_AS(per_call_saving_us(1, 0, 0), std::invalid_argument);
}

TEST_CASE("Critical path rejects cycles and unknown stages", "[models][request]") {
    CHECK_THROWS_AS(critical_path({{"a", 1, {"b"}}, {"b", 1, {"a"}}}), std::invalid_argument);
    CHECK_THROWS_AS(critical_path({{"a", 1, {"nope"}}}), std::invalid_argument);
    CHECK_THROWS_AS(critical_path({{"a", 1, {}}, {"a", 2, {}}}), std::invalid_argument);
}
