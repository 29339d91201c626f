/**
 * @file occupancy_instances.cuh
 * @brief Lab 02: your kernels, launched for the grader and the experiment — the pointer chase, the
 * streaming copy at 1, 2, 4 and 8 loads in flight (with the ballast, one wave), and the bounded tiled kernel.
 *
 * FROZEN: do not edit, and do not include it: the build compiles it at the end of occupancy.cu's translation
 * unit (labs_add_lab's APPEND_TO_EDIT), where chase_kernel, streaming_kernel<LOADS> and tiled_bounded are
 * defined.
 */
#pragma once

#include <stdexcept>
#include <string>

#include "labs/cuda_check.hpp"
#include "streaming_launch.cuh"

void launch_chase(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end,
                  cudaStream_t stream) {
    chase_kernel<<<1, 1, 0, stream>>>(words, start, steps, end);
    LABS_CHECK_LAUNCH();
}

StreamLaunch launch_streaming(int loads, const uint4* in, uint4* out, std::size_t count, std::size_t ballast,
                              cudaStream_t stream) {
    switch (loads) {
        case 1: return launch_with_ballast(streaming_kernel<1>, in, out, count, ballast, stream);
        case 2: return launch_with_ballast(streaming_kernel<2>, in, out, count, ballast, stream);
        case 4: return launch_with_ballast(streaming_kernel<4>, in, out, count, ballast, stream);
        case 8: return launch_with_ballast(streaming_kernel<8>, in, out, count, ballast, stream);
    }
    throw std::invalid_argument("launch_streaming: loads must be 1, 2, 4 or 8, not " + std::to_string(loads));
}

void launch_tiled_bounded(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    launch_tiled_kernel(tiled_bounded, "launch_tiled_bounded", a, b, c, n, stream);
}

TiledInfo tiled_bounded_info() { return tiled_info_of(tiled_bounded); }
