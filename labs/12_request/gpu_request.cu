// FROZEN: do not edit. Lab 12's request on the GPU (gpu_request.hpp), from lab 08's given kernels.
#include "gpu_request.hpp"

#include <stdexcept>

#include "graphs.hpp"  // lab 08's given FFN kernels and buffers
#include "labs/cuda_check.hpp"
#include "labs/random.hpp"

namespace request {

struct GpuRequest::State {
    FfnModel prefill, decode;
    StepBuffers prefill_buffers, decode_buffers;
    __nv_bfloat16 *prompt = nullptr, *w_kv = nullptr, *kv = nullptr, *token = nullptr, *next = nullptr;
    cudaEvent_t fork = nullptr, join = nullptr;

    State(const GpuRequestShape& s, std::uint64_t seed)
        : prefill({s.prompt, s.hidden, s.ffn, s.layers}, seed), decode({1, s.hidden, s.ffn, s.layers}, seed),
          prefill_buffers(prefill.shape()), decode_buffers(decode.shape()) {
        const std::size_t ph = std::size_t(s.prompt) * s.hidden, hh = std::size_t(s.hidden) * s.hidden;
        CUDA_CHECK(cudaMalloc(&prompt, ph * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&kv, ph * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&w_kv, hh * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&token, std::size_t(s.hidden) * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&next, std::size_t(s.hidden) * sizeof(__nv_bfloat16)));
        gpulab::fill_uniform_bf16_device(prompt, ph, seed + 101, -1.0f, 1.0f);
        gpulab::fill_uniform_bf16_device(w_kv, hh, seed + 102, -0.05f, 0.05f);
        gpulab::fill_uniform_bf16_device(token, std::size_t(s.hidden), seed + 103, -1.0f, 1.0f);
        CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    ~State() {
        for (__nv_bfloat16* p : {prompt, w_kv, kv, token, next}) cudaFree(p);
        cudaEventDestroy(fork);
        cudaEventDestroy(join);
    }
};

GpuRequest::GpuRequest(const GpuRequestShape& shape, std::uint64_t seed) : shape_(shape) {
    if (shape.prompt < 1 || shape.steps < 1 || shape.kv_passes < 1) throw std::invalid_argument("GpuRequest: empty shape");
    state_ = std::make_unique<State>(shape, seed);
}

GpuRequest::~GpuRequest() = default;

void GpuRequest::enqueue(bool fused, cudaStream_t main, cudaStream_t side) {
    State& st = *state_;
    const GpuRequestShape& s = shape_;
    // The kv branch starts with the request (forked from main before its first kernel) ...
    CUDA_CHECK(cudaEventRecord(st.fork, main));
    CUDA_CHECK(cudaStreamWaitEvent(side, st.fork, 0));
    for (int k = 0; k < s.kv_passes; ++k) launch_projection(st.prompt, st.w_kv, st.kv, s.prompt, s.hidden, s.hidden, side);
    CUDA_CHECK(cudaEventRecord(st.join, side));
    // ... beside the prefill on main; the decode waits for both.
    run_step_eager(st.prefill, st.prefill_buffers, st.prompt, st.prefill_buffers.x1, fused, main);
    CUDA_CHECK(cudaStreamWaitEvent(main, st.join, 0));
    for (int t = 0; t < s.steps; ++t)
        run_step_eager(st.decode, st.decode_buffers, t % 2 == 0 ? st.token : st.next, t % 2 == 0 ? st.next : st.token, fused, main);
}

int GpuRequest::kernels(bool fused, int lane) const {
    const int per_layer = fused ? 5 : 6;
    return lane == 1 ? shape_.kv_passes : per_layer * shape_.layers * (1 + shape_.steps);
}

std::vector<WaitPoint> GpuRequest::waits(bool fused) const {
    // The fork has no kernel before it on main: it orders nothing a trace shows. The join: the last kv projection
    // before the first decode kernel.
    const int prefill = (fused ? 5 : 6) * shape_.layers;
    return {{1, shape_.kv_passes - 1, 0, prefill}};
}

std::string GpuRequest::op_of(const std::string& name, int lane) {
    const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
    if (has("rmsnorm_kernel")) return "norm";
    if (has("projection")) return lane == 1 ? "kv projection" : "ffn projection";
    if (has("silu") || has("mul_kernel")) return "activation";
    return {};
}

}  // namespace request
