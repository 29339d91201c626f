// Grading answers.toml: numbers, choices, tolerance, empty and missing answers, type errors, syntax
// errors with their position, unknown keys.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "grader/runner.hpp"
#include "run_code.hpp"

using namespace gpulab::grader;
using gpulab::testing::run_code;

namespace {

// The answer sheets written by this test, removed when it ends.
struct TempSheets {
    std::vector<std::filesystem::path> paths;
    ~TempSheets() {
        std::error_code ec;
        for (const auto& p : paths) std::filesystem::remove(p, ec);
    }
};

std::string write_temp(const std::string& text) {
    static TempSheets sheets;
    const auto path = std::filesystem::temp_directory_path() /
                      ("answers-test-" + std::to_string(::getpid()) + "-" + std::to_string(sheets.paths.size()) + ".toml");
    std::ofstream(path) << text;
    sheets.paths.push_back(path);
    return path.string();
}

Lab make_lab() {
    Lab lab;
    lab.number("ex.blocks", "How many blocks?", 5, 0.0, [] { return 4.0; });
    lab.number("ex.ratio", "Which ratio?", 5, 0.01, [] { return 2.6; });
    lab.choice("ex.kind", "Which kind?", {"math", "rounding", "cost"}, 5, [] { return std::string("cost"); });
    lab.choice_measured("ex.limit", "Limited by?", {"memory", "compute"}, 5,
                        [](const Context& c) { return c.ceiling("x").value_or(0) > 1 ? "compute" : "memory"; });
    lab.number_measured("ex.warps", "Warps needed here?", 5, 0.25, [](const Context& c) { return 10 * c.ceiling("x").value_or(0); });
    return lab;
}

CheckResult grade_key(const Lab& lab, const std::string& key, const AnswerSheet& sheet, const Context& ctx = {}) {
    for (std::size_t i = 0; i < lab.checks().size(); ++i)
        if (lab.checks()[i].id == key) return grade_answer(lab.checks()[i], lab.entries()[i].answer, sheet, ctx);
    FAIL("no such key");
    return {};
}

}  // namespace

TEST_CASE("Right answers score, wrong ones do not, tolerance is relative", "[answers]") {
    const Lab lab = make_lab();
    const AnswerSheet s = read_answer_sheet(write_temp("[ex]\nblocks = 4\nratio = 2.62\nkind = \" Cost \"\n"));
    CHECK(s.parse_error.empty());
    CHECK(grade_key(lab, "ex.blocks", s).status == Status::pass);
    CHECK(grade_key(lab, "ex.blocks", s).points == 5);
    CHECK(grade_key(lab, "ex.ratio", s).status == Status::pass);   // 0.8% off, within 1%
    CHECK(grade_key(lab, "ex.kind", s).status == Status::pass);    // case and spaces do not matter
    const AnswerSheet wrong = read_answer_sheet(write_temp("ex.blocks = 5\nex.ratio = 2.7\nex.kind = \"math\"\n"));
    CHECK(grade_key(lab, "ex.blocks", wrong).status == Status::fail);
    CHECK(grade_key(lab, "ex.ratio", wrong).status == Status::fail);
    CHECK(grade_key(lab, "ex.kind", wrong).status == Status::fail);
    CHECK(grade_key(lab, "ex.kind", wrong).points == 0);
}

TEST_CASE("Empty and missing answers are not answered, for 0 points", "[answers]") {
    const Lab lab = make_lab();
    const AnswerSheet s = read_answer_sheet(write_temp("[ex]\nblocks = \"\"\n"));
    CHECK(grade_key(lab, "ex.blocks", s).status == Status::not_answered);
    CHECK(grade_key(lab, "ex.ratio", s).status == Status::not_answered);
    const AnswerSheet none = read_answer_sheet("/nonexistent/answers.toml");
    CHECK(none.missing);
    const CheckResult r = grade_key(lab, "ex.blocks", none);
    CHECK(r.status == Status::not_answered);
    CHECK(r.message.find("not found") != std::string::npos);
}

