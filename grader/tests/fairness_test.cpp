// Fairness notes (grader/fairness.hpp): a timing that did not converge and a throttled GPU clock are noted on
// the performance check, idle and administrative clock reasons are not; the runner attaches the notes (message
// and JSON), the gradebook flags the student UNSTABLE; a calibration lists the solutions' performance checks.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "catch_compat.hpp"
#include "grader/batch.hpp"
#include "grader/fairness.hpp"
#include "grader/runner.hpp"
#include "run_code.hpp"

using namespace gpulab::grader;
using gpulab::testing::run_code;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A TimingResult as to_json writes it.
nlohmann::json timing(bool converged, double rel_ci = 0.004, int count = 40) {
    return {{"median_ms", 1.5}, {"q1_ms", 1.49}, {"q3_ms", 1.52}, {"min_ms", 1.4}, {"count", count}, {"rel_ci", rel_ci},
            {"converged", converged}};
}

// A lab with one performance check whose timings are @p work (the graded code's) and a converged baseline.
Lab timed_lab(const nlohmann::json& work, bool wrong_result = false) {
    Lab lab;
    const Baseline base{"base", "the baseline", [](Context&) { return BaselineTiming{"the baseline", 2.0, timing(true), ""}; }};
    const PerfSpec spec{.requires_check = "", .pass_bar = 1.0, .full_bar = 2.0, .unit = "x", .baseline = base};
    lab.performance("perf.x", "x fast", 4, spec, [work, wrong_result](Context&) {
        PerfResult r;
        r.ratio = 3.0;
        r.message = "measured";
        r.floor.max_ratio = 100;  // every performance check declares a floor
        r.details = {{"work", work}, {"baseline", timing(true)}};
        r.baseline_compared = true;
        if (wrong_result) r.wrong_result = "timed run 3 of 40 produced a wrong result";
        return r;
    });
    return lab;
}

GpuHooks gpu_with_clocks(std::optional<std::uint64_t> before, std::optional<std::uint64_t> after) {
    GpuHooks g;
    g.probe = [] { return std::string(); };
    g.clock_events = [before, after, n = 0]() mutable { return n++ == 0 ? before : after; };
    return g;
}

}  // namespace

TEST_CASE("A timing that did not converge is noted, with where it is and how far it got", "[fairness]") {
    CHECK_FALSE(unconverged_timing_note(nlohmann::json{{"work", timing(true)}, {"baseline", timing(true)}}));
    CHECK_FALSE(unconverged_timing_note(nlohmann::json::object()));
    CHECK_FALSE(unconverged_timing_note(nlohmann::json{{"converged", false}}));  // not a timing: no median, no count

    const auto n = unconverged_timing_note({{"work", timing(false, 0.018, 300)}, {"baseline", timing(true)}, {"ratio", 1.2}});
    REQUIRE(n);
    CHECK(n->kind == "timing_not_converged");
    CHECK(n->note == "timing did not converge (work: median ±1.8% after 300 runs)");
    CHECK(n->about == std::vector<std::string>{"work"});

    // At any depth (a variant's details, the baseline timed alone), every one named.
    const auto deep = unconverged_timing_note(
        {{"v2", {{"work", timing(false, 0.02, 300)}}}, {"baseline_alone", {{"timing", timing(false, 0.011, 120)}}}});
    REQUIRE(deep);
    CHECK(deep->about == std::vector<std::string>{"baseline_alone.timing", "v2.work"});
    CHECK(contains(deep->note, "v2.work: median ±2% after 300 runs"));
}

