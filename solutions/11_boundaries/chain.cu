// Lab 11 — the reference solution. Read labs/11_boundaries/README.md first.
//
// Every variant computes each output element with chain::row_dot()'s order (each lane its chunks in order, then the
// butterfly), so all give the given chain's bits; they differ in how a step learns that its input is ready:
//   (a) a graph of the steps' launches, captured once per argument set and replayed: one host launch per call, and
//       on the device the graph's own boundaries;
//   (b) a launch per step with programmatic dependent launch: each kernel first lets the next one launch
//       (griddepcontrol.launch_dependents), loads its weights into registers, and only then waits for the previous
//       step to finish (griddepcontrol.wait) before it reads x — the weights of step s + 1 stream in while step s ends;
//   (c) one persistent kernel, its grid as many blocks as can be resident: blocks take tasks (32 rows of one step) from
//       a counter in order, load the task's first rows of weights, wait until the previous step's flag counts all its
//       tasks (an acquire load), compute, and publish their task with a fence and an atomic add. Tasks are taken in
//       order, so every task a block waits for is held by a block that is already running: no deadlock, whatever the
//       grid.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "chain.hpp"
#include "chain_math.cuh"
#include "labs/cuda_check.hpp"

// The known-bad versions (wrong/pdl_*.cu, wrong/persistent_*.cu, wrong/flag_*.cu) include this file with one of these
// switched off.
#ifndef LAB11_PDL_WAIT
#define LAB11_PDL_WAIT 1  // (b)'s steps wait for the previous grid (griddepcontrol.wait) before they read x
#endif
#ifndef LAB11_FENCE_BEFORE_FLAG
#define LAB11_FENCE_BEFORE_FLAG 1  // a task's rows are fenced at GPU scope before its flag is raised
#endif
#ifndef LAB11_TASKS_IN_ORDER
#define LAB11_TASKS_IN_ORDER 1  // tasks from one counter in order (0: block b does tasks b, b + grid, …, whatever is resident)
#endif

namespace {

constexpr int kWarps = 8;                  // rows per block (one warp per row) in (a) and (b)
constexpr int kThreads = 32 * kWarps;
constexpr int kEarlyChunks = 16;           // chunks per lane loaded before the wait: a whole row of 4096

// (a)'s step: warp w of block b computes row b · kWarps + w (the given kernel's mapping).
__global__ void __launch_bounds__(kThreads) gemv_kernel(const __nv_bfloat16* w, const __nv_bfloat16* x, __nv_bfloat16* y,
                                                        int dim) {
    const int row = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
    if (row >= dim) return;
    const __nv_bfloat16 v = chain::row_dot(reinterpret_cast<const uint4*>(w + std::size_t(row) * dim),
                                           reinterpret_cast<const uint4*>(x), dim);
    if ((threadIdx.x & 31u) == 0) y[row] = v;
}

// x through L2 (ld.global.cg) or as a plain load. (c) reads x through L2: a line that another SM wrote during this
// call is then never taken from a stale copy in this SM's L1.
template <bool kThroughL2>
__device__ __forceinline__ uint4 load_x(const uint4* p) {
    if constexpr (kThroughL2) return __ldcg(p);
    else return *p;
}

// A lane's dot product over its chunks of a row, the first kEarlyChunks already in registers: chain::row_dot()'s
// order, so the same bits.
template <bool kThroughL2 = false>
__device__ __forceinline__ float lane_dot(const uint4 (&early)[kEarlyChunks], const uint4* w_row, const uint4* x, int dim,
                                          int lane) {
    const int per_lane = chain::chunks_per_lane(dim);
    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < kEarlyChunks; ++i)
        if (i < per_lane) acc = chain::dot8(early[i], load_x<kThroughL2>(x + lane + 32 * i), acc);
    for (int i = kEarlyChunks; i < per_lane; ++i) acc = chain::dot8(w_row[lane + 32 * i], load_x<kThroughL2>(x + lane + 32 * i), acc);
    return acc;
}

__device__ __forceinline__ void load_early(uint4 (&early)[kEarlyChunks], const uint4* w_row, int dim, int lane) {
    const int per_lane = chain::chunks_per_lane(dim);
#pragma unroll
    for (int i = 0; i < kEarlyChunks; ++i)
        if (i < per_lane) early[i] = w_row[lane + 32 * i];
}

// (b)'s step.
__global__ void __launch_bounds__(kThreads, 2) pdl_kernel(const __nv_bfloat16* w, const __nv_bfloat16* x, __nv_bfloat16* y,
                                                          int dim) {
    // The next step may launch now: its blocks, too, only load weights until their own wait.
    chain::pdl_launch_dependents();
    const int row = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const uint4* w_row = reinterpret_cast<const uint4*>(w + std::size_t(row) * dim);
    uint4 early[kEarlyChunks];
    if (row < dim) load_early(early, w_row, dim, lane);
    // The previous step has finished and its writes are visible past this point.
#if LAB11_PDL_WAIT
    chain::pdl_wait();
#endif
    if (row >= dim) return;
    const float acc = lane_dot(early, w_row, reinterpret_cast<const uint4*>(x), dim, lane);
    const __nv_bfloat16 v = chain::to_bf16(chain::warp_sum(acc));
    if (lane == 0) y[row] = v;
}

// ---- (c) ----------------------------------------------------------------------------------------------------------

constexpr int kTaskRows = 32;                    // rows per task: 4 per warp
constexpr int kRowsPerWarp = kTaskRows / kWarps;

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__global__ void __launch_bounds__(kThreads) persistent_kernel(ChainArgs a, int tasks_per_step) {
    unsigned* const counter = a.workspace;   // the next task to take
    unsigned* const done = a.workspace + 1;  // done[s]: tasks of step s finished
#if LAB11_TASKS_IN_ORDER
    __shared__ int task;
#endif
    const int total = a.steps * tasks_per_step;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x & 31u);
    const int per_lane = chain::chunks_per_lane(a.dim);