TEST_CASE("A non-number where a number is due is an error for that question only", "[answers]") {
    const Lab lab = make_lab();
    const AnswerSheet s = read_answer_sheet(write_temp("ex.blocks = \"4\"\nex.ratio = true\nex.kind = 3\n"));
    const CheckResult quoted = grade_key(lab, "ex.blocks", s);
    CHECK(quoted.status == Status::error);
    CHECK(quoted.message.find("without quotes") != std::string::npos);
    CHECK(grade_key(lab, "ex.ratio", s).status == Status::error);
    CHECK(grade_key(lab, "ex.kind", s).status == Status::error);
    const AnswerSheet bad_choice = read_answer_sheet(write_temp("ex.kind = \"speed\"\n"));
    const CheckResult c = grade_key(lab, "ex.kind", bad_choice);
    CHECK(c.status == Status::error);
    CHECK(c.message.find("math, rounding, cost") != std::string::npos);
}

TEST_CASE("A syntax error names the file, line and column", "[answers]") {
    const std::string path = write_temp("[ex]\nblocks = 4\nratio = = 2\n");
    const AnswerSheet s = read_answer_sheet(path);
    REQUIRE_FALSE(s.parse_error.empty());
    // The lab's folder and the file, the line and column, and what to write instead.
    const std::filesystem::path p(path);
    CHECK(s.parse_error.find((p.parent_path().filename() / p.filename()).string() + ":3:") == 0);
    CHECK(s.parse_error.find(" — ") != std::string::npos);
    const CheckResult r = grade_key(make_lab(), "ex.blocks", s);
    CHECK(r.status == Status::error);
    CHECK(r.message.find("does not parse") != std::string::npos);
}

TEST_CASE("A syntax error says what it most likely means", "[answers]") {
    CHECK(read_answer_sheet(write_temp("[ex]\nratio = 1/12\n")).parse_error.find("write the decimal") != std::string::npos);
    CHECK(read_answer_sheet(write_temp("[ex]\nlimit = \"memory\n")).parse_error.find("closing quote") != std::string::npos);
    CHECK(read_answer_sheet(write_temp("[ex]\nratio = 21%\n")).parse_error.find("21% → 0.21") != std::string::npos);
}

TEST_CASE("Answers that need measured ceilings are skipped without them", "[answers]") {
    const Lab lab = make_lab();
    const AnswerSheet s = read_answer_sheet(write_temp("ex.limit = \"memory\"\n"));
    CHECK(grade_key(lab, "ex.limit", s).status == Status::skipped);
    Context ctx;
    ctx.ceilings = {{"x", 0.5}};
    CHECK(grade_key(lab, "ex.limit", s, ctx).status == Status::pass);
    ctx.ceilings = {{"x", 5.0}};
    CHECK(grade_key(lab, "ex.limit", s, ctx).status == Status::fail);
}

TEST_CASE("A number whose key is measured is skipped without the ceilings and graded with them", "[answers]") {
    const Lab lab = make_lab();
    const AnswerSheet s = read_answer_sheet(write_temp("ex.warps = 12\n"));
    const CheckResult without = grade_key(lab, "ex.warps", s);
    CHECK(without.status == Status::skipped);
    CHECK(without.points == 0);
    Context ctx;
    ctx.ceilings = {{"x", 1.0}};  // key 10: 12 is within 25%
    CHECK(grade_key(lab, "ex.warps", s, ctx).status == Status::pass);
    ctx.ceilings = {{"x", 2.0}};  // key 20: 12 is not
    CHECK(grade_key(lab, "ex.warps", s, ctx).status == Status::fail);
}

TEST_CASE("The answers runner warns about unknown keys and reports every question", "[answers]") {
    const Lab lab = make_lab();
    RunnerOptions o;
    o.mode = RunnerMode::answers;
    o.answers_file = write_temp("ex.blocks = 4\nex.blokcs = 4\n");
    const std::string out_path = write_temp("");
    std::FILE* f = std::fopen(out_path.c_str(), "w");
    Emitter em(f);
    CHECK(run_lab(lab, o, {}, em) == 0);
    std::fclose(f);
    std::ifstream in(out_path);
    std::string line, all;
    int results = 0;
    while (std::getline(in, line)) {
        all += line + "\n";
        if (nlohmann::json::parse(line)["type"] == "result") ++results;
    }
    CHECK(results == 5);
    CHECK(all.find("unknown key 'ex.blokcs'") != std::string::npos);
    CHECK(all.find("\"type\":\"done\"") != std::string::npos);
}

