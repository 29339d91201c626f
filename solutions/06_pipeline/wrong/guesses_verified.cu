// Known-bad (wrong/expect.json): the solution, but launch_stages works only on the large calls it guesses are
// verified — the first on a set of buffers, then every 12th — and launches nothing on the others. Every timed call
// gets new data and a scrambled output, and the calls verified are drawn afterwards from a secret: most of them
// are wrong.
#include <map>
#include <tuple>

#include "pipeline.hpp"

#define launch_stages solution_launch_stages
#include "../pipeline.cu"
#undef launch_stages

void launch_stages(int stages, const Work& w, cudaStream_t stream) {
    if (w.n >= (std::size_t(1) << 24)) {
        static std::map<std::tuple<const void*, const void*, std::size_t, int, int>, int> calls;
        const int n = ++calls[{w.in, w.out, w.n, w.iters, stages}];
        if (n != 1 && n % 12 != 0) return;
    }
    solution_launch_stages(stages, w, stream);
}
