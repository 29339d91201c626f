// The grader survives every way a lab can fail, reports each with a clear reason, and goes on.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "grader/orchestrator.hpp"
#include "grader/report.hpp"

using namespace gpulab::grader;

namespace {

LabEntry fake_lab(const std::string& behave, double code_points = 20) {
    LabEntry e;
    e.id = "99";
    e.name = "fake_" + behave;
    e.title = "fake lab (" + behave + ")";
    e.student.runner = {FAKE_RUNNER, "--behave", behave};
    e.code_points = code_points;
    return e;
}

LabResult grade(const LabEntry& lab, double timeout_s = 10, int retry_invalid = 0) {
    GradeOptions o;
    o.answers = false;
    o.build = false;
    o.timeout_s = timeout_s;
    o.retry_invalid = retry_invalid;
    return grade_lab(lab, o);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("A well-behaved runner is graded in full", "[orchestrator]") {
    const LabResult r = grade(fake_lab("ok"));
    CHECK(r.failures.empty());
    REQUIRE(r.checks.size() == 2);
    CHECK(r.points() == 20);
    CHECK(r.max_points() == 20);
}

TEST_CASE("A crash is reported with the signal's name and the running check", "[orchestrator]") {
    const LabResult r = grade(fake_lab("segv"));
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "crashed during check 'c1'"));
    CHECK(contains(r.failures[0], "SIGSEGV"));
    REQUIRE(r.checks.size() == 2);
    CHECK(r.checks[0].status == Status::not_run);
    CHECK(r.checks[1].status == Status::not_run);
    CHECK(r.max_points() == 20);
    CHECK(r.points() == 0);
    CHECK(contains(grade(fake_lab("abort")).failures.at(0), "SIGABRT"));
}

TEST_CASE("A hang is killed at the timeout, with its whole process group", "[orchestrator]") {
    const auto t0 = std::chrono::steady_clock::now();
    const LabResult r = grade(fake_lab("hang_group"), 1.0);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(s < 5.0);
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "hung"));
    CHECK(contains(r.failures[0], "during check 'c1'"));
    CHECK(r.checks.at(0).status == Status::not_run);
}

TEST_CASE("A non-zero exit before the report ends is a failure naming the code", "[orchestrator]") {
    const LabResult r = grade(fake_lab("exit4"));
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "exit code 4"));
}

TEST_CASE("Missing output, malformed output and an unfinished report are failures", "[orchestrator]") {
    const LabResult none = grade(fake_lab("no_output"));
    REQUIRE(none.failures.size() == 1);
    CHECK(contains(none.failures[0], "no output"));
    REQUIRE(none.checks.size() == 1);  // a synthesised entry keeps the lab's points in the totals
    CHECK(none.checks[0].status == Status::not_run);
    CHECK(none.max_points() == 20);

    const LabResult cut = grade(fake_lab("cut_short"));  // a crash mid-line is a crash, not tampering
    REQUIRE(cut.failures.size() == 1);
    CHECK(contains(cut.failures[0], "SIGSEGV"));
    CHECK(cut.checks.at(0).status == Status::not_run);

    const LabResult unfinished = grade(fake_lab("no_done"));
    REQUIRE(unfinished.failures.size() == 1);
    CHECK(contains(unfinished.failures[0], "stopped before finishing"));
}

TEST_CASE("Lines the runner did not write, or messages out of order, make the part TAMPERED", "[orchestrator][integrity]") {
    for (const char* behave : {"garbage", "forged", "replayed", "unstarted"}) {
        INFO(behave);
        const LabResult r = grade(fake_lab(behave));
        REQUIRE(r.failures.size() == 1);
        CHECK(contains(r.failures[0], "TAMPERED"));
        REQUIRE(r.checks.size() == 2);
        for (const CheckResult& c : r.checks) {
            CHECK(c.status == Status::tampered);
            CHECK(c.points == 0);
        }
    }
    CHECK(contains(grade(fake_lab("forged")).failures[0], "did not write"));
    CHECK(contains(grade(fake_lab("replayed")).failures[0], "a second result for 'c1'"));
    CHECK(contains(grade(fake_lab("unstarted")).failures[0], "never started"));
}

