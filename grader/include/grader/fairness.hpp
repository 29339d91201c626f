/**
 * @file fairness.hpp
 * @brief Whether a performance check was measured under fair conditions: its timings converged (their
 * medians are known to the precision the timing protocol asks for) and the GPU's clock was not throttled
 * (power cap, thermal or hardware slowdown, as NVML's clocks-event reasons say) when the check started or
 * when its timing ended.
 *
 * A note changes no points: it tells the student and the instructor that a measurement may be worth taking
 * again (`grader --only ID`), and the gradebook flags the student UNSTABLE. The logic here is pure (no GPU,
 * no NVML) so that it can be tested anywhere; the code runner reads the clocks-event reasons through
 * GpuHooks::clock_events.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab::grader {

/// @name NVML clocks-event (throttle) reasons: the bits of nvmlDeviceGetCurrentClocksEventReasons (nvml.h)
/// @{
inline constexpr std::uint64_t kClocksEventGpuIdle = 0x1;                  ///< nothing runs: ignored
inline constexpr std::uint64_t kClocksEventApplicationsClocksSetting = 0x2;  ///< clocks set by an administrator: ignored
inline constexpr std::uint64_t kClocksEventSwPowerCap = 0x4;              ///< the power cap holds the clock down
inline constexpr std::uint64_t kClocksEventHwSlowdown = 0x8;              ///< hardware slowdown (temperature, power brake, power)
inline constexpr std::uint64_t kClocksEventSyncBoost = 0x10;              ///< held to a sync-boost group's clock: ignored
inline constexpr std::uint64_t kClocksEventSwThermalSlowdown = 0x20;      ///< the driver slows the clock: too hot
inline constexpr std::uint64_t kClocksEventHwThermalSlowdown = 0x40;      ///< the hardware slows the clock: too hot
inline constexpr std::uint64_t kClocksEventHwPowerBrakeSlowdown = 0x80;   ///< an external power brake
inline constexpr std::uint64_t kClocksEventDisplayClockSetting = 0x100;   ///< the display clock: ignored
/// @}

/** @brief The reasons that count as throttling: power cap, thermal, hardware slowdown, power brake. */
inline constexpr std::uint64_t kThrottlingClocksEvents = kClocksEventSwPowerCap | kClocksEventHwSlowdown |
                                                         kClocksEventSwThermalSlowdown | kClocksEventHwThermalSlowdown |
                                                         kClocksEventHwPowerBrakeSlowdown;

/** @brief One reason a measurement may not be fair. */
struct FairnessNote {
    /// "timing_not_converged" (a timing's median is not known to the protocol's precision) or
    /// "clock_throttled" (a throttling clocks-event reason was active).
    std::string kind;
    std::string note;                ///< one line, as the check's message ends with it
    std::vector<std::string> about;  ///< the timings (their place in the check's details, "work") or the reasons ("sw_power_cap")
};

/** @brief The names of the reasons set in @p reasons, as nvml.h names them in snake case ("gpu_idle",
 *  "sw_power_cap"); unknown bits as "0x200". @param reasons a clocks-event reason bitmask */
[[nodiscard]] std::vector<std::string> clock_event_names(std::uint64_t reasons);

/** @brief The throttling reasons (kThrottlingClocksEvents) set in @p reasons, by name; idle,
 *  applications-clocks, sync-boost and display reasons are left out. @param reasons a bitmask */
[[nodiscard]] std::vector<std::string> throttling_reasons(std::uint64_t reasons);

/**
 * @brief The note for the timings in @p details that did not converge: every object in it (at any depth)
 * shaped like a TimingResult (`median_ms`, `rel_ci`, `count` and a boolean `converged`) whose `converged` is
 * false. "timing did not converge (work: median ±1.8% after 300 runs)". None when every timing converged or
 * there is none. @param details a performance check's details (the runner adds baseline_alone.timing)
 */
[[nodiscard]] std::optional<FairnessNote> unconverged_timing_note(const nlohmann::json& details);

/**
 * @brief The note for a throttled clock: "GPU clock throttled (power cap) when the check started", from the
 * reasons read when the check started (@p before) and when its timing ended (@p after); none when neither
 * holds a throttling reason, or neither could be read (no NVML, no GPU).
 */
[[nodiscard]] std::optional<FairnessNote> throttle_note(std::optional<std::uint64_t> before,
                                                        std::optional<std::uint64_t> after);

/** @brief Both notes, timing first: what a performance check's `fairness` holds.
 *  @param details the check's details @param before reasons at its start @param after reasons at its timing's end */
[[nodiscard]] std::vector<FairnessNote> fairness_notes(const nlohmann::json& details, std::optional<std::uint64_t> before,
                                                       std::optional<std::uint64_t> after);

/** @brief The notes' lines joined with "; ". @param notes a check's notes */
[[nodiscard]] std::string fairness_text(const std::vector<FairnessNote>& notes);

/** @brief JSON form of a FairnessNote: {kind, note, about}. */
void to_json(nlohmann::json& j, const FairnessNote& n);
/** @brief Reads a FairnessNote; throws nlohmann::json::exception when kind or note is missing. */
void from_json(const nlohmann::json& j, FairnessNote& n);

}  // namespace gpulab::grader
