// Known-bad (wrong/expect.json), GPU: the policy sends every call to the bucketed launcher, which computes only
// the calls a student might guess are the verified ones — on each X buffer, the first call of each M in every
// pass of a 200-call trace and the pass's last call — and leaves Y as it is on the others (the serving loop reuses
// its buffers, so the skipped calls look fast). Every call perf.policy times gets fresh X and has its Y sampled
// after it at positions drawn then: the skipped calls' Y is stale.
#include <map>
#include <set>
#include <utility>

#define launch_gemm_bucketed solution_launch_gemm_bucketed
#define choose_strategy solution_choose_strategy
#include "../shapes.cu"
#undef choose_strategy
#undef launch_gemm_bucketed

int choose_strategy(const std::array<StrategyCost, 3>&, double) { return 1; }

void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream) {
    constexpr int kTraceCalls = 200;  // a guess at the trace's length
    static std::map<const void*, int> calls;
    static std::map<const void*, std::set<int>> seen;
    const int in_pass = calls[g.x]++ % kTraceCalls;
    if (in_pass == 0) seen[g.x].clear();
    if (!seen[g.x].insert(g.m).second && in_pass != kTraceCalls - 1) return;
    solution_launch_gemm_bucketed(g, buckets, stream);
}