TEST_CASE("Performance credit is 0 below the pass bar, 50% at it, 100% at the full bar", "[scoring]") {
    CHECK(perf_credit(0.5, 0.6, 0.8) == 0.0);
    CHECK(perf_credit(0.6, 0.6, 0.8) == 0.5);
    CHECK(perf_credit(0.7, 0.6, 0.8) == gpulab::testing::Approx(0.75));
    CHECK(perf_credit(0.8, 0.6, 0.8) == 1.0);
    CHECK(perf_credit(3.0, 0.6, 0.8) == 1.0);
    CHECK(perf_credit(std::nan(""), 0.6, 0.8) == 0.0);
}

TEST_CASE("Fresh seeds differ and are short enough to type back", "[seed]") {
    const std::uint64_t a = fresh_seed(), b = fresh_seed();
    CHECK(a != b);
    CHECK(a < 1000000000ull);
    CHECK(derive_seed(a, "x") != derive_seed(a, "y"));
    CHECK(derive_seed(a, "x") == derive_seed(a, "x"));
}

TEST_CASE("Drawn sizes stay in their range, on their multiple, reproducibly, and cover it evenly", "[seed][draw]") {
    CHECK(draw(42, 1, 2048, 8) == draw(42, 1, 2048, 8));
    CHECK(draw(7, 5, 5) == 5);
    CHECK_THROWS_AS(draw(1, 9, 15, 16), std::invalid_argument);
    CHECK_THROWS_AS(draw(1, -3, 15), std::invalid_argument);
    std::array<int, 4> quarters{};
    for (std::uint64_t s = 0; s < 4000; ++s) {
        const std::int64_t v = draw(derive_seed(s, "cols"), 1, 2048, 8);
        REQUIRE(v >= 8);
        REQUIRE(v <= 2048);
        REQUIRE(v % 8 == 0);
        ++quarters[static_cast<std::size_t>((v - 1) / 512)];
    }
    // 1000 expected in each quarter; 4 standard deviations is about ±110.
    for (const int q : quarters) CHECK(std::abs(q - 1000) < 110);
}

namespace {

// A baseline "base" that counts its timings alone (when given a counter) and takes 2 ms.
Baseline fixed_baseline(int* timings = nullptr, std::string id = "base", std::string what = "the baseline") {
    return {std::move(id), std::move(what), [timings](Context&) {
                if (timings != nullptr) ++*timings;
                return BaselineTiming{"the baseline", 2.0, {}, ""};
            }};
}

// A lab with one correctness check and one performance check against the baseline "base", which the
// check compares (or, when told, not) and which reports what the timing helpers would find.
Lab perf_lab(std::vector<std::string> invalid, bool compare = true, int* baseline_timings = nullptr) {
    Lab lab;
    lab.correctness("correct.x", "x", 1, [](Context&) { return CorrectnessResult{true, "ok", "", {}, "", ""}; });
    const PerfSpec spec{.requires_check = "correct.x", .pass_bar = 1.0, .full_bar = 2.0, .unit = "x",
                        .baseline = fixed_baseline(baseline_timings)};
    lab.performance("perf.x", "x fast", 4, spec, [invalid, compare](Context& ctx) {
        PerfResult r;
        r.ratio = 3.0;
        r.message = "measured";
        r.floor.max_ratio = 100;  // every performance check declares a floor
        r.invalid = invalid;
        r.baseline_compared = compare && ctx.current_baseline().median_ms == 2.0;
        return r;
    });
    return lab;
}

// A lab whose one performance check, perf.x (no correctness check required, baseline "base"), measures a ratio of 3
// against its compared baseline, in @p time_ms, and declares @p floor.
Lab measuring_3x(std::optional<double> time_ms = {}, const Floor& floor = {}) {
    Lab lab;
    const PerfSpec spec{.requires_check = "", .pass_bar = 1.0, .full_bar = 2.0, .unit = "x", .baseline = fixed_baseline()};
    lab.performance("perf.x", "x fast", 4, spec, [time_ms, floor](Context&) {
        PerfResult r;
        r.ratio = 3.0;
        r.time_ms = time_ms;
        r.floor = floor;
        r.baseline_compared = true;
        return r;
    });
    return lab;
}

GpuHooks pretend_gpu(std::vector<std::string> at_start = {}, std::vector<std::string> tenants = {}) {
    GpuHooks g;
    g.probe = [] { return std::string(); };
    g.start_checks = [at_start](const Context&) { return at_start; };
    g.tenants = [tenants] { return tenants; };
    return g;
}

}  // namespace

