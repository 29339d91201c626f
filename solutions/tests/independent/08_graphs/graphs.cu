// Lab 08 — one decode step recorded once as a CUDA graph and replayed.
//
// GraphStep::Impl owns: a private non-blocking stream used only for recording, the buffer the recorded
// step reads (the "inbox"), a buffer it writes until told otherwise, the recorded graph and its executable
// instance. Recording never runs anything, so the private stream needs no ordering with the caller's
// streams; every replay and every copy goes onto the stream the caller passes in.
#include <stdexcept>
#include <string>
#include <utility>

#include "graphs.hpp"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"

namespace {

using bf16 = __nv_bfloat16;

bf16* device_activation(std::size_t elements) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, elements * sizeof(bf16)));
    return static_cast<bf16*>(p);
}

}  // namespace

struct GraphStep::Impl {
    const FfnModel& model;
    const StepBuffers& scratch;
    bool fused = false;
    std::size_t elements = 0;  // M · H values per step's input and output

    cudaStream_t recorder = nullptr;  // capture only; never synchronised with anything
    bf16* inbox = nullptr;            // what the instance reads (ours)
    bf16* home_out = nullptr;         // where it writes at first (ours)
    bf16* target = nullptr;           // where it writes now (ours, or a caller's buffer after a move)

    cudaGraph_t recorded = nullptr;   // always the graph the current instance was made from / updated to
    cudaGraphExec_t runnable = nullptr;

    Impl(const FfnModel& m, const StepBuffers& b, bool f) : model(m), scratch(b), fused(f) {
        const FfnShape& sh = m.shape();
        elements = std::size_t(sh.m) * std::size_t(sh.hidden);
    }

    // Records one eager step that reads the inbox and writes `out`; nothing runs. If a launcher throws
    // halfway, the capture is ended (and its partial graph dropped) before the error goes on.
    cudaGraph_t record(bf16* out) const {
        CUDA_CHECK(cudaStreamBeginCapture(recorder, cudaStreamCaptureModeThreadLocal));
        try {
            run_step_eager(model, scratch, inbox, out, fused, recorder);
        } catch (...) {
            cudaGraph_t partial = nullptr;
            (void)cudaStreamEndCapture(recorder, &partial);
            if (partial != nullptr) (void)cudaGraphDestroy(partial);
            (void)cudaGetLastError();
            throw;
        }
        cudaGraph_t g = nullptr;
        CUDA_CHECK(cudaStreamEndCapture(recorder, &g));
        if (g == nullptr) throw std::runtime_error("GraphStep: the capture produced no graph");
        return g;
    }

    void release_all() noexcept {
        if (runnable != nullptr) (void)cudaGraphExecDestroy(runnable);
        if (recorded != nullptr) (void)cudaGraphDestroy(recorded);
        if (inbox != nullptr) (void)cudaFree(inbox);
        if (home_out != nullptr) (void)cudaFree(home_out);
        if (recorder != nullptr) (void)cudaStreamDestroy(recorder);
        runnable = nullptr, recorded = nullptr, inbox = home_out = target = nullptr, recorder = nullptr;
    }
};

// (a) Everything that costs more than a launch happens here, once: buffers, stream, capture, instantiation.
GraphStep::GraphStep(const FfnModel& model, const StepBuffers& b, bool fused) : impl_(new Impl(model, b, fused)) {
    Impl& s = *impl_;
    try {
        s.inbox = device_activation(s.elements);
        s.home_out = device_activation(s.elements);
        s.target = s.home_out;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s.recorder, cudaStreamNonBlocking));
        // A defined input until the first producer writes one (a replay before that reads zeros).
        CUDA_CHECK(cudaMemsetAsync(s.inbox, 0, s.elements * sizeof(bf16), s.recorder));
        CUDA_CHECK(cudaStreamSynchronize(s.recorder));
        s.recorded = s.record(s.target);
        CUDA_CHECK(cudaGraphInstantiate(&s.runnable, s.recorded, 0));
    } catch (...) {
        s.release_all();
        delete impl_;
        impl_ = nullptr;
        throw;
    }
}

// The caller's output buffers (after a move) are not ours: only what the constructor made is freed.
GraphStep::~GraphStep() {
    if (impl_ == nullptr) return;
    impl_->release_all();
    delete impl_;
}

__nv_bfloat16* GraphStep::input() { return impl_->inbox; }
__nv_bfloat16* GraphStep::output() { return impl_->target; }
cudaGraph_t GraphStep::graph() const { return impl_->recorded; }

// (b) New input copied into the inbox, then one replay: both ordered on `s`, nothing waited for.
void GraphStep::step_copy_in(const __nv_bfloat16* src, cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(impl_->inbox, src, impl_->elements * sizeof(bf16), cudaMemcpyDeviceToDevice, s));
    replay(impl_->runnable, s);
}

// (b) The producer already wrote the inbox on `s`: a single counted graph launch, nothing else.
void GraphStep::step_direct(cudaStream_t s) { replay(impl_->runnable, s); }

// (d) Record the step again with the new destination and patch the existing instance from it. The
// instance stays the same object; only the last projection's output argument differs.
void GraphStep::move_output_by_update(__nv_bfloat16* y) {
    Impl& s = *impl_;
    cudaGraph_t candidate = s.record(y);
    cudaGraphExecUpdateResultInfo info{};
    const cudaError_t status = cudaGraphExecUpdate(s.runnable, candidate, &info);
    if (status != cudaSuccess || info.result != cudaGraphExecUpdateSuccess) {
        (void)cudaGetLastError();  // an update failure is not sticky; leave no error behind
        (void)cudaGraphDestroy(candidate);
        throw std::runtime_error("GraphStep::move_output_by_update: cudaGraphExecUpdate refused the new graph (" +
                                 std::string(cudaGetErrorName(status)) + ", update result " +
                                 std::to_string(static_cast<int>(info.result)) + ")");
    }
    std::swap(s.recorded, candidate);
    (void)cudaGraphDestroy(candidate);  // the graph the instance no longer matches
    s.target = y;
}

// (d) The same move by a fresh recording and a fresh instance; the old instance is destroyed (a replay of
// it still in flight finishes first: the runtime frees it when it completes).
void GraphStep::move_output_by_recapture(__nv_bfloat16* y) {
    Impl& s = *impl_;
    cudaGraph_t fresh = s.record(y);
    cudaGraphExec_t instance = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&instance, fresh, 0);
    if (made != cudaSuccess) {
        (void)cudaGraphDestroy(fresh);
        CUDA_CHECK(made);
    }
    (void)cudaGraphExecDestroy(s.runnable);
    (void)cudaGraphDestroy(s.recorded);
    s.runnable = instance;
    s.recorded = fresh;
    s.target = y;
}
