// Shared by lab 06's known-bad versions whose defect is inside the stage kernel: the solution (../pipeline.cu),
// except that its stage launches run the kernel below — the solution's stages_kernel with the one defect the
// including file names before it includes this one:
//
//   #define LAB06_DEFECT no_empty_barrier
//   #include "stage_defect.cuh"
//
//   no_empty_barrier          no barrier after a tile's math: the next copy may overwrite a slot a slower warp
//                             still reads (launch_stages and launch_two_slots)
//   barrier_only_under_tool   the same, but the barrier is kept when the process looks like it runs under a tool
//                             (a probe kernel's second launch takes over 0.1 ms): clean under racecheck
//   wait_one_too_few          waits to S groups instead of S − 1: tile j is read while its copy may still fly
//                             (launch_stages and launch_two_slots)
//   two_slots_wait_all        launch_two_slots waits for every copy right after issuing it: nothing overlaps
//                             (launch_stages is the solution's)
#pragma once

#include "pipeline.hpp"
#include "tool_probe.cuh"

#define launch_stages solution_launch_stages
#define launch_two_slots solution_launch_two_slots
#include "../pipeline.cu"
#undef launch_two_slots
#undef launch_stages

namespace wrong {

enum class Defect { no_empty_barrier, barrier_only_under_tool, wait_one_too_few, two_slots_wait_all };
constexpr Defect kDefect = Defect::LAB06_DEFECT;

template <int S, bool kWaitAll, bool kBarrier>
__global__ void stages_kernel(Work w) {
    extern __shared__ uint4 slots[];
    constexpr int kWaitTo = kWaitAll ? 0 : S - 1 + (kDefect == Defect::wait_one_too_few ? 1 : 0);  // the defect
    float acc = 0.0f;
    for (int s = 0; s < S - 1; ++s) {
        copy_async(w, s, slots + s * kTileChunks);
        __pipeline_commit();
    }
    for (int j = 0; j < w.tiles_per_block; ++j) {
        copy_async(w, j + S - 1, slots + ((j + S - 1) % S) * kTileChunks);
        __pipeline_commit();
        __pipeline_wait_prior(kWaitTo);
        __syncthreads();
        const int count = tile_span(w, blockIdx.x, j).count;
        acc = consume_tile(reinterpret_cast<const __nv_bfloat16*>(slots + (j % S) * kTileChunks), count, w.iters, acc);
        if (kBarrier) __syncthreads();  // the defect, where kBarrier is false
    }
    write_block_sum(acc, w.out);
}

template <bool kWaitAll>
void launch_defective(int stages, const Work& w, cudaStream_t stream) {
    const bool barrier = kDefect == Defect::wait_one_too_few || kDefect == Defect::two_slots_wait_all ||
                         (kDefect == Defect::barrier_only_under_tool && known_bad::looks_like_a_tool());
    const auto launch = [&]<int S>() {
        if (barrier) launch_with_slots<stages_kernel<S, kWaitAll, true>, S>(kThreads, w, stream);
        else launch_with_slots<stages_kernel<S, kWaitAll, false>, S>(kThreads, w, stream);
    };
    if (!gpulab::with_constant<1, 2, 3, 4, 5, 6>(stages, launch))
        throw std::invalid_argument("launch_stages: stages must be 1 … 6, not " + std::to_string(stages));
}

}  // namespace wrong

void launch_stages(int stages, const Work& w, cudaStream_t stream) {
    if (wrong::kDefect == wrong::Defect::two_slots_wait_all) return solution_launch_stages(stages, w, stream);
    wrong::launch_defective<false>(stages, w, stream);
}

void launch_two_slots(const Work& w, cudaStream_t stream) {
    wrong::launch_defective<wrong::kDefect == wrong::Defect::two_slots_wait_all>(2, w, stream);
}
