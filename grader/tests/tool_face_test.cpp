// tool_face_mismatch(): what a tool run launched against what the observer saw of the graded run of the same
// work. Plain data on both sides, so it runs without a GPU.
#include <vector>

#include "catch_compat.hpp"
#include "grader/gpu_checks.hpp"
#include "grader/observer.hpp"

using namespace gpulab::grader;

namespace {

// A graded kernel as the observer records it: mangled name, 64 blocks of 256 threads.
ObservedKernel graded(const char* mangled) {
    ObservedKernel k;
    k.name = mangled;
    k.graded = true;
    k.grid[0] = 64, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
    return k;
}

NcuKernel profiled(const char* demangled) {
    NcuKernel k;
    k.name = demangled;
    k.metrics = {{"launch__grid_size", 64}, {"launch__block_size", 256}};
    return k;
}

LoggedLaunch logged(const char* mangled) {
    LoggedLaunch l;
    l.name = mangled;
    l.grid[0] = 64, l.grid[1] = 1, l.grid[2] = 1;
    l.block[0] = 256, l.block[1] = 1, l.block[2] = 1;
    return l;
}

// (anonymous namespace)::tile<32>(float const*, float*, int) and the same with <33>.
constexpr const char* kAnon32 = "_ZN12_GLOBAL__N_14tileILi32EEEvPKfPfi";
constexpr const char* kAnon33 = "_ZN12_GLOBAL__N_14tileILi33EEEvPKfPfi";

}  // namespace

TEST_CASE("tool face: ncu's spelling of the anonymous namespace matches the runtime's") {
    Observation seen;
    seen.kernels = {graded(kAnon32)};
    CHECK(tool_face_mismatch(std::vector<NcuKernel>{profiled("void <unnamed>::tile<32>(const float *, float *, int)")}, seen)
              .empty());
    // Another kernel under the profiler, or other blocks, is a different face.
    CHECK_FALSE(tool_face_mismatch(std::vector<NcuKernel>{profiled("void <unnamed>::other<32>(const float *, float *, int)")}, seen)
                    .empty());
    NcuKernel wide = profiled("void <unnamed>::tile<32>(const float *, float *, int)");
    wide.metrics["launch__grid_size"] = 128;
    CHECK_FALSE(tool_face_mismatch(std::vector<NcuKernel>{wide}, seen).empty());
    CHECK_FALSE(tool_face_mismatch(std::vector<NcuKernel>{}, seen).empty());
}

TEST_CASE("tool face: a logged launch must be the very kernel, template arguments included") {
    Observation seen;
    seen.kernels = {graded(kAnon32)};
    CHECK(tool_face_mismatch(std::vector<LoggedLaunch>{logged(kAnon32)}, seen).empty());
    CHECK_FALSE(tool_face_mismatch(std::vector<LoggedLaunch>{logged(kAnon33)}, seen).empty());
    LoggedLaunch more_smem = logged(kAnon32);
    more_smem.dynamic_smem = 4096;
    CHECK_FALSE(tool_face_mismatch(std::vector<LoggedLaunch>{more_smem}, seen).empty());
    // Kernels that are not the graded code's do not count on the graded side.
    ObservedKernel grader = graded(kAnon33);
    grader.graded = false;
    seen.kernels.push_back(grader);
    CHECK(tool_face_mismatch(std::vector<LoggedLaunch>{logged(kAnon32)}, seen).empty());
}

// sanitizer_verdict(): the tool runs of one piece of work read against its graded run, in this order — a tool that could
// not run (SKIPPED), a run that launched something else (TAMPERED), an error (FAIL with the tool's report), else PASS.
TEST_CASE("sanitizer verdict: skipped, tampered, the first error, or no hazard") {
    Observation seen;
    seen.kernels = {graded(kAnon32)};
    SanitizerRun race, sync;
    race.clean = sync.clean = true;
    race.launches = sync.launches = {logged(kAnon32)};
    const std::vector<std::string> tools{"racecheck", "synccheck"};

    CorrectnessResult r = sanitizer_verdict({&race, &sync}, tools, seen, "two tiles", "the hint");
    CHECK(r.passed);
    CHECK(r.message == "racecheck and synccheck: no hazard on two tiles");
    CHECK(r.details["racecheck"]["launches"] == 1);

    SanitizerRun racy = race;
    racy.clean = false, racy.errors = 3, racy.first_report = "Error: Race reported between Write access ...";
    r = sanitizer_verdict({&racy, &sync}, tools, seen, "two tiles", "the hint");
    CHECK_FALSE(r.passed);
    CHECK(r.message.find("compute-sanitizer --tool racecheck reports 3 errors on two tiles:") == 0);
    CHECK(r.message.find("Race reported") != std::string::npos);
    CHECK(r.hint == "the hint");
    CHECK(r.tampered.empty());

    // Clean under the tool, but not the kernel the graded run launched: the tool's verdict is not the graded code's.
    SanitizerRun other = race;
    other.launches = {logged(kAnon33)};
    r = sanitizer_verdict({&race, &other}, tools, seen, "two tiles", "the hint");
    CHECK_FALSE(r.tampered.empty());
    CHECK(r.tampered.find("under compute-sanitizer --tool synccheck") == 0);
    SanitizerRun forged = race;
    forged.launches_forged = true;
    CHECK_FALSE(sanitizer_verdict({&forged, &sync}, tools, seen, "two tiles", "").tampered.empty());

    // A tool that could not run decides before anything it might have found.
    SanitizerRun absent;
    absent.skipped = "compute-sanitizer is not installed";
    r = sanitizer_verdict({&racy, &absent}, tools, seen, "two tiles", "");
    CHECK(r.skipped == "not checked: compute-sanitizer is not installed");
}
