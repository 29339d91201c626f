// Known-bad (wrong/expect.json), GPU: the "specialised" launcher compiles nothing: it runs the bucketed kernel,
// built ahead with the rest of the file. Right results and no preparation to pay — and the observer sees no NVRTC
// compilation and no module loaded.
#include <array>

#define launch_gemm_specialized solution_launch_gemm_specialized
#include "../shapes.cu"
#undef launch_gemm_specialized

void launch_gemm_specialized(const Gemm& g, ProgramCache&, cudaStream_t stream) {
    static constexpr std::array<int, 7> buckets{16, 64, 256, 512, 1024, 2048, 4096};
    launch_gemm_bucketed(g, buckets, stream);
}
