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
    if (n <= 0 || n % kTile != 0) throw std::invalid_argument("launch_tiled_bounded: n must be a multiple of kTile");
    tiled_bounded<<<dim3(n / kTile, n / kTile), kTiledThreads, 0, stream>>>(a, b, c, n);
    LABS_CHECK_LAUNCH();
}

TiledInfo tiled_bounded_info() {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, tiled_bounded));
    CUDA_CHECK(cudaFuncSetAttribute(tiled_bounded, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    TiledInfo t;
    t.regs_per_thread = attr.numRegs;
    t.local_bytes = attr.localSizeBytes;
    t.static_smem = attr.sharedSizeBytes;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&t.blocks_per_sm, tiled_bounded, kTiledThreads, 0));
    return t;
}
