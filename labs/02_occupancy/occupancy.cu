// Lab 02 — THE FILE YOU EDIT. Read labs/02_occupancy/README.md first.
#include <cstdint>

#include "labs/launch.hpp"
#include "occupancy.hpp"
#include "tiled_body.cuh"

// TODO(student) (a): each of the four allowances, their minimum, the limiter and the occupancy.
Residency predict_residency(const KernelResources& k, const DeviceLimits& d) {
    gpulab::unused(k, d);
    return {};
}

// TODO(student) (b): one thread follows `steps` links from `start` — each load's address is the value the
// last one returned (i = words[i]) — and writes where it ended to *end. Load with __ldcg (cached in L2
// only), so that the L1 cache does not answer some loads.
__global__ void chase_kernel(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end) {
    gpulab::unused(words, start, steps, end);
}

// TODO(student) (c): copy count 16-byte vectors from in to out with a grid-stride loop that keeps LOADS
// independent loads in flight per thread: issue all LOADS loads, then the LOADS stores. Every index below
// count is copied once (mind the tail); nothing past it is touched.
template <int LOADS>
__global__ void streaming_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
    gpulab::unused(in, out, count);
}

// TODO(student) (d): the given body under __launch_bounds__(maxThreadsPerBlock, minBlocksPerSM), with the
// bounds that let the registers hold as many blocks as the shared memory does (README: how many is that?).
__global__ void tiled_bounded(const float* a, const float* b, float* c, int n) { tiled_gemm_body(a, b, c, n); }