TEST_CASE("A throttled clock is noted; idle and administrative clock reasons are not", "[fairness]") {
    CHECK_FALSE(throttle_note(std::nullopt, std::nullopt));  // no NVML, no GPU: nothing is known
    CHECK_FALSE(throttle_note(0, 0));
    CHECK_FALSE(throttle_note(kClocksEventGpuIdle, kClocksEventGpuIdle));
    CHECK_FALSE(throttle_note(kClocksEventApplicationsClocksSetting | kClocksEventSyncBoost | kClocksEventDisplayClockSetting,
                              kClocksEventGpuIdle | kClocksEventApplicationsClocksSetting));
    CHECK_FALSE(throttle_note(std::uint64_t(1) << 40, std::nullopt));  // a bit this grader does not know
    CHECK(throttling_reasons(0x1FF) == std::vector<std::string>{"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown",
                                                                "hw_thermal_slowdown", "hw_power_brake_slowdown"});
    CHECK(clock_event_names(kClocksEventGpuIdle | kClocksEventSwPowerCap | (std::uint64_t(1) << 12)) ==
          std::vector<std::string>{"gpu_idle", "sw_power_cap", "0x1000"});

    const auto cap = throttle_note(kClocksEventGpuIdle, kClocksEventSwPowerCap);
    REQUIRE(cap);
    CHECK(cap->kind == "clock_throttled");
    CHECK(cap->note == "GPU clock throttled (power cap) when its timing ended");
    CHECK(cap->about == std::vector<std::string>{"sw_power_cap"});

    const auto hot = throttle_note(kClocksEventHwThermalSlowdown | kClocksEventHwSlowdown, std::nullopt);
    REQUIRE(hot);
    CHECK(hot->note == "GPU clock throttled (HW slowdown, HW thermal slowdown) when the check started");
    const auto both = throttle_note(kClocksEventSwThermalSlowdown, kClocksEventHwPowerBrakeSlowdown | kClocksEventGpuIdle);
    REQUIRE(both);
    CHECK(both->note == "GPU clock throttled (thermal slowdown, power brake) when the check started and when its timing ended");

    const auto notes = fairness_notes({{"work", timing(false)}}, kClocksEventSwPowerCap, std::nullopt);
    REQUIRE(notes.size() == 2);
    CHECK(notes[0].kind == "timing_not_converged");
    CHECK(notes[1].kind == "clock_throttled");
    CHECK(fairness_text(notes) == notes[0].note + "; " + notes[1].note);
    CHECK(fairness_notes({{"work", timing(true)}}, kClocksEventGpuIdle, kClocksEventGpuIdle).empty());
}

TEST_CASE("The runner notes an unfair measurement in the check's message and JSON; the points stand", "[fairness][runner]") {
    SECTION("fair: no note") {
        auto r = run_code(timed_lab(timing(true)), gpu_with_clocks(kClocksEventGpuIdle, 0));
        CHECK(r["perf.x"]["status"] == "pass");
        CHECK_FALSE(r["perf.x"].contains("fairness"));
        CHECK(r["perf.x"]["message"] == "measured");
        CHECK(r["perf.x"]["details"]["clock_events"]["at_start"] == nlohmann::json{"gpu_idle"});
    }
    SECTION("a timing that did not converge, and a power cap when the timing ended") {
        auto r = run_code(timed_lab(timing(false, 0.03, 300)), gpu_with_clocks(0, kClocksEventSwPowerCap));
        const nlohmann::json& c = r["perf.x"];
        CHECK(c["status"] == "pass");
        CHECK(c["points"] == 4);
        REQUIRE(c["fairness"].size() == 2);
        CHECK(c["fairness"][0]["kind"] == "timing_not_converged");
        CHECK(c["fairness"][0]["about"] == nlohmann::json{"work"});
        CHECK(c["fairness"][1]["about"] == nlohmann::json{"sw_power_cap"});
        CHECK(c["message"] == "measured — fairness: timing did not converge (work: median ±3% after 300 runs); GPU clock "
                              "throttled (power cap) when its timing ended");
        CHECK(c["details"]["clock_events"]["at_timing_end"] == nlohmann::json{"sw_power_cap"});
        const CheckResult back = c.get<CheckResult>();  // as the grader reads it
        REQUIRE(back.fairness.size() == 2);
        CHECK(back.fairness[1].note == "GPU clock throttled (power cap) when its timing ended");
    }
    SECTION("without NVML nothing is read, and nothing noted about the clock") {
        auto r = run_code(timed_lab(timing(true)), gpu_with_clocks(std::nullopt, std::nullopt));
        CHECK_FALSE(r["perf.x"].contains("fairness"));
        CHECK_FALSE(r["perf.x"]["details"].contains("clock_events"));
    }
    SECTION("a wrong result's verdict does not rest on its timing: no note") {
        auto r = run_code(timed_lab(timing(false), true), gpu_with_clocks(kClocksEventSwPowerCap, kClocksEventSwPowerCap));
        CHECK(r["perf.x"]["status"] == "fail");
        CHECK_FALSE(r["perf.x"].contains("fairness"));
    }
}

