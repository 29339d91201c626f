// Known-bad (wrong/expect.json), GPU: the specialised launcher computes a shape's first 32 calls in a row, then
// only one call in four, leaving Y as it is on the others. A long run of one M (measure.crossover's) looks about
// four times faster than it is, and so does the T timed back to back; every call of the crossover's runs gets
// fresh X and has its Y sampled after it at positions drawn then, so the skipped calls' Y is stale.

#define launch_gemm_specialized solution_launch_gemm_specialized
#include "../shapes.cu"
#undef launch_gemm_specialized

void launch_gemm_specialized(const Gemm& g, ProgramCache& cache, cudaStream_t stream) {
    static int last_m = -1;
    static long in_a_row = 0;
    in_a_row = g.m == last_m ? in_a_row + 1 : 0;
    last_m = g.m;
    if (in_a_row >= 32 && in_a_row % 4 != 0) return;
    solution_launch_gemm_specialized(g, cache, stream);
}