TEST_CASE("A measurement whose baseline moved, or on a shared GPU, is INVALID with 0 points", "[runner][invalid]") {
    SECTION("clean: graded") {
        auto r = run_code(perf_lab({}), pretend_gpu());
        CHECK(r["perf.x"]["status"] == "pass");
        CHECK(r["perf.x"]["details"]["baseline_alone"]["median_ms"] == 2.0);
    }
    SECTION("the helpers saw the baseline slow down") {
        auto r = run_code(perf_lab({"the baseline ran 38% slower"}), pretend_gpu());
        CHECK(r["perf.x"]["status"] == "invalid");
        CHECK(r["perf.x"]["points"] == 0);
        CHECK(r["perf.x"]["message"].get<std::string>().find("38% slower") != std::string::npos);
        CHECK(r["correct.x"]["status"] == "pass");
    }
    SECTION("another process before the first check, or after the timing") {
        auto a = run_code(perf_lab({}), pretend_gpu({"another process uses this GPU: pid 7"}));
        CHECK(a["perf.x"]["status"] == "invalid");
        auto b = run_code(perf_lab({}), pretend_gpu({}, {"another process uses this GPU: pid 8"}));
        CHECK(b["perf.x"]["status"] == "invalid");
        CHECK(b["perf.x"]["details"]["invalid_reasons"][0] == "another process uses this GPU: pid 8");
    }
    SECTION("a check that never compared its baseline is a lab definition error, not a grade") {
        auto r = run_code(perf_lab({}, false), pretend_gpu());
        CHECK(r["perf.x"]["status"] == "error");
        CHECK(r["perf.x"]["message"].get<std::string>().find("did not compare its baseline") != std::string::npos);
    }
    SECTION("--only runs the required correctness check too, and times only the baselines it needs") {
        int timings = 0;
        auto r = run_code(perf_lab({}, true, &timings), pretend_gpu(), "perf.x");
        CHECK(r.count("correct.x") == 1);
        CHECK(r["perf.x"]["status"] == "pass");
        CHECK(timings == 1);
        timings = 0;
        auto c = run_code(perf_lab({}, true, &timings), pretend_gpu(), "correct.x");
        CHECK(c.count("perf.x") == 0);
        CHECK(timings == 0);
    }
}

TEST_CASE("A performance check declares one whole baseline; one id names one baseline", "[runner][invalid]") {
    Lab lab;
    const auto none = [](Context&) { return PerfResult{}; };
    PerfSpec spec{.requires_check = "", .pass_bar = 1.0, .full_bar = 2.0, .unit = "x", .baseline = {}};
    CHECK_THROWS_AS(lab.performance("perf.none", "x", 1, spec, none), std::logic_error);
    spec.baseline = fixed_baseline();
    spec.baseline.time_alone = nullptr;
    CHECK_THROWS_AS(lab.performance("perf.untimed", "x", 1, spec, none), std::logic_error);
    spec.baseline = fixed_baseline();
    lab.performance("perf.a", "x", 1, spec, none);
    lab.performance("perf.b", "x", 1, spec, none);  // the same baseline again: timed once
    CHECK(lab.baselines().size() == 1);
    spec.baseline = fixed_baseline(nullptr, "base", "another workload");
    CHECK_THROWS_AS(lab.performance("perf.c", "x", 1, spec, none), std::logic_error);
}

