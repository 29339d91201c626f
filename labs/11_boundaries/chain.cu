// Lab 11 — THE FILE YOU EDIT. Read labs/11_boundaries/README.md first.
//
// Goal: the given chain of GEMVs (one launch per step) three other ways — one replayed graph (a), programmatic
// dependent launch (b), one persistent kernel with a task queue (c) — each computing every output element in
// chain::row_dot()'s order (chain_math.cuh), so that all give the given chain's bits and only the boundaries between
// steps differ.
//
// Untouched, this file compiles, runs and scores 0: the launchers launch nothing.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "chain.hpp"
#include "chain_math.cuh"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"

namespace {

// TODO(student) (a): a GEMV kernel in which each warp computes one row with chain::row_dot() (baseline.cu shows the
// mapping); capture a launch of it per step on a stream of your own (cudaStreamBeginCapture … EndCapture), instantiate
// the graph once per argument set (the graph keeps the addresses it was captured with), and keep it for later calls.

// TODO(student) (b): the same kernel, but first chain::pdl_launch_dependents(), then the warp's W row loaded into
// registers, then chain::pdl_wait() before x is read; launched with cudaLaunchKernelEx and the attribute
// cudaLaunchAttributeProgrammaticStreamSerialization.

// TODO(student) (c): one kernel whose blocks loop: take the next task from a counter in the workspace (atomicAdd), load
// the task's weights, wait until the previous step's flag counts all its tasks (ld.acquire.gpu in a loop), compute
// the task's rows (x read through L2: __ldcg), then __syncthreads(), __threadfence() and atomicAdd() the step's flag.
// Its grid: cudaOccupancyMaxActiveBlocksPerMultiprocessor() × the SM count.

}  // namespace

void launch_chain_graph(const ChainArgs& a, cudaStream_t stream) {
    // TODO(student): cudaGraphLaunch(the graph for a, stream).
    gpulab::unused(a, stream);
}

void launch_chain_pdl(const ChainArgs& a, cudaStream_t stream) {
    // TODO(student): a.steps launches with cudaLaunchKernelEx, each with the programmatic serialization attribute.
    gpulab::unused(a, stream);
}

void launch_chain_persistent(const ChainArgs& a, cudaStream_t stream) {
    // TODO(student): zero the counter and the flags (one cudaMemsetAsync on stream), then one launch.
    gpulab::unused(a, stream);
}
