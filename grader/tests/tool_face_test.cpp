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
