// Lab 12 — your analysis of a request. Read README.md first; request.hpp says what each function must return.
// Every function here is host code: it sees a trace (stages, lanes, waits) or measured times, nothing else.
#include <string>
#include <vector>

#include "request.hpp"

namespace request {

// (a) The critical path: each stage starts when the last of its predecessors ends (the stage before it on its lane,
//     and the `before` of each wait that names it as `after`), and runs for duration_us[i].
Path critical_path(const Trace& t, const std::vector<double>& duration_us) {
    (void)t, (void)duration_us;
    // TODO: the earliest end of every stage, in stage order; the latest end; a longest chain back from it.
    return {};
}

// (b) The saving of the operator's stages at `factor` of their time: Amdahl's and the critical path's.
Prediction predict(const Trace& t, const std::string& op, double factor) {
    (void)t, (void)op, (void)factor;
    // TODO
    return {};
}

// (c) The paired statistic, with its bootstrap interval drawn by Resampler(seed) as request.hpp states.
Paired paired(const std::vector<double>& before, const std::vector<double>& after, std::uint64_t seed) {
    (void)before, (void)after, (void)seed;
    // TODO
    return {};
}

// (d) The operator worth speeding up.
Lever most_helpful(const Trace& t) {
    (void)t;
    // TODO
    return {};
}

// (d) How far one stage can shrink before another chain holds the request.
double knee_us(const Trace& t, int stage) {
    (void)t, (void)stage;
    // TODO
    return 0;
}

}  // namespace request