TEST_CASE("The channel's MAC depends on the key, the line's place and every byte of it", "[protocol][integrity]") {
    ChannelKey k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(i);
    // SipHash-2-4's published test vector: key 00..0f, message 00..0e (15 bytes).
    std::string m;
    for (int i = 0; i < 15; ++i) m.push_back(static_cast<char>(i));
    CHECK(siphash24(k, m) == 0xa129ca6149be45e5ull);
    const std::string a = line_mac(k, 0, R"({"type":"done"})");
    CHECK(a.size() == 16);
    CHECK(a != line_mac(k, 1, R"({"type":"done"})"));
    CHECK(a != line_mac(k, 0, R"({"type":"done" })"));
    ChannelKey other = k;
    other[15] ^= 1;
    CHECK(a != line_mac(other, 0, R"({"type":"done"})"));
}

TEST_CASE("A lost CUDA context fails the lab with the sticky error's name", "[orchestrator]") {
    const LabResult r = grade(fake_lab("sticky"));
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "cudaErrorIllegalAddress"));
    CHECK(r.checks.at(0).status == Status::error);
    CHECK(r.checks.at(1).status == Status::not_run);
}

TEST_CASE("Lots of output from the lab does not block the grader", "[orchestrator]") {
    const LabResult r = grade(fake_lab("noisy"));
    CHECK(r.failures.empty());
    CHECK(r.points() == 20);
}

TEST_CASE("An INVALID check is retried in a new process with --only, keeping every attempt", "[orchestrator][invalid]") {
    SECTION("without --retry-invalid it stays INVALID, with 0 points") {
        const LabResult r = grade(fake_lab("invalid_once"));
        REQUIRE(r.checks.size() == 2);
        CHECK(r.checks[1].status == Status::invalid);
        CHECK(r.points() == 10);
        CHECK(r.checks[1].attempts.empty());
    }
    SECTION("a retry that measures cleanly counts; the INVALID attempt is kept") {
        const LabResult r = grade(fake_lab("invalid_once"), 10, 2);
        REQUIRE(r.checks.size() == 2);
        CHECK(r.failures.empty());
        CHECK(r.checks[0].status == Status::pass);
        CHECK(r.checks[1].status == Status::pass);
        CHECK(r.points() == 20);
        REQUIRE(r.checks[1].attempts.size() == 1);
        CHECK(r.checks[1].attempts[0]["status"] == "invalid");
        CHECK(contains(r.checks[1].message, "attempt 2"));
    }
    SECTION("retries stop after N; every attempt is in the report") {
        const LabResult r = grade(fake_lab("invalid_always"), 10, 2);
        REQUIRE(r.checks.size() == 2);
        CHECK(r.checks[1].status == Status::invalid);
        CHECK(r.checks[1].points == 0);
        CHECK(r.checks[1].attempts.size() == 2);
        RunReport report;
        report.labs.push_back(r);
        const nlohmann::json j = to_json(report);
        CHECK(j["labs"][0]["checks"][1]["attempts"].size() == 2);
        CHECK(contains(to_junit(report), "<error type=\"invalid\""));
        CHECK(contains(to_csv(report), ",invalid,"));
    }
}

TEST_CASE("Progress messages are shown as they come and change nothing in the grade", "[orchestrator]") {
    std::vector<std::string> seen;
    const ChildOutcome o = run_child({FAKE_RUNNER, "--behave", "progress", "--report-fd", "3"}, 10, false,
                                     [&](const std::string& text) { seen.push_back(text); });
    REQUIRE(seen.size() == 3);
    CHECK(seen.back() == "timing c1 (3/3 samples)");
    const PartResult r = interpret(o, "code", 20, 10);
    CHECK(r.failure.empty());
    CHECK_FALSE(r.tampered);
    REQUIRE(r.checks.size() == 2);
    CHECK(r.checks[0].status == Status::pass);
}

