// Lab 12 — the reference solution. Read labs/12_request/README.md first.
//
// (a) One pass in stage order: a stage's predecessors all have lower indices (the previous stage of its lane, and the
//     `before` of its waits), so when stage i is reached every predecessor's earliest end is known. Each stage keeps
//     the predecessor that ended last; following those links back from the stage that ends last gives a longest chain.
// (b) Amdahl adds the operator's stages as if they ran one after another; the path recomputes the longest chain with
//     the operator's stages scaled — a stage off the critical path saves nothing, and a stage on it saves only until
//     another chain is longer.
// (c) The paired differences, their median, and the median of each bootstrap resample drawn with the given Resampler.
// (d) Each operator's stages set to zero in turn; the knee from the path with the stage at its duration and at zero.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "request.hpp"

namespace request {

Path critical_path(const Trace& t, const std::vector<double>& duration_us) {
    const std::size_t n = t.stages.size();
    if (duration_us.size() != n) throw std::invalid_argument("critical_path: one duration per stage");
    std::vector<std::vector<int>> preds(n);
    std::vector<int> last_on_lane;  // by lane: the latest stage seen so far, -1 for none
    for (std::size_t i = 0; i < n; ++i) {
        const int lane = t.stages[i].lane;
        if (lane < 0) throw std::invalid_argument("critical_path: a negative lane");
        if (std::size_t(lane) >= last_on_lane.size()) last_on_lane.resize(std::size_t(lane) + 1, -1);
        if (last_on_lane[std::size_t(lane)] >= 0) preds[i].push_back(last_on_lane[std::size_t(lane)]);
        last_on_lane[std::size_t(lane)] = static_cast<int>(i);
    }
    for (const Wait& w : t.waits) {
        if (w.before < 0 || w.after < 0 || std::size_t(w.after) >= n || w.before >= w.after)
            throw std::invalid_argument("critical_path: a wait must point from an earlier stage to a later one");
        preds[std::size_t(w.after)].push_back(w.before);
    }
    std::vector<double> end(n, 0.0);
    std::vector<int> via(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        double start = 0;
        for (int p : preds[i])
            if (via[i] < 0 || end[std::size_t(p)] > start) start = end[std::size_t(p)], via[i] = p;
        end[i] = start + duration_us[i];
    }
    Path path;
    int at = 0;
    for (std::size_t i = 1; i < n; ++i)
        if (end[i] > end[std::size_t(at)]) at = static_cast<int>(i);
    path.length_us = n == 0 ? 0 : end[std::size_t(at)];
    for (; at >= 0 && n > 0; at = via[std::size_t(at)]) path.stages.push_back(at);
    std::reverse(path.stages.begin(), path.stages.end());
    return path;
}

Prediction predict(const Trace& t, const std::string& op, double factor) {
    const std::vector<double> before = t.durations_us();
    std::vector<double> after = before;
    double op_total = 0;
    for (std::size_t i = 0; i < t.stages.size(); ++i)
        if (t.stages[i].op == op) {
            op_total += before[i];
            after[i] = before[i] * factor;
        }
    return {.amdahl_saving_us = op_total * (1.0 - factor),
            .path_saving_us = critical_path(t, before).length_us - critical_path(t, after).length_us};
}

Paired paired(const std::vector<double>& before, const std::vector<double>& after, std::uint64_t seed) {
    if (before.empty() || before.size() != after.size()) throw std::invalid_argument("paired: two lists of the same length");
    const std::size_t n = before.size();
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = before[i] - after[i];
    Resampler draw(seed);
    std::vector<double> medians(kResamples), sample(n);
    for (int b = 0; b < kResamples; ++b) {
        for (std::size_t k = 0; k < n; ++k) sample[k] = d[draw.below(n)];
        medians[std::size_t(b)] = median(sample);
    }
    std::sort(medians.begin(), medians.end());
    return {.median_difference_us = median(d),
            .low_us = medians[static_cast<std::size_t>(std::floor(0.025 * kResamples))],
            .high_us = medians[static_cast<std::size_t>(std::ceil(0.975 * kResamples)) - 1],
            .difference_of_medians_us = median(before) - median(after)};
}

Lever most_helpful(const Trace& t) {
    const std::vector<double> d = t.durations_us();
    const double now = critical_path(t, d).length_us;
    Lever best;
    best.saving_if_free_us = -1;
    for (std::size_t i = 0; i < t.stages.size(); ++i) {
        const std::string& op = t.stages[i].op;
        bool seen = false;
        for (std::size_t j = 0; j < i && !seen; ++j) seen = t.stages[j].op == op;
        if (seen) continue;  // each operator once, at its first stage
        std::vector<double> free = d;
        for (std::size_t j = 0; j < t.stages.size(); ++j)
            if (t.stages[j].op == op) free[j] = 0;
        const double saving = now - critical_path(t, free).length_us;
        if (saving > best.saving_if_free_us) best = {op, saving};
    }
    return best;
}

double knee_us(const Trace& t, int stage) {
    if (stage < 0 || std::size_t(stage) >= t.stages.size()) throw std::invalid_argument("knee_us: no such stage");
    std::vector<double> d = t.durations_us();
    const double own = d[std::size_t(stage)];
    const double with = critical_path(t, d).length_us;
    d[std::size_t(stage)] = 0;
    const double without = critical_path(t, d).length_us;
    // The path is max(through + δ, elsewhere): it falls one for one with δ down to the knee, then stays.
    return std::clamp(own - (with - without), 0.0, own);
}

}  // namespace request