TEST_CASE("The timing helpers refuse a baseline other than the check's", "[runner][invalid]") {
    Context ctx;
    ctx.baseline_id = "base";
    ctx.baselines["base"] = BaselineTiming{"the baseline", 2.0, {}, ""};
    CHECK_NOTHROW(require_current_baseline(ctx, fixed_baseline()));
    CHECK_THROWS_AS(require_current_baseline(ctx, fixed_baseline(nullptr, "other")), std::logic_error);
    // The same id for other work (a copy of another size under "copy"): refused too.
    ctx.baseline_what = fixed_baseline().what;
    CHECK_NOTHROW(require_current_baseline(ctx, fixed_baseline()));
    CHECK_THROWS_AS(require_current_baseline(ctx, fixed_baseline(nullptr, "base", "another workload")), std::logic_error);
}

TEST_CASE("A wrong number that looks like a common slip gets a hint, never the key", "[answers][slips]") {
    const double key = 156.0;
    CHECK(slip_hint(key * 1.024, key, 0.01).find("KiB") != std::string::npos);
    CHECK(slip_hint(key / 1.048576, key, 0.01).find("too small") != std::string::npos);
    CHECK(slip_hint(key * 1.048576, key, 0.01).find("MiB") != std::string::npos);
    CHECK(slip_hint(key * 1.073741824, key, 0.01).find("GiB") != std::string::npos);
    CHECK(slip_hint(key * 2, key, 0.01).find("read + written") != std::string::npos);
    CHECK(slip_hint(key / 2, key, 0.01).find("too small") != std::string::npos);
    CHECK(slip_hint(key * 8, key, 0.01).find("bits vs bytes") != std::string::npos);
    CHECK(slip_hint(0.21, 21.0, 0.01).find("percentage") != std::string::npos);
    CHECK(slip_hint(21.0, 0.21, 0.01).find("too large") != std::string::npos);
    CHECK(slip_hint(3, 4, 0).find("ceil") != std::string::npos);
    // Whole prefixes: 12000 bytes given in KiB (11.71875) or in KB (12), 20 µs given in ms, MiB and GiB for bytes.
    CHECK(slip_hint(11.71875, 12000, 0).find("1024") != std::string::npos);
    CHECK(slip_hint(11.71875, 12000, 0).find("too small") != std::string::npos);
    CHECK(slip_hint(12, 12000, 0).find("1000") != std::string::npos);
    CHECK(slip_hint(0.02, 20, 0.005).find("ms and µs") != std::string::npos);
    CHECK(slip_hint(20000, 20, 0.005).find("too large") != std::string::npos);
    CHECK(slip_hint(96, 96.0 * 1048576, 0).find("2^20") != std::string::npos);
    CHECK(slip_hint(96, 96e6, 0).find("10^6") != std::string::npos);
    CHECK(slip_hint(3, 3e9, 0.005).find("10^9") != std::string::npos);
    CHECK(slip_hint(3, 3.0 * 1073741824, 0).find("2^30") != std::string::npos);
    // A count answered with a fraction (an exact whole key); a whole key with a tolerance is not a count.
    CHECK(slip_hint(3.5, 4, 0).find("whole number") != std::string::npos);
    CHECK(slip_hint(3.5, 4, 0.01).empty());
    // Nothing that is merely wrong, and no hint that prints the key.
    CHECK(slip_hint(157.7, key, 0.001).empty());
    CHECK(slip_hint(11.71875, 12000, 0).find("12000") == std::string::npos);
    CHECK(slip_hint(key * 3, key, 0.01).empty());
    CHECK(slip_hint(key * 2, key, 0.01).find("156") == std::string::npos);
    CHECK(slip_hint(1, 0, 0).empty());
}

TEST_CASE("A wrong answer's hint names the slip", "[answers][slips]") {
    Lab lab;
    lab.number("ex.mib", "MiB moved?", 1, 0.01, [] { return 156.0; });
    const AnswerSheet s = read_answer_sheet(write_temp("ex.mib = 163.577856\n"));
    const CheckResult r = grade_answer(lab.checks()[0], lab.entries()[0].answer, s, Context{});
    CHECK(r.status == Status::fail);
    CHECK(r.hint.find("MiB") != std::string::npos);
}

