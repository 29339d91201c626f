// Known-bad (wrong/expect.json), GPU: the bucketed launcher runs the solution's bucket kernel with M raised to the
// bucket, so it reads X and writes Y past the call's M rows (right values in the first M rows).
#define launch_gemm_bucketed solution_launch_gemm_bucketed
#include "../shapes.cu"
#undef launch_gemm_bucketed

void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream) {
    Gemm padded = g;  // M raised to the smallest bucket that holds it
    padded.m = 0;
    for (const int b : buckets)
        if (b >= g.m && (padded.m == 0 || b < padded.m)) padded.m = b;
    solution_launch_gemm_bucketed(padded, buckets, stream);
}
