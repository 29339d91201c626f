// Fairness notes of a performance check: timings that did not converge, a throttled GPU clock.
#include "grader/fairness.hpp"

#include <cstdio>

namespace gpulab::grader {
namespace {

struct Reason {
    std::uint64_t bit;
    const char* name;   // nvml.h's, in snake case
    const char* words;  // for a note ("" : not throttling)
};

constexpr Reason kReasons[] = {
    {kClocksEventGpuIdle, "gpu_idle", ""},
    {kClocksEventApplicationsClocksSetting, "applications_clocks_setting", ""},
    {kClocksEventSwPowerCap, "sw_power_cap", "power cap"},
    {kClocksEventHwSlowdown, "hw_slowdown", "HW slowdown"},
    {kClocksEventSyncBoost, "sync_boost", ""},
    {kClocksEventSwThermalSlowdown, "sw_thermal_slowdown", "thermal slowdown"},
    {kClocksEventHwThermalSlowdown, "hw_thermal_slowdown", "HW thermal slowdown"},
    {kClocksEventHwPowerBrakeSlowdown, "hw_power_brake_slowdown", "power brake"},
    {kClocksEventDisplayClockSetting, "display_clock_setting", ""},
};

bool is_timing(const nlohmann::json& j) {
    return j.is_object() && j.contains("converged") && j["converged"].is_boolean() && j.contains("median_ms") &&
           j["median_ms"].is_number() && j.contains("rel_ci") && j["rel_ci"].is_number() && j.contains("count") &&
           j["count"].is_number();
}

// Every TimingResult-shaped object in @p j that did not converge, with its place ("work", "v2.baseline").
void find_unconverged(const nlohmann::json& j, const std::string& path,
                      std::vector<std::pair<std::string, const nlohmann::json*>>& out) {
    if (is_timing(j)) {
        if (!j["converged"].get<bool>()) out.emplace_back(path.empty() ? "timing" : path, &j);
        return;
    }
    if (j.is_object())
        for (const auto& [key, value] : j.items()) find_unconverged(value, path.empty() ? key : path + "." + key, out);
    else if (j.is_array())
        for (std::size_t i = 0; i < j.size(); ++i) find_unconverged(j[i], path + "[" + std::to_string(i) + "]", out);
}

}  // namespace

std::vector<std::string> clock_event_names(std::uint64_t reasons) {
    std::vector<std::string> names;
    std::uint64_t known = 0;
    for (const Reason& r : kReasons) {
        known |= r.bit;
        if (reasons & r.bit) names.emplace_back(r.name);
    }
    for (int b = 0; b < 64; ++b) {
        const std::uint64_t bit = std::uint64_t(1) << b;
        if ((reasons & bit) && !(known & bit)) {
            char buf[24];
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(bit));
            names.emplace_back(buf);
        }
    }
    return names;
}

std::vector<std::string> throttling_reasons(std::uint64_t reasons) {
    std::vector<std::string> names;
    for (const Reason& r : kReasons)
        if ((reasons & r.bit) && (kThrottlingClocksEvents & r.bit)) names.emplace_back(r.name);
    return names;
}

std::optional<FairnessNote> unconverged_timing_note(const nlohmann::json& details) {
    std::vector<std::pair<std::string, const nlohmann::json*>> found;
    find_unconverged(details, "", found);
    if (found.empty()) return std::nullopt;
    FairnessNote n;
    n.kind = "timing_not_converged";
    std::string list;
    for (const auto& [path, t] : found) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s: median ±%.2g%% after %d runs", path.c_str(), 100 * (*t)["rel_ci"].get<double>(),
                      (*t)["count"].get<int>());
        list += (list.empty() ? "" : "; ") + std::string(buf);
        n.about.push_back(path);
    }
    n.note = "timing did not converge (" + list + ")";
    return n;
}

std::optional<FairnessNote> throttle_note(std::optional<std::uint64_t> before, std::optional<std::uint64_t> after) {
    const std::uint64_t at_start = before.value_or(0) & kThrottlingClocksEvents;
    const std::uint64_t at_end = after.value_or(0) & kThrottlingClocksEvents;
    if ((at_start | at_end) == 0) return std::nullopt;
    FairnessNote n;
    n.kind = "clock_throttled";
    std::string words;
    for (const Reason& r : kReasons)
        if ((at_start | at_end) & r.bit) {
            words += (words.empty() ? "" : ", ") + std::string(r.words);
            n.about.emplace_back(r.name);
        }
    n.note = "GPU clock throttled (" + words + ") " +
             (at_start && at_end ? "when the check started and when its timing ended"
              : at_start         ? "when the check started"
                                 : "when its timing ended");
    return n;
}

std::vector<FairnessNote> fairness_notes(const nlohmann::json& details, std::optional<std::uint64_t> before,
                                         std::optional<std::uint64_t> after) {
    std::vector<FairnessNote> notes;
    if (auto n = unconverged_timing_note(details)) notes.push_back(std::move(*n));
    if (auto n = throttle_note(before, after)) notes.push_back(std::move(*n));
    return notes;
}

std::string fairness_text(const std::vector<FairnessNote>& notes) {
    std::string s;
    for (const FairnessNote& n : notes) s += (s.empty() ? "" : "; ") + n.note;
    return s;
}

void to_json(nlohmann::json& j, const FairnessNote& n) {
    j = nlohmann::json{{"kind", n.kind}, {"note", n.note}, {"about", n.about}};
}

void from_json(const nlohmann::json& j, FairnessNote& n) {
    n.kind = j.at("kind").get<std::string>();
    n.note = j.at("note").get<std::string>();
    n.about = j.value("about", std::vector<std::string>{});
}

}  // namespace gpulab::grader
