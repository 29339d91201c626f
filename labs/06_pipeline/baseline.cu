// FROZEN: do not edit. Lab 06 baseline: the baseline kernel (math straight from global memory), the load-only and
// compute-only kernels that measure t_m and t_c, and the helpers of the interface.
#include <algorithm>
#include <stdexcept>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "bulk.cuh"
#include "pipeline.hpp"
#include "pipeline_math.cuh"

bool producer_supported() { return gpulab::device_attribute(cudaDevAttrComputeCapabilityMajor) >= 9; }

int tiles_of(const Work& w) { return static_cast<int>((w.n + kTileElems - 1) / kTileElems); }

int blocks_of(const Work& w) {
    if (w.tiles_per_block < 1) throw std::invalid_argument("Work: tiles_per_block must be at least 1");
    if (w.n % 8 != 0) throw std::invalid_argument("Work: n must be a multiple of 8");
    return (tiles_of(w) + w.tiles_per_block - 1) / w.tiles_per_block;
}

namespace {

__global__ void baseline_kernel(Work w) {
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) {
        const TileSpan t = tile_span(w, blockIdx.x, j);
        acc = consume_tile(w.in + t.first, t.count, w.iters, acc);
    }
    write_block_sum(acc, w.out);
}

// Before sm_90, kRound tiles per round: every thread loads its 4 · kRound pieces of 16 bytes into registers, then
// stores them (4 tiles: 64 KiB in flight per block, enough for the copies to run near the memory's rate).
template <int kRound>
__global__ void load_only_kernel(Work w) {
    extern __shared__ uint4 slots_flat[];  // kRound slots of kTileChunks pieces (64 KiB: dynamic, opted in)
    auto slots = reinterpret_cast<uint4(*)[kTileChunks]>(slots_flat);
    const auto* in = reinterpret_cast<const uint4*>(w.in);
    constexpr int kPer = kTileChunks / kThreads;
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; j += kRound) {
        uint4 v[kRound][kPer];
        TileSpan t[kRound];
#pragma unroll
        for (int s = 0; s < kRound; ++s) {
            t[s] = tile_span(w, blockIdx.x, j + s);
#pragma unroll
            for (int k = 0; k < kPer; ++k) {
                const int c = threadIdx.x + k * kThreads;
                if (c * 8 < t[s].count) v[s][k] = in[t[s].first / 8 + c];
            }
        }
#pragma unroll
        for (int s = 0; s < kRound; ++s)
#pragma unroll
            for (int k = 0; k < kPer; ++k) {
                const int c = threadIdx.x + k * kThreads;
                if (c * 8 < t[s].count) slots[s][c] = v[s][k];
            }
        __syncthreads();
#pragma unroll
        for (int s = 0; s < kRound; ++s)
            if (threadIdx.x * 8 < t[s].count) acc += __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(slots[s])[threadIdx.x * 8]);
        __syncthreads();
    }
    write_block_sum(acc, w.out);
}

// On sm_90 the SM's TMA unit does it: one thread keeps kRing bulk copies of 16 KiB in flight (4: 64 KiB per block),
// each slot's "full" barrier telling it when the slot's last copy landed and may be replaced. No thread moves
// data through registers, which is why this is faster than any loop of loads: t_m is what the memory allows.
constexpr int kBulkRing = 4;  // tiles in flight for t_m (the register loader takes as many per round)

template <int kRing>
__global__ void load_only_bulk_kernel(Work w) {
    extern __shared__ __align__(128) uint4 ring[];  // kRing slots of kTileChunks pieces
    __shared__ __align__(8) std::uint64_t full[kRing];
    float acc = 0.0f;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kRing; ++s) mbar_init(&full[s], 1);
        mbar_init_fence();
        const auto landed = [&](int j) {  // waits for tile j's copy (no thread reads the slot: the TMA unit may
            mbar_wait(&full[j % kRing], (j / kRing) & 1);  // refill it at once)
            acc += static_cast<float>(tile_span(w, blockIdx.x, j).count);
        };
        for (int j = 0; j < w.tiles_per_block; ++j) {
            if (j >= kRing) landed(j - kRing);  // its slot is free again
            const TileSpan t = tile_span(w, blockIdx.x, j);
            const unsigned bytes = static_cast<unsigned>(t.count) * 2u;
            mbar_arrive_expect_bytes(&full[j % kRing], bytes);
            if (bytes > 0) bulk_copy(ring + (j % kRing) * kTileChunks, w.in + t.first, bytes, &full[j % kRing]);
        }
        for (int j = std::max(0, w.tiles_per_block - kRing); j < w.tiles_per_block; ++j) landed(j);
    }
    __syncthreads();
    write_block_sum(acc, w.out);
}

__global__ void compute_only_kernel(Work w) {
    __shared__ alignas(16) __nv_bfloat16 tile[kTileElems];
    const TileSpan first = tile_span(w, blockIdx.x, 0);
    for (int i = threadIdx.x; i < first.count; i += kThreads) tile[i] = w.in[first.first + i];
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < w.tiles_per_block; ++j) acc = consume_tile(tile, first.count, w.iters, acc);
    write_block_sum(acc, w.out);
}

}  // namespace

void launch_baseline(const Work& w, cudaStream_t stream) {
    baseline_kernel<<<blocks_of(w), kThreads, 0, stream>>>(w);
    LABS_CHECK_LAUNCH();
}

namespace {

// kTiles tiles in flight per block: bulk copies on sm_90, loads through registers before.
template <int kTiles>
void launch_loads(const Work& w, cudaStream_t stream) {
    constexpr int bytes = kTiles * kTileChunks * 16;
    static const bool bulk = producer_supported();
    static const bool opted_in = [] {  // once, so that nothing but the launch sits between timing events
        if (bulk) CUDA_CHECK(cudaFuncSetAttribute(load_only_bulk_kernel<kTiles>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        else CUDA_CHECK(cudaFuncSetAttribute(load_only_kernel<kTiles>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        return true;
    }();
    (void)opted_in;
    if (bulk) load_only_bulk_kernel<kTiles><<<blocks_of(w), kThreads, bytes, stream>>>(w);
    else load_only_kernel<kTiles><<<blocks_of(w), kThreads, bytes, stream>>>(w);
    LABS_CHECK_LAUNCH();
}

}  // namespace

void launch_load_only(const Work& w, cudaStream_t stream) { launch_loads<kBulkRing>(w, stream); }

void launch_load_one_in_flight(const Work& w, cudaStream_t stream) { launch_loads<1>(w, stream); }

void launch_compute_only(const Work& w, cudaStream_t stream) {
    compute_only_kernel<<<blocks_of(w), kThreads, 0, stream>>>(w);
    LABS_CHECK_LAUNCH();
}
