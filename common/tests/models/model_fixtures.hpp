/**
 * @file model_fixtures.hpp
 * @brief What the models' tests share: the chapter's H100 SM, its running-example GEMM and attention head, the
 * RTX PRO 6000's shared-memory budget, and a residency checker. Used by common/tests/models/ and by the tests of
 * the exercises' answers that ship with the solutions (solutions/tests/).
 */
#pragma once

#include <cstdint>

#include "catch_compat.hpp"
#include "labs/models/attention.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/models/tiling.hpp"

namespace gpulab::models::fixtures {

/** @brief The H100's SM limits (datasets/devices). */
inline const SmLimits& h100() {
    static const SmLimits sm = sm_limits(load_device("H100"));
    return sm;
}

inline constexpr std::int64_t kKiB = 1024;

/** @brief The running example's GEMM (1024 × 4096 × 12288). */
inline GemmShape running() { return running_example_gemm(load_model_shape()); }

/** @brief One attention head at L = 8192 with the model's head dimension. */
inline AttentionShape head() { return {8192, load_model_shape().head_dim}; }

/** @brief The RTX PRO 6000's shared memory per block (101,376 B). */
inline std::int64_t budget() { return load_device("RTX PRO 6000").smem_per_block_max_bytes; }

/** @brief What a footprint's residency comes to: the blocks the thread slots, the registers, the shared memory and
 *  the block limit each allow, the resident blocks, the occupancy and the limiter. */
struct Residency {
    int by_threads, by_regs, by_smem, by_limit, resident;
    double occupancy;
    const char* limiter;
};

/** @brief Checks every field of @p o against @p want. */
inline void check_residency(const Occupancy& o, const Residency& want) {
    CHECK(o.blocks_by_threads == want.by_threads);
    CHECK(o.blocks_by_regs == want.by_regs);
    CHECK(o.blocks_by_smem == want.by_smem);
    CHECK(o.blocks_by_limit == want.by_limit);
    CHECK(o.resident_blocks == want.resident);
    CHECK(o.occupancy == gpulab::testing::Approx(want.occupancy));
    CHECK(o.limiter() == want.limiter);
}

}  // namespace gpulab::models::fixtures
