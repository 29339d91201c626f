// Lab 08 solution. What each part does, and why:
// (a) The step is captured once from a private stream into a graph — the same launchers the eager step uses, so
//     the same kernels with the same arguments — and instantiated; a step is then one replay().
// (b) A graph reads the addresses it captured. The step's input lives in a buffer of the graph's own: either the
//     new input is copied into it (one more copy per step, 2·X bytes of traffic), or the producer writes its
//     result there directly (input()) and the copy disappears.
// (c) The fused chain is the same capture with launch_silu_mul: five kernels per layer instead of six.
// (d) Moving the output: capture the step again with the new pointer, then either cudaGraphExecUpdate() — the
//     topology is the same, only a kernel argument changed, so the instantiated graph is patched in place — or
//     instantiate the new capture from scratch (the slower way, timed against it).
#include <stdexcept>
#include <string>

#include "graphs.hpp"
#include "labs/cuda_check.hpp"

struct GraphStep::Impl {
    const FfnModel& model;
    const StepBuffers& buffers;
    bool fused;
    __nv_bfloat16* input = nullptr;
    __nv_bfloat16* own_output = nullptr;  // allocated here; freed here whatever output points to later
    __nv_bfloat16* output = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;

    Impl(const FfnModel& m, const StepBuffers& b, bool f) : model(m), buffers(b), fused(f) {}

    // The step, captured with the current input and output; the caller owns the graph.
    cudaGraph_t capture() const {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaGraph_t g = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        run_step_eager(model, buffers, input, output, fused, s);
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        CUDA_CHECK(cudaStreamDestroy(s));
        return g;
    }
};

GraphStep::GraphStep(const FfnModel& model, const StepBuffers& b, bool fused) : impl_(new Impl(model, b, fused)) {
    const std::size_t bytes = std::size_t(model.shape().m) * model.shape().hidden * sizeof(__nv_bfloat16);
    CUDA_CHECK(cudaMalloc(&impl_->input, bytes));
    CUDA_CHECK(cudaMalloc(&impl_->own_output, bytes));
    impl_->output = impl_->own_output;
    CUDA_CHECK(cudaMemset(impl_->input, 0, bytes));
    impl_->graph = impl_->capture();
    CUDA_CHECK(cudaGraphInstantiate(&impl_->exec, impl_->graph, 0));
}

GraphStep::~GraphStep() {
    if (impl_->exec) cudaGraphExecDestroy(impl_->exec);
    if (impl_->graph) cudaGraphDestroy(impl_->graph);
    cudaFree(impl_->input);
    cudaFree(impl_->own_output);
    delete impl_;
}

__nv_bfloat16* GraphStep::input() { return impl_->input; }
__nv_bfloat16* GraphStep::output() { return impl_->output; }
cudaGraph_t GraphStep::graph() const { return impl_->graph; }

void GraphStep::step_copy_in(const __nv_bfloat16* src, cudaStream_t s) {
    const std::size_t bytes = std::size_t(impl_->model.shape().m) * impl_->model.shape().hidden * sizeof(__nv_bfloat16);
    CUDA_CHECK(cudaMemcpyAsync(impl_->input, src, bytes, cudaMemcpyDeviceToDevice, s));
    replay(impl_->exec, s);
}

void GraphStep::step_direct(cudaStream_t s) { replay(impl_->exec, s); }

void GraphStep::move_output_by_update(__nv_bfloat16* y) {
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
    CUDA_CHECK(cudaGraphExecDestroy(impl_->exec));
    CUDA_CHECK(cudaGraphDestroy(impl_->graph));
    impl_->graph = impl_->capture();
    CUDA_CHECK(cudaGraphInstantiate(&impl_->exec, impl_->graph, 0));
}
