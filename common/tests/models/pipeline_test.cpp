// Example 5-5 (double buffering on an H100 SM), T_pipe, Example 5-10 (host/device pipeline),
// section 5.3.2's layout-change backpressure.
#include <stdexcept>

#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/models/pipeline.hpp"

using namespace gpulab::models;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("Example 5-5: four blocks in two slots finish at 5.44 us instead of 6.28", "[models][pipeline]") {
    CHECK(prints_as(serial_time_us(4, 1.29, 0.28), 6.28, 2));
    CHECK(prints_as(pipeline_time_us(4, 1.29, 0.28), 5.44, 2));
    const PipelineTimeline t = simulate_pipeline(4, 1.29, 0.28, 2);
    CHECK(t.total_us == Approx(5.44));
    CHECK(t.blocks[0].full_us == Approx(1.29));
    CHECK(t.blocks[0].empty_us == Approx(1.57));      // slot A is free here ...
    CHECK(t.blocks[1].full_us == Approx(2.58));
    CHECK(t.blocks[2].slot == 0);
    CHECK(t.blocks[2].move_start_us == Approx(2.58)); // ... but the mover reaches it only here
    CHECK(t.blocks[2].slot_wait_us == 0);             // the producer never waits for a slot
    CHECK(t.blocks[3].full_us == Approx(5.16));       // the mover is busy 0 – 5.16 µs
    CHECK(prints_as((1 - t.total_us / t.serial_us) * 100, 13, 0));
    CHECK(prints_as(t.compute_busy_fraction, 0.2, 1)); // compute busy about a fifth of the time
    REQUIRE(t.events.size() == 8);
    CHECK(t.events[0].kind == "full");
    CHECK(t.events[1].kind == "empty");
    CHECK(t.events[1].time_us == Approx(1.57));
}

TEST_CASE("A third slot gains nothing when the mover is the bottleneck", "[models][pipeline]") {
    CHECK(simulate_pipeline(4, 1.29, 0.28, 3).total_us == Approx(5.44));
    CHECK(simulate_pipeline(4, 1.29, 0.28, 1).total_us == Approx(serial_time_us(4, 1.29, 0.28)));
}

TEST_CASE("The timeline agrees with T_pipe whenever two slots suffice", "[models][pipeline]") {
    const auto n = GENERATE(1, 2, 3, 7, 65);
    const auto tm = GENERATE(0.5, 1.0, 2.0);
    const double tc = 1.0;
    INFO("n=" << n << " t_m=" << tm);
    CHECK(simulate_pipeline(n, tm, tc, 2).total_us == Approx(pipeline_time_us(n, tm, tc)));
}

TEST_CASE("Extra slots help only when move times jitter", "[models][pipeline]") {
    // A slow move of block 2 makes compute idle; a third slot lets the mover run ahead before it.
    const std::vector<double> moves{1.0, 1.0, 3.0, 1.0, 1.0, 1.0};
    const std::vector<double> computes(6, 1.5);
    const double two = simulate_pipeline(moves, computes, 2).total_us;
    const double three = simulate_pipeline(moves, computes, 3).total_us;
    CHECK(three < two);
    CHECK(simulate_pipeline(moves, computes, 4).total_us == Approx(three));
}

TEST_CASE("Example 5-10: 100 segments, host 20 us and device 20/5 us", "[models][pipeline][host]") {
    CHECK(serial_time_us(100, 20, 20) == 4000);
    CHECK(pipeline_time_us(100, 20, 20) == 2020);
    CHECK(pipeline_time_us(100, 20, 5) == 2005);   // a 4× faster device saves 15 µs
    CHECK(pipeline_time_us(100, 5, 5) == 505);
    CHECK(simulate_pipeline(100, 20, 5, 100).total_us == Approx(2005));
}