#if LAB11_TASKS_IN_ORDER
    for (;;) {
        if (threadIdx.x == 0) task = static_cast<int>(atomicAdd(counter, 1u));
        __syncthreads();
        const int t = task;
        __syncthreads();  // every thread has read task before thread 0 takes the next one
        if (t >= total) return;
#else
    (void)counter;
    for (int t = static_cast<int>(blockIdx.x); t < total; t += static_cast<int>(gridDim.x)) {
#endif
        const int s = t / tasks_per_step, g = t % tasks_per_step;
        const __nv_bfloat16* w = a.w + std::size_t(s) * a.dim * a.dim;
        const int row0 = g * kTaskRows + warp * kRowsPerWarp;
        // The first row's weights now, the others' into L2: none of them depends on the previous step.
        uint4 early[kEarlyChunks];
        load_early(early, reinterpret_cast<const uint4*>(w + std::size_t(row0) * a.dim), a.dim, lane);
        for (int r = 1; r < kRowsPerWarp; ++r)
            for (int i = 0; i < per_lane; ++i)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const uint4*>(w + std::size_t(row0 + r) * a.dim) +
                                                               lane + 32 * i));
        if (s > 0) {
            if (threadIdx.x == 0)
                while (load_acquire(done + s - 1) < static_cast<unsigned>(tasks_per_step)) __nanosleep(64);
            __syncthreads();
        }
        const uint4* x = reinterpret_cast<const uint4*>(a.x + std::size_t(s) * a.dim);
        __nv_bfloat16* y = a.x + std::size_t(s + 1) * a.dim;
        for (int r = 0; r < kRowsPerWarp; ++r) {
            const uint4* w_row = reinterpret_cast<const uint4*>(w + std::size_t(row0 + r) * a.dim);
            if (r > 0) load_early(early, w_row, a.dim, lane);
            const __nv_bfloat16 v = chain::to_bf16(chain::warp_sum(lane_dot<true>(early, w_row, x, a.dim, lane)));
            if (lane == 0) y[row0 + r] = v;
        }
        __syncthreads();  // the task's rows are written
        if (threadIdx.x == 0) {
#if LAB11_FENCE_BEFORE_FLAG
            __threadfence();  // ... and visible at GPU scope before the flag says so
#endif
            atomicAdd(done + s, 1u);
        }
    }
}

// A captured graph of (a)'s launches for one argument set. Graphs keep the addresses they were captured with, so each
// set of buffers gets its own; the grader's calls use a few.
struct Captured {
    const __nv_bfloat16* w;
    const __nv_bfloat16* x;
    int steps, dim;
    cudaGraphExec_t exec;
};

cudaGraphExec_t graph_for(const ChainArgs& a) {
    static std::vector<Captured> graphs;
    for (const Captured& c : graphs)
        if (c.w == a.w && c.x == a.x && c.steps == a.steps && c.dim == a.dim) return c.exec;
    // Captured on a stream of its own: the caller's may be the legacy default stream, which cannot be captured.
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    const unsigned blocks = static_cast<unsigned>(a.dim / kWarps);
    for (int step = 0; step < a.steps; ++step)
        gemv_kernel<<<blocks, kThreads, 0, s>>>(a.w + std::size_t(step) * a.dim * a.dim, a.x + std::size_t(step) * a.dim,
                                                a.x + std::size_t(step + 1) * a.dim, a.dim);
    cudaGraph_t g = nullptr;
    CUDA_CHECK(cudaStreamEndCapture(s, &g));
    CUDA_CHECK(cudaStreamDestroy(s));
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_CHECK(cudaGraphDestroy(g));
    if (graphs.size() >= 16) {  // the oldest goes: a long session of shapes keeps no more than 16
        CUDA_CHECK(cudaGraphExecDestroy(graphs.front().exec));
        graphs.erase(graphs.begin());
    }
    graphs.push_back({a.w, a.x, a.steps, a.dim, exec});
    return exec;
}

int resident_blocks() {
    static const int n = [] {
        int device = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel, kThreads, 0));
        return sms * per_sm;
    }();
    return n;
}

}  // namespace

void launch_chain_graph(const ChainArgs& a, cudaStream_t stream) { CUDA_CHECK(cudaGraphLaunch(graph_for(a), stream)); }

void launch_chain_pdl(const ChainArgs& a, cudaStream_t stream) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(a.dim / kWarps));
    config.blockDim = dim3(kThreads);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    for (int s = 0; s < a.steps; ++s)
        CUDA_CHECK(cudaLaunchKernelEx(&config, pdl_kernel, a.w + std::size_t(s) * a.dim * a.dim,
                                      static_cast<const __nv_bfloat16*>(a.x + std::size_t(s) * a.dim),
                                      a.x + std::size_t(s + 1) * a.dim, a.dim));
}

void launch_chain_persistent(const ChainArgs& a, cudaStream_t stream) {
    const int tasks_per_step = a.dim / kTaskRows;
    CUDA_CHECK(cudaMemsetAsync(a.workspace, 0, (1 + std::size_t(a.steps)) * sizeof(unsigned), stream));
#if LAB11_TASKS_IN_ORDER
    const int grid = std::min(resident_blocks(), a.steps * tasks_per_step);
#else
    const int grid = 4 * resident_blocks();  // "more blocks, more parallelism": four times what can be resident
#endif
    persistent_kernel<<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(a, tasks_per_step);
    CUDA_CHECK(cudaGetLastError());
}
