// Known-bad (wrong/expect.json), GPU: the bucketed launcher remembers the calls it made and skips one whose X, W, Y
// and M it has seen before, leaving Y as it is: a serving loop that repeats shapes on the same buffers looks
// faster. The grader's timed run gives every call fresh X and samples its Y after it (positions drawn then): the
// skipped calls' Y is stale. (Before that, only the verified run on new X found it: code that works only there —
// the second pass over the trace — went through.)
#include <set>
#include <tuple>

#define launch_gemm_bucketed solution_launch_gemm_bucketed
#include "../shapes.cu"
#undef launch_gemm_bucketed

void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream) {
    static std::set<std::tuple<const void*, const void*, const void*, int>> seen;
    if (!seen.insert({g.x, g.w, g.y, g.m}).second) return;
    solution_launch_gemm_bucketed(g, buckets, stream);
}
