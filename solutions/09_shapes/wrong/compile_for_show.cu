// Known-bad (wrong/expect.json), GPU: the "specialised" launcher compiles and runs a program for a one-row call
// on the side (so NVRTC is asked, a module is loaded and its kernel runs), then computes the real call with the
// bucketed kernel built ahead: the observer sees a kernel of the graded code's own objects doing the work.
#include <array>

#define launch_gemm_specialized solution_launch_gemm_specialized
#include "../shapes.cu"
#undef launch_gemm_specialized

void launch_gemm_specialized(const Gemm& g, ProgramCache& cache, cudaStream_t stream) {
    Gemm one = g;
    one.m = 1;  // writes row 0 of Y, which the real call below writes again
    solution_launch_gemm_specialized(one, cache, stream);
    static constexpr std::array<int, 7> buckets{16, 64, 256, 512, 1024, 2048, 4096};
    launch_gemm_bucketed(g, buckets, stream);
}