TEST_CASE("An exercise case takes its stated values, or each student's own, drawn from its ranges", "[answers][cases]") {
    Lab lab;
    lab.exercise_case("tile", "an m x n tile", {{"m", 192, 64, 256, 64}, {"n", 128, 64, 256, 64}});
    lab.number_for_case("tile", "case.area", "m * n?", 1, 0.0, [](const CaseValues& v) { return double(v.at("m") * v.at("n")); });
    const std::vector<CaseParam>& params = lab.cases().at("tile").params;
    Context stated;
    CHECK(stated.case_values("tile", params) == CaseValues{{"m", 192}, {"n", 128}});
    Context alice, bob;
    alice.student = "alice";
    bob.student = "bob";
    alice.course_seed = bob.course_seed = 20261201;
    const CaseValues a = alice.case_values("tile", params), b = bob.case_values("tile", params);
    CHECK(a != b);
    CHECK(a == alice.case_values("tile", params));  // the same student always gets the same case
    for (const CaseValues* v : {&a, &b})
        for (const auto& [name, value] : *v) {
            CHECK(value >= 64);
            CHECK(value <= 256);
            CHECK(value % 64 == 0);
        }
    // Each is graded against its own key; the report names the case.
    const std::string answer = "case.area = " + std::to_string(a.at("m") * a.at("n")) + "\n";
    const AnswerSheet s = read_answer_sheet(write_temp(answer));
    CHECK(grade_answer(lab.checks()[0], lab.entries()[0].answer, s, alice).status == Status::pass);
    if (a.at("m") * a.at("n") != b.at("m") * b.at("n"))
        CHECK(grade_answer(lab.checks()[0], lab.entries()[0].answer, s, bob).status == Status::fail);
    const CheckResult r = grade_answer(lab.checks()[0], lab.entries()[0].answer, s, alice);
    CHECK(r.details["case"]["student"] == "alice");
    CHECK(r.message.find("case tile: m = ") != std::string::npos);
    CHECK_THROWS_AS(lab.exercise_case("bad", "", {{"m", 100, 64, 256, 64}}), std::logic_error);
}

TEST_CASE("Host checks run without a GPU, GPU checks wait; a check may skip itself with its reason", "[runner][host]") {
    Lab lab;
    int host_runs = 0, gpu_runs = 0;
    lab.host_check("layout.x", "a layout, on the host", 2, [&](Context&) {
        ++host_runs;
        return CorrectnessResult{true, "one round", "", {}, "", ""};
    });
    lab.correctness("correct.x", "x on the GPU", 3, [&](Context&) {
        ++gpu_runs;
        return CorrectnessResult{true, "ok", "", {}, "", ""};
    });
    lab.correctness("conflicts.x", "counted by a profiler", 1, [](Context&) {
        CorrectnessResult r;
        r.skipped = "bank conflicts not counted: ncu is not installed here";
        return r;
    });
    SECTION("no GPU: the host check is graded, the others wait for one") {
        GpuHooks none;
        none.probe = [] { return std::string("no CUDA device: none here"); };
        auto r = run_code(lab, none);
        CHECK(r["layout.x"]["status"] == "pass");
        CHECK(r["layout.x"]["points"] == 2);
        CHECK(r["correct.x"]["status"] == "skipped");
        CHECK(r["correct.x"]["message"].get<std::string>().find("no CUDA device") != std::string::npos);
        CHECK(host_runs == 1);
        CHECK(gpu_runs == 0);
    }
    SECTION("a GPU: everything runs; a check that cannot count is SKIPPED with its reason, points pending") {
        auto r = run_code(lab, pretend_gpu());
        CHECK(r["correct.x"]["status"] == "pass");
        CHECK(r["conflicts.x"]["status"] == "skipped");
        CHECK(r["conflicts.x"]["points"] == 0);
        CHECK(r["conflicts.x"]["message"] == "bank conflicts not counted: ncu is not installed here");
    }
}

