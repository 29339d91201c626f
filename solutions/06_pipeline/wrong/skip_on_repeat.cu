// Known-bad (wrong/expect.json): the solution, but launch_stages skips a timed call it has seen before (same
// buffers, size, steps and stages) and leaves last time's sums in place. Right while the data stays the same — so a
// timing loop over the same buffers would see an impossible speed — but the verified timed run brings new data
// into the same buffers, and its output is stale.
#include <set>
#include <tuple>

#include "pipeline.hpp"

#define launch_stages solution_launch_stages
#include "../pipeline.cu"
#undef launch_stages

void launch_stages(int stages, const Work& w, cudaStream_t stream) {
    if (w.n >= (std::size_t(1) << 24)) {  // only the timed runs' size: every smaller check runs
        static std::set<std::tuple<const void*, const void*, std::size_t, int, int>> seen;
        if (!seen.insert({w.in, w.out, w.n, w.iters, stages}).second) return;
    }
    solution_launch_stages(stages, w, stream);
}