TEST_CASE("Layout change: one block per SM holds 3 waiting slots, two blocks only 1", "[models][pipeline]") {
    const SmLimits pro = sm_limits(load_device("RTX PRO 6000"));
    const std::int64_t one = smem_budget_per_block_bytes(pro, 1);
    const std::int64_t two = smem_budget_per_block_bytes(pro, 2);
    CHECK(one == 101376);                // 99 KB
    CHECK(two == 49 * 1024);             // (100 KB − 2 × 1 KiB) / 2
    CHECK(3 * 16384 + 32768 <= one);     // three 16 KiB blocks + 32 KiB reorder space = 80 KiB fit
    CHECK(slots_that_fit(two, 32 * 1024, 16 * 1024) == 1);  // backpressure: one waiting slot
    CHECK(slots_that_fit(1000, 2000, 16) == 0);
}

TEST_CASE("Three stages over chunks: serial sum, overlapped by the slowest stage, slots limit the overlap",
          "[models][pipeline]") {
    const StreamStages s{100, 60, 40};  // 8 chunks: the lab's paper case
    CHECK(stream_serial_time_us(8, s) == 8 * 200.0);
    CHECK(stream_pipeline_time_us(8, s) == 200.0 + 7 * 100.0);
    CHECK(stream_bottleneck(s) == "h2d");
    CHECK(stream_bottleneck({10, 30, 20}) == "kernel");
    CHECK(stream_bottleneck({10, 20, 30}) == "d2h");
    // One chunk: nothing to overlap.
    CHECK(stream_pipeline_time_us(1, s) == stream_serial_time_us(1, s));
    // One slot: the next chunk's copy in overlaps only the previous chunk's copy out.
    CHECK(stream_pipeline_time_us(8, s, 1) < stream_serial_time_us(8, s));
    CHECK(stream_pipeline_time_us(2, s, 1) == 100 + 60 + 100 + 60 + 40);
    // Two slots here already reach the unlimited pipeline: the copy in (the bottleneck) never waits.
    CHECK(stream_pipeline_time_us(8, s, 2) == stream_pipeline_time_us(8, s));
    // Balanced stages: with one slot, chunk 1's kernel waits for chunk 0's copy out; with two, nothing waits.
    const StreamStages b{10, 10, 10};
    CHECK(stream_pipeline_time_us(4, b, 1) == 10 + 4 * 20.0);
    CHECK(stream_pipeline_time_us(4, b, 2) == 60.0);
    CHECK_THROWS_AS(stream_pipeline_time_us(0, s), std::invalid_argument);
}

TEST_CASE("A wait on an event never recorded does not wait: a missing 'used' event is a race", "[models][pipeline]") {
    CHECK_FALSE(event_wait_blocks(false));
    CHECK(event_wait_blocks(true));
    CHECK(missing_used_event_effect() == "race");
}

TEST_CASE("Moves in flight: latency sets the pace of few, the memory's rate of many", "[models][pipeline]") {
    // One 16 KiB move alone lands after 0.75 us; the memory delivers one per 0.5 us at most.
    CHECK(move_time_in_flight_us(0.5, 0.75, 1) == Approx(0.75));
    CHECK(move_time_in_flight_us(0.5, 0.75, 2) == Approx(0.5));    // 0.375 would beat the memory: capped
    CHECK(move_time_in_flight_us(0.5, 1.5, 2) == Approx(0.75));
    CHECK_THROWS_AS(move_time_in_flight_us(0.5, 0.75, 0), std::invalid_argument);
    // Two slots keep one move in flight: the latency-bound 0.75 us paces them even though t_c = 0.5 us;
    // a third slot brings the move down to the memory's rate, and more add nothing.
    const double two = slots_time_us(256, 2, 0.5, 0.75, 0.5), three = slots_time_us(256, 3, 0.5, 0.75, 0.5);
    CHECK(two == Approx(pipeline_time_us(256, 0.75, 0.5)));
    CHECK(three == Approx(pipeline_time_us(256, 0.5, 0.5)));
    CHECK(slots_time_us(256, 6, 0.5, 0.75, 0.5) == Approx(three));
    CHECK(two / three == Approx(1.5).epsilon(0.01));
    // One slot overlaps nothing: every block pays its move alone and its math.
    CHECK(slots_time_us(256, 1, 0.5, 0.75, 0.5) == Approx(256 * 1.25));
}
