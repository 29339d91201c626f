/**
 * @file streaming_launch.cuh
 * @brief Lab 02 (c): how every streaming kernel is launched — with the ballast, the largest shared-memory
 * carveout and one wave of blocks — so that yours and the baseline run under the same conditions.
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <map>
#include <utility>

#include "labs/cuda_check.hpp"
#include "occupancy.hpp"

/** @brief Launches @p kernel(in, out, count) with @p ballast bytes of dynamic shared memory per block and
 *  blocks_per_sm × SMs blocks of kStreamThreads threads; returns what it ran with. */
template <typename Kernel>
StreamLaunch launch_with_ballast(Kernel* kernel, const uint4* in, uint4* out, std::size_t count, std::size_t ballast,
                                 cudaStream_t stream) {
    // The attributes are set and the runtime asked once per kernel and ballast: between a timed run's start
    // event and its kernel there is nothing but the launch.
    static std::map<std::pair<const void*, std::size_t>, StreamLaunch> known;
    const auto key = std::make_pair(reinterpret_cast<const void*>(kernel), ballast);
    auto it = known.find(key);
    if (it == known.end()) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(ballast)));
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared));
        int device = 0, sms = 0, threads_per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
        StreamLaunch l;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&l.blocks_per_sm, kernel, kStreamThreads, ballast));
        cudaFuncAttributes attr{};
        CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
        l.regs_per_thread = attr.numRegs;
        l.occupancy = double(l.blocks_per_sm * kStreamThreads) / threads_per_sm;
        l.grid = l.blocks_per_sm * sms;
        it = known.emplace(key, l).first;
    }
    const StreamLaunch& l = it->second;
    if (l.grid > 0 && count > 0) {
        kernel<<<l.grid, kStreamThreads, ballast, stream>>>(in, out, count);
        LABS_CHECK_LAUNCH();
    }
    return l;
}
