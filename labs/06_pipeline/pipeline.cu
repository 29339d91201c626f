// Lab 06 — THE FILE YOU EDIT. Read labs/06_pipeline/README.md first.
#include "labs/launch.hpp"
#include "bulk.cuh"
#include "pipeline.hpp"
#include "pipeline_math.cuh"

// TODO(student) (a): one slot in shared memory. For each of the block's tiles (tile_span): copy it in, 16
// bytes per thread at a time; __syncthreads(); consume_tile() on it; __syncthreads(); then
// write_block_sum(acc, w.out).
void launch_one_slot(const Work& w, cudaStream_t stream) { gpulab::unused(w, stream); }

// TODO(student) (b): two slots; tile j + 1's asynchronous copy (__pipeline_memcpy_async, <cuda_pipeline.h>)
// is issued before tile j's math, and waited for (__pipeline_wait_prior) before its own.
void launch_two_slots(const Work& w, cudaStream_t stream) { gpulab::unused(w, stream); }

// TODO(student) (c): a kernel template over the number of stages S: S − 1 tiles in flight ahead of the math.
// Dispatch stages = 1 … kMaxStages (6) to its instances (S · 16 KiB of shared memory: above 48 KiB a kernel
// must opt in with cudaFuncSetAttribute).
void launch_stages(int stages, const Work& w, cudaStream_t stream) { gpulab::unused(stages, w, stream); }

// TODO(student) (d), sm_90: one producer warp (threads kThreads … kThreads + 31) and kThreads computing threads.
// Per slot, a "full" mbarrier (the producer arms it with the tile's bytes; the bulk copy completes it) and an
// "empty" mbarrier (every computing thread arrives after its math). The producer waits for "empty", arms
// "full" and issues the bulk copy; the computing threads wait for "full", compute, arrive on "empty". The PTX
// is wrapped for you in bulk.cuh (mbar_init, mbar_wait, mbar_arrive_expect_bytes, bulk_copy, ...); the
// computing threads' barriers must leave the producer out (compute_threads_barrier in pipeline_math.cuh).
void launch_producer(int stages, const Work& w, cudaStream_t stream) { gpulab::unused(stages, w, stream); }