TEST_CASE("The code runner's 'device' message says whether it found a GPU", "[orchestrator]") {
    const ChildOutcome with = run_child({FAKE_RUNNER, "--behave", "device", "--report-fd", "3"}, 10, false);
    const PartResult r = interpret(with, "code", 20, 10);
    CHECK(r.failure.empty());
    CHECK_FALSE(r.tampered);
    REQUIRE(r.device_available.has_value());
    CHECK_FALSE(*r.device_available);
    CHECK(r.no_device_reason == "no CUDA device: a test");
    const ChildOutcome without = run_child({FAKE_RUNNER, "--behave", "progress", "--report-fd", "3"}, 10, false);
    CHECK_FALSE(interpret(without, "code", 20, 10).device_available.has_value());
}

TEST_CASE("Checks that declare other points than the lab's CMake says are a definition error", "[orchestrator]") {
    const LabResult r = grade(fake_lab("bad_plan", 20));
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "lab definition error"));
}

TEST_CASE("Code that does not compile is reported with the compiler's first error lines", "[orchestrator]") {
    LabEntry lab = fake_lab("ok");
    lab.student.build = {"sh", "-c",
                         "echo 'building'; echo 'vector_add.cu(12): error: identifier \"x\" is undefined' >&2; "
                         "echo '1 error detected' >&2; exit 1"};
    GradeOptions o;
    o.answers = false;
    o.build = true;
    o.timeout_s = 10;
    const LabResult r = grade_lab(lab, o);
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "did not compile"));
    CHECK(contains(r.failures[0], "vector_add.cu(12): error: identifier \"x\" is undefined"));
    REQUIRE(r.checks.size() == 1);
    CHECK(r.checks[0].status == Status::not_run);
    CHECK(r.max_points() == 20);
}

TEST_CASE("A runner that cannot be started is reported, not thrown", "[orchestrator]") {
    LabEntry lab = fake_lab("ok");
    lab.student.runner = {"/nonexistent/runner"};
    const LabResult r = grade(lab);
    REQUIRE(r.failures.size() == 1);
    CHECK(contains(r.failures[0], "cannot run /nonexistent/runner"));
}

TEST_CASE("Labs are selected by number, name or folder; unknown ones list the labs", "[orchestrator]") {
    Registry reg;
    reg.labs = {fake_lab("ok"), fake_lab("segv")};
    reg.labs[0].id = "00";
    reg.labs[0].name = "warmup";
    reg.labs[1].id = "05";
    reg.labs[1].name = "fusion";
    CHECK(select_labs(reg, {}).size() == 2);
    CHECK(select_labs(reg, {"5"}).at(0).name == "fusion");
    CHECK(select_labs(reg, {"05"}).at(0).name == "fusion");
    CHECK(select_labs(reg, {"fusion"}).at(0).id == "05");
    CHECK(select_labs(reg, {"00_warmup"}).at(0).id == "00");
    CHECK(select_labs(reg, {"0", "00"}).size() == 1);
    try {
        (void)select_labs(reg, {"softmax"});
        FAIL("no exception");
    } catch (const std::invalid_argument& e) {
        CHECK(contains(e.what(), "00 (warmup), 05 (fusion)"));
    }
}

