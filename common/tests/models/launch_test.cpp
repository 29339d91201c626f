// Sections 5.5.2 and 5.5.4: launch counts, Example 5-11, the persistent kernel. (Experiment 5-8's answer:
// solutions/tests/models_answers_test.cpp.)
#include "catch_compat.hpp"
#include "chapter_numbers.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/launch.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::models;
using gpulab::testing::Approx;
using gpulab::testing::prints_as;

TEST_CASE("Three FFN runs: 18/18 eager, 3/18 graph, 15/15 fused, 3/15 fused + graph", "[models][launch]") {
    const auto v = launch_variants(3, 6, 5);
    CHECK(v[0].name == "eager");
    CHECK(v[0].counts.host_submissions == 18);
    CHECK(v[0].counts.device_kernels == 18);
    CHECK(v[1].counts.host_submissions == 3);
    CHECK(v[1].counts.device_kernels == 18);
    CHECK(v[2].counts.host_submissions == 15);
    CHECK(v[2].counts.device_kernels == 15);
    CHECK(v[3].name == "fused+graph");
    CHECK(v[3].counts.host_submissions == 3);
    CHECK(v[3].counts.device_kernels == 15);
}

TEST_CASE("Example 5-11: a 2 MiB input keeps most of the replay's 15 us, 16 MiB loses", "[models][launch][graph]") {
    const double bw = load_device("RTX PRO 6000").memory_bandwidth_gbps;
    const GraphReplay small = graph_replay({20, 20, 5, 2 * gpulab::kMiB, bw});
    CHECK(small.eager_us == 40);
    CHECK(small.saving_without_copy_us == 15);
    CHECK(to_mib(small.copy_bytes) == 4);
    CHECK(prints_as(small.copy_us, 2.3, 1));
    CHECK(prints_as(small.graph_us, 27.3, 1));
    CHECK(prints_as(small.saving_us, 12.7, 1));
    const GraphReplay big = graph_replay({20, 20, 5, 16 * gpulab::kMiB, bw});
    CHECK(to_mib(big.copy_bytes) == 32);
    CHECK(prints_as(big.copy_us, 18.7, 1));
    CHECK(prints_as(big.graph_us, 43.7, 1));
    CHECK(big.saving_us < 0);
    CHECK(prints_as(to_mib(small.break_even_input_bytes), 12.8, 1));
}

TEST_CASE("Persistent kernel: 126 us coarse against 114 us with a task queue", "[models][launch][persistent]") {
    const PersistentKernel p = persistent_kernel({});
    CHECK(p.blocks == 8);
    CHECK(prints_as(p.projection_flop_per_block / 1e9, 6.44, 2));
    CHECK(prints_as(p.projection_us, 12.8, 1));
    CHECK(prints_as(p.activation_us, 1.76, 2));
    CHECK(prints_as(p.coarse_us, 126, 0));
    CHECK(prints_as(p.task_projection_us, 13.3, 1));
    CHECK(prints_as(p.task_activation_us, 2.28, 2));
    CHECK(prints_as(p.persistent_us, 114, 0));
    CHECK(prints_as(p.speedup, 1.1, 1));
    CHECK(prints_as(p.coarse_us - p.persistent_us, 12.6, 1));
}

TEST_CASE("GEMV chain: 64 GEMVs of 4096 × 4096 read 32 MiB each across 63 boundaries", "[models][launch][chain]") {
    const GemvChain c = gemv_chain({});
    CHECK(c.weight_bytes_per_step == 32.0 * 1024 * 1024);
    CHECK(c.boundaries == 63);
    // The weights alone at 1792 GB/s: 18.7 µs a step (the chapter measured about 21).
    CHECK(prints_as(c.step_us, 18.7, 1));
    // 1.2–2.3 µs per boundary: 75.6–144.9 µs a chain; with a work-stealing counter, 0.74–1.06 µs: 46.6–66.8 µs.
    CHECK(prints_as(c.boundaries_us, 75.6, 1));
    CHECK(prints_as(gemv_chain({.boundary_us = 2.3}).boundaries_us, 144.9, 1));
    CHECK(prints_as(gemv_chain({.boundary_us = 0.74}).boundaries_us, 46.6, 1));
    CHECK(prints_as(gemv_chain({.boundary_us = 1.06}).boundaries_us, 66.8, 1));
    CHECK(c.chain_us == Approx(64 * c.step_us + c.boundaries_us));
    CHECK(c.boundary_share == Approx(c.boundaries_us / c.chain_us));
    // One step has no boundary; a boundary that costs nothing leaves the weights alone.
    CHECK(gemv_chain({.steps = 1}).boundaries == 0);
    CHECK(gemv_chain({.boundary_us = 0}).chain_us == Approx(64 * c.step_us));
    CHECK_THROWS_AS(gemv_chain({.steps = 0}), std::invalid_argument);
}