TEST_CASE("A report with a fairness note flags the student UNSTABLE, one flag per lab", "[fairness][batch]") {
    const nlohmann::json note_a = {{"kind", "timing_not_converged"}, {"note", "timing did not converge (work: median ±3% after 300 runs)"}, {"about", {"work"}}};
    const nlohmann::json note_b = {{"kind", "clock_throttled"}, {"note", "GPU clock throttled (power cap) when its timing ended"}, {"about", {"sw_power_cap"}}};
    const nlohmann::json report = {
        {"labs",
         {{{"id", "03"},
           {"checks",
            {{{"id", "perf.v1"}, {"status", "pass"}, {"fairness", {note_a}}},
             {{"id", "perf.v2"}, {"status", "partial"}, {"fairness", {note_a, note_b}}},
             {{"id", "perf.v3"}, {"status", "pass"}}}}},
          {{"id", "05"}, {"checks", {{{"id", "perf.fused"}, {"status", "pass"}}}}}}}};
    const std::vector<Flag> flags = report_flags(report);
    REQUIRE(flags.size() == 1);
    CHECK(flags[0].name == "UNSTABLE");
    CHECK(flags[0].lab == "03");
    CHECK(flags[0].why == "perf.v1: timing did not converge (work: median ±3% after 300 runs) | perf.v2: timing did not "
                          "converge (work: median ±3% after 300 runs); GPU clock throttled (power cap) when its timing ended");
    // UNSTABLE comes after the flags about the code.
    nlohmann::json suspicious = report;
    suspicious["labs"][1]["checks"][0]["status"] = "suspicious";
    const std::vector<Flag> two = report_flags(suspicious);
    REQUIRE(two.size() == 2);
    CHECK(two[0].name == "SUSPICIOUS");
    CHECK(two[1].name == "UNSTABLE");
}

TEST_CASE("A calibration lists the solutions' performance checks; the CSV and the spread read them", "[batch][calibration]") {
    const nlohmann::json report = {
        {"labs",
         {{{"id", "00"},
           {"checks",
            {{{"id", "correct.n1000"}, {"kind", "correctness"}, {"status", "pass"}, {"points", 5}, {"max_points", 5}},
             {{"id", "perf.bandwidth"}, {"title", "bandwidth"}, {"kind", "performance"}, {"status", "pass"}, {"points", 10},
              {"max_points", 10}, {"measured", "0.93 of copy"},
              {"details", {{"ratio", 0.93}, {"pass_bar", 0.6}, {"full_bar", 0.8}}}},
             {{"id", "perf.small"}, {"kind", "performance"}, {"status", "skipped"}, {"points", 0}, {"max_points", 4},
              {"details", nlohmann::json::object()}}}}}}}};
    const nlohmann::json checks = calibration_checks(report);
    REQUIRE(checks.size() == 2);
    CHECK(checks[0] == nlohmann::json{{"lab", "00"}, {"id", "perf.bandwidth"}, {"title", "bandwidth"}, {"status", "pass"},
                                      {"ratio", 0.93}, {"measured", "0.93 of copy"}, {"points", 10}, {"max_points", 10},
                                      {"pass_bar", 0.6}, {"full_bar", 0.8}, {"fairness", nlohmann::json::array()}});
    CHECK(checks[1]["ratio"].is_null());
    CHECK(checks[1]["status"] == "skipped");

    nlohmann::json other = checks;
    other[0]["ratio"] = 0.9;
    const auto entry = [](const std::string& host, const nlohmann::json& c) {
        return nlohmann::json{{"host", host}, {"cuda_visible_devices", "0"}, {"shard", {{"index", 0}, {"count", 2}}},
                              {"gpu_fingerprint", "NVIDIA H200 GPU-1 driver 580"}, {"outcome", "graded"}, {"error", ""},
                              {"checks", c}};
    };
    nlohmann::json failed = entry("node3", nlohmann::json::array());
    failed["outcome"] = "error";
    failed["error"] = "the grader exited with code 3: boom";
    const nlohmann::json book = {{"calibration", {entry("node1", checks), entry("node2", other), failed}}};
    const std::string csv = calibration_csv(book);
    CHECK(contains(csv, "shard,host,cuda_visible_devices,gpu_fingerprint,lab,check,status,ratio,points,max_points,pass_bar,full_bar,fairness\n"));
    CHECK(contains(csv, "0/2,node1,0,NVIDIA H200 GPU-1 driver 580,00,perf.bandwidth,pass,0.93,10,10,0.6,0.8,\n"));
    CHECK(contains(csv, "0/2,node2,0,NVIDIA H200 GPU-1 driver 580,00,perf.small,skipped,,0,4,,,\n"));
    CHECK(contains(csv, "0/2,node3,0,NVIDIA H200 GPU-1 driver 580,,,error,,,,,,the grader exited with code 3: boom\n"));
    const std::vector<std::string> spread = calibration_spread(book["calibration"]);
    REQUIRE(spread.size() == 1);  // perf.small was not timed
    CHECK(spread[0] == "lab 00 perf.bandwidth: the solutions' ratios 0.9 to 0.93 over 2 calibrations (3.3% apart)");
}
