// VerifiedCalls: which timed calls a loop keeps for verification. Plain arithmetic, so it runs without a GPU.
#include <array>
#include <cstdint>
#include <vector>

#include "catch_compat.hpp"
#include "grader/gpu_checks.hpp"

using namespace gpulab::grader;

namespace {

// The calls kept at the end of a loop of `calls` calls.
std::vector<int> kept_after(std::uint64_t secret, int calls) {
    VerifiedCalls picked(secret);
    std::vector<int> kept(kVerifiedCalls, -1);
    for (int i = 0; i < calls; ++i) {
        const int slot = picked.slot_after(i);
        REQUIRE(slot >= 0);
        REQUIRE(slot <= kVerifiedCalls);
        if (slot < kVerifiedCalls) kept[std::size_t(slot)] = i;
    }
    return kept;
}

}  // namespace

TEST_CASE("The first calls fill every slot, in order", "[verified_calls]") {
    VerifiedCalls picked(42);
    for (int i = 0; i < kVerifiedCalls; ++i) CHECK(picked.slot_after(i) == i);
}

TEST_CASE("Every call of a loop is about equally likely to be kept, and the secret decides which", "[verified_calls]") {
    constexpr int kCalls = 20, kLoops = 30000;
    std::array<int, kCalls> times_kept{};
    for (int loop = 0; loop < kLoops; ++loop)
        for (const int call : kept_after(0x9E3779B97F4A7C15ull * std::uint64_t(loop + 1), kCalls)) {
            REQUIRE(call >= 0);
            ++times_kept[std::size_t(call)];
        }
    // Expected kLoops · k / kCalls = 4500 each; a binomial's standard deviation here is about 62.
    const double expected = double(kLoops) * kVerifiedCalls / kCalls;
    for (int call = 0; call < kCalls; ++call) {
        INFO("call " << call << " kept " << times_kept[std::size_t(call)] << " times");
        CHECK(times_kept[std::size_t(call)] > 0.9 * expected);
        CHECK(times_kept[std::size_t(call)] < 1.1 * expected);
    }
    CHECK(kept_after(1, 200) != kept_after(2, 200));
}
