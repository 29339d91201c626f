// Shared by lab 08's known-bad versions: a plain GraphStep (capture once from a private stream, instantiate,
// replay), with at most one defect switched on by the including file, which defines:
//   kNoCopyIn          step_copy_in replays without copying the new input in: the graph reads a stale buffer
//   kEagerStep         step_direct launches the six kernels itself instead of replaying: right, and no graph
//   kRecaptureEachStep step_direct captures and instantiates the step again before each replay: right, slow
//   kIgnoreFused       the fused graph is captured with the separate SiLU and multiply: right bits, one node more
//   kSyncInCapture     the capture waits for its stream in the middle: the capture fails
//   kSkipRepeats       after its first 20 calls, step_direct replays only one call in four (a student hoping the
//                      timed loops repeat the same input): fast, and the verified steps after each timed run fail
//   kLaunchDirect      step_direct launches the graph with cudaGraphLaunch itself, not through the counting
//                      replay(): the code policy refuses it before anything runs
//   kUpdateByRecapture move_output_by_update captures and instantiates anew (right bits): the observer sees a new
//                      instance and no update of the replayed one
//   kShowFusedGraph    the fused GraphStep replays the unfused chain and hands graph() a fused capture that is never
//                      launched (a claim about itself): the observer counts the kernels that ran
//   kPredictVerified   step_direct replays for real only on an instance's first 10 calls (the correctness checks')
//                      and after its 200th (where the steps verified after a timed loop of 200 come, as anyone
//                      can read in checks.cu), and returns at once on the others
#pragma once

#include <stdexcept>
#include <string>

#include "graphs.hpp"
#include "labs/cuda_check.hpp"

struct GraphStep::Impl {
    const FfnModel& model;
    const StepBuffers& buffers;
    bool fused;
    __nv_bfloat16* input = nullptr;
    __nv_bfloat16* own_output = nullptr;
    __nv_bfloat16* output = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;

    long calls = 0;  // step_direct calls on this step (kPredictVerified)

    Impl(const FfnModel& m, const StepBuffers& b, bool f) : model(m), buffers(b), fused(f) {}

    cudaGraph_t capture() const { return capture(kIgnoreFused ? false : fused); }

    cudaGraph_t capture(bool fused_chain) const {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaGraph_t g = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        run_step_eager(model, buffers, input, output, fused_chain, s);
        if constexpr (kSyncInCapture) CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        CUDA_CHECK(cudaStreamDestroy(s));
        return g;
    }

    void instantiate() {
        if constexpr (kShowFusedGraph) {
            if (fused) {
                cudaGraph_t replayed = capture(false);
                CUDA_CHECK(cudaGraphInstantiate(&exec, replayed, 0));
                CUDA_CHECK(cudaGraphDestroy(replayed));
                graph = capture(true);  // shown, never launched
                return;
            }
        }
        graph = capture();
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    }

    void release() {
        if (exec) cudaGraphExecDestroy(exec);
        if (graph) cudaGraphDestroy(graph);
        exec = nullptr, graph = nullptr;
    }
};

GraphStep::GraphStep(const FfnModel& model, const StepBuffers& b, bool fused) : impl_(new Impl(model, b, fused)) {
    const std::size_t bytes = std::size_t(model.shape().m) * model.shape().hidden * sizeof(__nv_bfloat16);
    CUDA_CHECK(cudaMalloc(&impl_->input, bytes));
    CUDA_CHECK(cudaMalloc(&impl_->own_output, bytes));
    impl_->output = impl_->own_output;
    CUDA_CHECK(cudaMemset(impl_->input, 0, bytes));
    impl_->instantiate();
}

GraphStep::~GraphStep() {
    impl_->release();
    cudaFree(impl_->input);
    cudaFree(impl_->own_output);
    delete impl_;
}

__nv_bfloat16* GraphStep::input() { return impl_->input; }
__nv_bfloat16* GraphStep::output() { return impl_->output; }
cudaGraph_t GraphStep::graph() const { return impl_->graph; }

void GraphStep::step_copy_in(const __nv_bfloat16* src, cudaStream_t s) {
    const std::size_t bytes = std::size_t(impl_->model.shape().m) * impl_->model.shape().hidden * sizeof(__nv_bfloat16);
    if constexpr (!kNoCopyIn) CUDA_CHECK(cudaMemcpyAsync(impl_->input, src, bytes, cudaMemcpyDeviceToDevice, s));
    replay(impl_->exec, s);
}

void GraphStep::step_direct(cudaStream_t s) {
    if constexpr (kEagerStep) {
        run_step_eager(impl_->model, impl_->buffers, impl_->input, impl_->output, impl_->fused, s);
        return;
    }
    if constexpr (kSkipRepeats) {
        static long calls = 0;
        if (++calls > 20 && calls % 4 != 0) return;
    }
    if constexpr (kPredictVerified) {
        const long n = ++impl_->calls;
        if (n > 10 && n <= 200) return;
    }
    if constexpr (kRecaptureEachStep) {
        impl_->release();
        impl_->instantiate();
    }
    if constexpr (kLaunchDirect) {
        CUDA_CHECK(cudaGraphLaunch(impl_->exec, s));
        return;
    }
    replay(impl_->exec, s);
}

void GraphStep::move_output_by_update(__nv_bfloat16* y) {
    if constexpr (kUpdateByRecapture) {
        move_output_by_recapture(y);
        return;
    }
    impl_->output = y;
    cudaGraph_t fresh = impl_->capture();
    cudaGraphExecUpdateResultInfo info{};
    if (cudaGraphExecUpdate(impl_->exec, fresh, &info) != cudaSuccess || info.result != cudaGraphExecUpdateSuccess) {
        cudaGraphDestroy(fresh);
        throw std::runtime_error("cudaGraphExecUpdate refused the new capture (result " + std::to_string(int(info.result)) + ")");
    }
    CUDA_CHECK(cudaGraphDestroy(impl_->graph));
    impl_->graph = fresh;
}

void GraphStep::move_output_by_recapture(__nv_bfloat16* y) {
    impl_->output = y;
    impl_->release();
    impl_->instantiate();
}