TEST_CASE("The grader goes on after a broken lab and exits with the failure code", "[orchestrator][e2e]") {
    const auto dir = std::filesystem::temp_directory_path() / ("grader-e2e-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const nlohmann::json labs = nlohmann::json::array({
        {{"id", "01"}, {"name", "crashes"}, {"runner_student", {FAKE_RUNNER, "--behave", "segv"}}, {"code_points", 20}},
        {{"id", "02"}, {"name", "hangs"}, {"runner_student", {FAKE_RUNNER, "--behave", "hang"}}, {"code_points", 20}},
        {{"id", "03"}, {"name", "works"}, {"runner_student", {FAKE_RUNNER, "--behave", "ok"}}, {"code_points", 20}},
    });
    std::ofstream(dir / "labs.json") << nlohmann::json{{"labs", labs}, {"ceilings_command", {"sh", "-c", "echo '{\"available\": false, \"reason\": \"no CUDA device: fake\"}' > \"$2\"", "sh"}}}.dump();
    const std::string cmd = std::string(GRADER_EXE) + " --registry " + (dir / "labs.json").string() +
                            " --no-build --only code --timeout 2 --json " + (dir / "r.json").string() + " --junit " +
                            (dir / "r.xml").string() + " --csv " + (dir / "r.csv").string() + " > " + (dir / "out.txt").string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "r.json"));
    REQUIRE(j["labs"].size() == 3);
    CHECK(contains(j["labs"][0]["failures"][0].get<std::string>(), "SIGSEGV"));
    CHECK(contains(j["labs"][1]["failures"][0].get<std::string>(), "hung"));
    CHECK(j["labs"][2]["points"] == 20);
    CHECK(j["totals"]["points"] == 20);
    CHECK(j["totals"]["max_points"] == 60);
    CHECK(j["schema_version"] == kReportSchemaVersion);
    std::ifstream xml(dir / "r.xml");
    const std::string x((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
    CHECK(contains(x, "<testsuite name=\"lab01_crashes\""));
    CHECK(contains(x, "failures=\"2\""));
    std::ifstream csv(dir / "r.csv");
    std::string line;
    std::vector<std::string> rows;
    while (std::getline(csv, line)) rows.push_back(line);
    REQUIRE(rows.size() == 1 + 3 * 2 + 3);  // header, lab 01/02: 2 checks each, lab 03: 2 checks, 3 totals
    CHECK(rows[0] == "implementation,seed,student,lab,lab_name,check,kind,status,points,max_points,measured,target,case");
    CHECK(contains(rows.back(), "03,works,total,,,20,20"));
    std::ifstream out(dir / "out.txt");
    const std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
    CHECK(contains(text, "Overall: 20/60 points"));
    CHECK_FALSE(contains(text, "terminate called"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("Usage errors exit 2 with a one-line message", "[orchestrator][e2e]") {
    const std::string cmd = std::string(GRADER_EXE) + " --registry /nonexistent.json > /dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    CHECK(WEXITSTATUS(status) == 3);  // a grader error: the registry is missing
    const int bad = std::system((std::string(GRADER_EXE) + " --timeout -1 > /dev/null 2>&1").c_str());
    CHECK(WEXITSTATUS(bad) == 2);
}

namespace {

// The pid of @p parent's first child whose command line contains @p name; 0 while there is none.
pid_t child_named(pid_t parent, const std::string& name) {
    std::ifstream children("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children");
    for (pid_t pid; children >> pid;) {
        std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
        const std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
        if (contains(text, name)) return pid;
    }
    return 0;
}

// Whether @p pid still runs (a zombie waiting for a reaper does not).
bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    if (!(stat >> pid_field >> comm >> state)) return false;
    return state != "Z" && state != "X";
}

}  // namespace

TEST_CASE("A grader stopped by a signal leaves no lab process running", "[orchestrator][e2e]") {
    // SIGTERM (a scheduler, `grader batch`'s time limit, Ctrl-C's SIGINT alike): the whole process group of
    // the running lab is stopped, a grandchild too. SIGKILL: the lab process dies with the grader.
    for (const auto& [sig, behave] : {std::pair{SIGTERM, "hang_group"}, std::pair{SIGKILL, "hang"}}) {
        const auto dir = std::filesystem::temp_directory_path() /
                         ("grader-signal-" + std::to_string(::getpid()) + "-" + std::to_string(sig));
        std::filesystem::create_directories(dir);
        const nlohmann::json labs = nlohmann::json::array(
            {{{"id", "01"}, {"name", "hangs"}, {"runner_student", {FAKE_RUNNER, "--behave", behave}}, {"code_points", 20}}});
        std::ofstream(dir / "labs.json") << nlohmann::json{{"labs", labs}}.dump();
        const std::string registry = (dir / "labs.json").string();
        const pid_t grader = fork();
        if (grader == 0) {
            std::freopen("/dev/null", "w", stdout);
            std::freopen("/dev/null", "w", stderr);
            execl(GRADER_EXE, GRADER_EXE, "--registry", registry.c_str(), "--no-build", "--no-ceilings", "--only", "code",
                  "--timeout", "60", static_cast<char*>(nullptr));
            _exit(127);
        }
        REQUIRE(grader > 0);
        pid_t runner = 0;
        for (int i = 0; i < 200 && runner == 0; ++i) {
            runner = child_named(grader, "grader_fake_runner");
            if (runner == 0) usleep(50 * 1000);
        }
        REQUIRE(runner > 0);
        usleep(200 * 1000);  // let hang_group fork its grandchild
        pid_t grandchild = child_named(runner, "grader_fake_runner");
        kill(grader, sig);
        int status = 0;
        waitpid(grader, &status, 0);
        CHECK(WIFSIGNALED(status));
        bool gone = false;
        for (int i = 0; i < 100 && !gone; ++i) {
            gone = !running(runner) && (grandchild == 0 || !running(grandchild));
            if (!gone) usleep(50 * 1000);
        }
        INFO("signal " << sig << ", runner " << runner << ", grandchild " << grandchild);
        CHECK(gone);
        if (sig == SIGTERM) CHECK(grandchild > 0);
        if (!gone) {
            kill(runner, SIGKILL);
            if (grandchild > 0) kill(grandchild, SIGKILL);
        }
        std::filesystem::remove_all(dir);
    }
}

TEST_CASE("A code runner finds no secret on its command line or in its environment: its seed came on the key pipe",
          "[orchestrator][sandbox]") {
    GradeOptions o;
    o.answers = false;
    o.build = false;
    o.timeout_s = 10;
    o.seed = 987654321;
    const LabResult r = grade_lab(fake_lab("face"), o);
    INFO(::Catch::Detail::stringify(r.failures));
    REQUIRE(r.failures.empty());
    std::string cmdline, environ_text, seed;
    for (const std::string& w : r.warnings) {
        if (w.rfind("cmdline=", 0) == 0) cmdline = w;
        if (w.rfind("environ=", 0) == 0) environ_text = w;
        if (w.rfind("params_seed=", 0) == 0) seed = w.substr(12);
    }
    REQUIRE_FALSE(cmdline.empty());
    CHECK_FALSE(contains(cmdline, "987654321"));
    CHECK_FALSE(contains(cmdline, "--seed"));
    CHECK_FALSE(contains(environ_text, "987654321"));
    CHECK_FALSE(contains(environ_text, "LABS_CHANNEL_KEY_FD"));  // read and removed before main
    CHECK(seed == "987654321");
}

TEST_CASE("A lab's points are summed as reports show them: 100, not 100.00000000000001", "[orchestrator]") {
    LabResult l;
    double naive = 0;
    for (int i = 0; i < 10; ++i) {
        CheckResult c;
        c.max_points = 0.1;
        c.points = i < 3 ? 0.1 : 0.0;
        naive += c.max_points;
        l.checks.push_back(c);
    }
    REQUIRE(naive != 1.0);  // what adding the points as they come gives
    CHECK(l.max_points() == 1.0);
    CHECK(l.points() == 0.3);
}
