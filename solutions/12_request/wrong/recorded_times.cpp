// Known-bad (wrong/expect.json): (a) reads the request's length off the recorded times (the last end) instead of
// scheduling the durations: it counts the gaps the trace shows (late launches) as if they were work, and it ignores
// the durations it is given. Its (b) and (d) are the solution's, which schedule the durations themselves.
#define critical_path solution_critical_path_unused
#include "../analysis.cpp"
#undef critical_path

namespace request {

Path critical_path(const Trace& t, const std::vector<double>& duration_us) {
    (void)duration_us;
    Path p;
    int last = 0;
    for (std::size_t i = 0; i < t.stages.size(); ++i)
        if (t.stages[i].end_us > t.stages[std::size_t(last)].end_us) last = static_cast<int>(i);
    p.length_us = t.stages.empty() ? 0 : t.stages[std::size_t(last)].end_us;
    p.stages = {last};
    return p;
}

}  // namespace request