TEST_CASE("A profile target is declared once, by a name", "[runner][profile]") {
    Lab lab;
    int runs = 0;
    lab.profile_target("transposes", [&] { ++runs; });
    CHECK(lab.profile_targets().count("transposes") == 1);
    lab.profile_targets().at("transposes")();
    CHECK(runs == 1);
    CHECK_THROWS_AS(lab.profile_target("transposes", [] {}), std::logic_error);
    CHECK_THROWS_AS(lab.profile_target("", [] {}), std::logic_error);
}

TEST_CASE("With --profile, the runner reads each declared evidence after the checks and sends it; without, nothing",
          "[runner][profile]") {
    Lab lab;
    lab.host_check("h", "a host check", 1, [](Context&) { return CorrectnessResult{true, "ok"}; });
    lab.profile_target("t", [] {});
    lab.profile_evidence({"t", "what t shows", {{"m1", "first", ""}, {"m2", "second per first", "m1"}}});
    lab.profile_evidence({"nowhere", "a target never declared", {{"m1", "first", ""}}});
    CHECK_THROWS_AS(lab.profile_evidence({"t", "no metric", {}}), std::logic_error);
    GpuHooks gpu = pretend_gpu();
    std::vector<std::string> asked;
    gpu.profile = [&asked](const ProfileEvidence& e, int timeout_s) {
        asked.push_back(e.target + "/" + std::to_string(timeout_s));
        return nlohmann::json{{"skipped", ""}, {"kernels", {{{"name", "k"}, {"metrics", {{"m1", 4.0}, {"m2", 8.0}}}}}}, {"seconds", 1.5}};
    };
    const auto messages = [&](bool profile) {
        RunnerOptions o;
        o.mode = RunnerMode::code;
        o.profile = profile;
        const std::string path = (std::filesystem::temp_directory_path() /
                                  ("grader-profile-" + std::to_string(::getpid()) + ".jsonl")).string();
        std::FILE* f = std::fopen(path.c_str(), "w");
        Emitter em(f);
        run_lab(lab, o, gpu, em);
        std::fclose(f);
        std::ifstream in(path);
        std::vector<nlohmann::json> out;
        for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
        std::remove(path.c_str());
        return out;
    };
    const std::vector<nlohmann::json> with = messages(true);
    std::vector<nlohmann::json> evidence;
    std::size_t last_result = 0, first_profile = with.size();
    for (std::size_t i = 0; i < with.size(); ++i) {
        if (with[i]["type"] == "result") last_result = i;
        if (with[i]["type"] == "profile") evidence.push_back(with[i]["evidence"]), first_profile = std::min(first_profile, i);
    }
    REQUIRE(evidence.size() == 2);
    CHECK(first_profile > last_result);                // after every check
    CHECK(with.back()["type"] == "done");              // and before 'done'
    CHECK(asked == std::vector<std::string>{"t/15"});  // 30 s a lab, shared by its two evidences
    CHECK(evidence[0]["kernels"][0]["metrics"]["m2"] == 8.0);
    CHECK(evidence[0]["metrics"][1]["per"] == "m1");
    CHECK(evidence[0]["skipped"] == "");
    CHECK(evidence[1]["skipped"] == "lab definition error: no profile target 'nowhere'");
    asked.clear();
    for (const nlohmann::json& m : messages(false)) CHECK(m["type"] != "profile");
    CHECK(asked.empty());
}

TEST_CASE("A performance check that declares no plausibility floor is a lab definition error", "[runner][plausibility]") {
    const auto r = run_code(measuring_3x(), pretend_gpu());
    CHECK(r.at("perf.x")["status"] == "error");
    CHECK(r.at("perf.x")["message"].get<std::string>().find("plausibility floor") != std::string::npos);
}

TEST_CASE("A ratio past its declared bound is SUSPICIOUS, with the bound named", "[runner][plausibility]") {
    Floor bound;
    bound.max_ratio = 2.5;
    bound.max_what = "no pipeline beats its own lower bound";
    const auto r = run_code(measuring_3x(1.0, bound), pretend_gpu());
    CHECK(r.at("perf.x")["status"] == "suspicious");
    CHECK(r.at("perf.x")["points"] == 0);
    CHECK(r.at("perf.x")["message"].get<std::string>().find("lower bound") != std::string::npos);
}

