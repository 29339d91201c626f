// Known-bad (wrong/expect.json): (b) lets the next step launch early and loads its weights early, but never waits for
// the previous step: it reads x while the previous kernel may still be writing it (the grader's poison, or the old
// values). Its machine code holds no griddepcontrol.wait (code.pdl), and the chain's bits differ wherever a step read
// too early (correct.pdl.*, at the chapter's chain at least).
#define launch_chain_pdl solution_pdl_unused
#include "../chain.cu"
#undef launch_chain_pdl

namespace {

__global__ void __launch_bounds__(kThreads, 2) no_wait_kernel(const __nv_bfloat16* w, const __nv_bfloat16* x, __nv_bfloat16* y, int dim) {
    chain::pdl_launch_dependents();
    const int row = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const uint4* w_row = reinterpret_cast<const uint4*>(w + std::size_t(row) * dim);
    uint4 early[kEarlyChunks];
    if (row >= dim) return;
    load_early(early, w_row, dim, lane);
    // (no chain::pdl_wait(): x is read at once)
    const float acc = lane_dot(early, w_row, reinterpret_cast<const uint4*>(x), dim, lane);
    const __nv_bfloat16 v = chain::to_bf16(chain::warp_sum(acc));
    if (lane == 0) y[row] = v;
}

}  // namespace

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
        CUDA_CHECK(cudaLaunchKernelEx(&config, no_wait_kernel, a.w + std::size_t(s) * a.dim * a.dim,
                                      static_cast<const __nv_bfloat16*>(a.x + std::size_t(s) * a.dim),
                                      a.x + std::size_t(s + 1) * a.dim, a.dim));
}
