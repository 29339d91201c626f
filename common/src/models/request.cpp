// Amdahl's law and the critical path of a stage graph.
#include "labs/models/request.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpulab::models {

double amdahl_speedup(double f, double s) {
    if (f < 0 || f > 1) throw std::invalid_argument("the fraction must be within 0..1");
    if (!(s > 0)) throw std::invalid_argument("the stage's speed-up must be positive");
    return 1.0 / ((1.0 - f) + f / s);
}

double amdahl_limit(double f) {
    if (f < 0 || f >= 1) throw std::invalid_argument("the fraction must be within 0..1 (exclusive of 1)");
    return 1.0 / (1.0 - f);
}

CriticalPath critical_path(const std::vector<Task>& tasks) {
    std::map<std::string, const Task*> by_name;
    for (const Task& t : tasks) {
        if (t.duration_us < 0) throw std::invalid_argument("stage '" + t.name + "' has a negative duration");
        if (!by_name.emplace(t.name, &t).second) throw std::invalid_argument("duplicate stage '" + t.name + "'");
    }
    for (const Task& t : tasks) {
        for (const std::string& d : t.deps) {
            if (!by_name.contains(d)) throw std::invalid_argument("stage '" + t.name + "' waits for unknown '" + d + "'");
        }
    }
    CriticalPath cp;
    std::map<std::string, std::string> slowest_dep;  // which dependency finished last
    // Repeatedly settle every stage whose dependencies are settled; no progress means a cycle.
    while (cp.finish_us.size() < tasks.size()) {
        bool progressed = false;
        for (const Task& t : tasks) {
            if (cp.finish_us.contains(t.name)) continue;
            const bool ready = std::all_of(t.deps.begin(), t.deps.end(), [&](const std::string& d) { return cp.finish_us.contains(d); });
            if (!ready) continue;
            double start = 0;  // the stage starts when its last dependency finishes
            for (const std::string& d : t.deps) {
                if (!slowest_dep.contains(t.name) || cp.finish_us[d] > start) {
                    start = cp.finish_us[d];
                    slowest_dep[t.name] = d;
                }
            }
            cp.finish_us[t.name] = start + t.duration_us;
            progressed = true;
        }
        if (!progressed) throw std::invalid_argument("the stages wait for each other in a cycle");
    }
    // Walk back from the stage that finishes last.
    std::string at;
    for (const auto& [name, finish] : cp.finish_us) {
        if (at.empty() || finish > cp.length_us) {
            at = name;
            cp.length_us = finish;
        }
    }
    while (!at.empty()) {
        cp.path.insert(cp.path.begin(), at);
        const auto it = slowest_dep.find(at);
        at = it == slowest_dep.end() ? std::string() : it->second;
    }
    return cp;
}

double knee_us(const std::vector<Task>& tasks, const std::string& name) {
    std::vector<Task> t = tasks;
    const auto it = std::find_if(t.begin(), t.end(), [&](const Task& x) { return x.name == name; });
    if (it == t.end()) throw std::invalid_argument("no stage '" + name + "'");
    const double own = it->duration_us;
    const double with = critical_path(t).length_us;
    it->duration_us = 0;
    const double without = critical_path(t).length_us;
    // The path is max(through the stage + its duration, every other chain): it falls one for one down to the knee.
    return std::clamp(own - (with - without), 0.0, own);
}

double median(std::vector<double> values) {
    if (values.empty()) throw std::invalid_argument("the median of no values");
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double per_call_saving_us(double old_total_ms, double new_total_ms, double calls) {
    if (!(calls > 0)) throw std::invalid_argument("per_call_saving_us: calls must be positive");
    return (old_total_ms - new_total_ms) * 1e3 / calls;
}

}  // namespace gpulab::models