TEST_CASE("A performance check with further required checks is timed only when every one passed", "[runner][requires]") {
    // correct.x passes; code.x as told; perf.x requires both (what part v4 and part (c) do with their code checks).
    const auto lab_with = [](const std::string& code_outcome, int* timed) {
        Lab lab;
        lab.correctness("correct.x", "x", 1, [](Context&) { return CorrectnessResult{true, "ok", "", {}, "", ""}; });
        lab.correctness("code.x", "x's code", 1, [code_outcome](Context&) {
            CorrectnessResult r;
            r.passed = code_outcome == "pass";
            r.message = "as told";
            if (code_outcome == "skip") r.skipped = "not readable here";
            return r;
        });
        const PerfSpec spec{.requires_check = "correct.x", .also_requires = {"code.x"}, .pass_bar = 1.0, .full_bar = 2.0,
                            .unit = "x", .baseline = fixed_baseline()};
        lab.performance("perf.x", "x fast", 4, spec, [timed](Context&) {
            ++*timed;
            PerfResult r;
            r.ratio = 3.0;
            r.message = "measured";
            r.floor.max_ratio = 100;
            r.baseline_compared = true;
            return r;
        });
        return lab;
    };
    int timed = 0;
    SECTION("both pass: timed") {
        auto r = run_code(lab_with("pass", &timed), pretend_gpu());
        CHECK(r["perf.x"]["status"] == "pass");
        CHECK(timed == 1);
    }
    SECTION("the further check fails: not timed, failed, and says which") {
        auto r = run_code(lab_with("fail", &timed), pretend_gpu());
        CHECK(r["perf.x"]["status"] == "fail");
        CHECK(r["perf.x"]["message"].get<std::string>().find("'code.x' must pass first") != std::string::npos);
        CHECK(timed == 0);
    }
    SECTION("the further check is skipped here: skipped, not failed") {
        auto r = run_code(lab_with("skip", &timed), pretend_gpu());
        CHECK(r["perf.x"]["status"] == "skipped");
        CHECK(timed == 0);
    }
    SECTION("--only perf.x runs what it requires too") {
        auto r = run_code(lab_with("fail", &timed), pretend_gpu(), "perf.x");
        CHECK(r.count("code.x") == 1);
        CHECK(r.count("correct.x") == 1);
        CHECK(r["perf.x"]["status"] == "fail");
    }
}

TEST_CASE("A check whose kernel hangs fails with the reason; every later check is not run", "[runner][hang]") {
    Lab lab;
    lab.correctness("correct.first", "runs", 1, [](Context&) { return CorrectnessResult{true, "ok", "", {}, "", ""}; });
    lab.correctness("correct.hangs", "its kernel never ends", 2, [](Context&) -> CorrectnessResult {
        throw DeviceHung("(c) did not finish within 5.0 s: a kernel still running");
    });
    lab.correctness("correct.after", "after it", 1, [](Context&) { return CorrectnessResult{true, "ok", "", {}, "", ""}; });
    GpuHooks gpu = pretend_gpu();
    bool asked_to_end = false;
    gpu.fatal_reason = [](const std::exception&) -> std::optional<std::string> { return std::string("marked"); };
    gpu.end_at_once = [&asked_to_end] {
        asked_to_end = true;
        return false;  // (the test's process goes on; a real runner ends here)
    };
    auto r = run_code(lab, gpu);
    CHECK(r["correct.first"]["status"] == "pass");
    CHECK(r["correct.hangs"]["status"] == "fail");
    CHECK(r["correct.hangs"]["points"] == 0);
    CHECK(r["correct.hangs"]["message"].get<std::string>().find("did not finish within") != std::string::npos);
    CHECK(r["correct.hangs"]["hint"].get<std::string>().find("occupancy") != std::string::npos);
    CHECK(r["correct.after"]["status"] == "not_run");
    CHECK(r["correct.after"]["message"].get<std::string>().find("hung in check 'correct.hangs'") != std::string::npos);
    CHECK(asked_to_end);
}
