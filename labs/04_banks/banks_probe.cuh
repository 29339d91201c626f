/**
 * @file banks_probe.cuh
 * @brief Lab 04: a layout seen two ways — evaluated on the host (every offset of the tile) and timed on
 * the GPU (cycles per warp access, clock64() inside one warp).
 *
 * FROZEN: do not edit. banks_instances.cuh instantiates these templates with your layouts.
 */
#pragma once

#include <type_traits>

#include "banks.hpp"
#include "labs/cuda_check.hpp"
#include "labs/buffer.hpp"

namespace banks {

/** @brief The layout's offset() at every (row, col) of the tile, evaluated on the host. */
template <class Layout, class T>
LayoutTable table_of() {
    LayoutTable t;
    t.element_bytes = static_cast<int>(sizeof(T));
    t.elements = Layout::kElements;
    t.offsets.reserve(kTile * kTile);
    for (int row = 0; row < kTile; ++row)
        for (int col = 0; col < kTile; ++col) t.offsets.push_back(Layout::offset(row, col));
    return t;
}

/// Shared memory seen as raw bits of the tile's element size, through a volatile pointer so that every
/// access in the timed loops is issued (none hoisted out of the repetitions).
template <class T>
using ProbeBits = std::conditional_t<sizeof(T) == 4, unsigned, unsigned short>;

/// One warp: row writes, column reads, row reads through the layout, each timed with clock64() over
/// reps × 32 accesses. Four accumulators keep the loads independent of one another.
template <class Layout, class T>
__global__ void layout_probe_kernel(long long* cycles, unsigned* sink, int reps) {
    using Bits = ProbeBits<T>;
    __shared__ Bits storage[Layout::kElements];
    volatile Bits* tile = storage;
    const int lane = static_cast<int>(threadIdx.x);
    for (int i = lane; i < Layout::kElements; i += 32) tile[i] = static_cast<Bits>(i);
    __syncwarp();
    unsigned acc[4] = {0, 0, 0, 0};

    long long start = clock64();
    for (int rep = 0; rep < reps; ++rep) {
#pragma unroll
        for (int row = 0; row < kTile; ++row) tile[Layout::offset(row, lane)] = static_cast<Bits>(rep + row);
    }
    __syncwarp();
    long long stop = clock64();
    if (lane == 0) cycles[0] = stop - start;

    start = clock64();
    for (int rep = 0; rep < reps; ++rep) {
#pragma unroll
        for (int col = 0; col < kTile; ++col) acc[col & 3] += tile[Layout::offset(lane, col)];
    }
    __syncwarp();
    stop = clock64();
    if (lane == 0) cycles[1] = stop - start;

    start = clock64();
    for (int rep = 0; rep < reps; ++rep) {
#pragma unroll
        for (int row = 0; row < kTile; ++row) acc[row & 3] += tile[Layout::offset(row, lane)];
    }
    __syncwarp();
    stop = clock64();
    if (lane == 0) cycles[2] = stop - start;
    sink[lane] = acc[0] + acc[1] + acc[2] + acc[3];
}

/** @brief Runs layout_probe_kernel on one warp and returns cycles per warp access. */
template <class Layout, class T>
ProbeCycles probe(int reps) {
    if (reps < 1) reps = 1;
    gpulab::DeviceBuffer<long long> cycles(3);
    gpulab::DeviceBuffer<unsigned> sink(32);
    layout_probe_kernel<Layout, T><<<1, 32>>>(cycles.data(), sink.data(), reps);
    LABS_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<long long> c = gpulab::to_host(cycles);
    const double accesses = double(reps) * kTile;
    return {double(c[0]) / accesses, double(c[1]) / accesses, double(c[2]) / accesses};
}

}  // namespace banks
