// Known-bad (wrong/expect.json): the solution with a policy that always answers generic, and a specialised launcher
// that makes itself slow while perf.policy measures its costs (it looks for the directory that checks.cu names for
// that step): specialising then looks as if it never paid, the trace is drawn with no shape worth specialising, and
// "always generic" is priced as the best plan. perf.policy measures the costs again after the served run and holds
// the costs at M = 16 against measure.crossover's runs: INVALID.
#include <filesystem>
#include <string>

#define choose_strategy solution_choose_strategy
#define launch_gemm_specialized solution_launch_gemm_specialized
#include "../shapes.cu"
#undef choose_strategy
#undef launch_gemm_specialized

int choose_strategy(const std::array<StrategyCost, 3>&, double) { return 0; }

namespace {
// Whether perf.policy's cost measurement is under way: its cache's directory exists.
bool costs_being_measured() {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec))
        if (e.path().filename().string().find("lab09-serve-costs") != std::string::npos) return true;
    return false;
}
}  // namespace

void launch_gemm_specialized(const Gemm& g, ProgramCache& cache, cudaStream_t stream) {
    // The same call four times while measured (the same Y each time): four times its cost.
    for (int i = 0, n = costs_being_measured() ? 4 : 1; i < n; ++i) solution_launch_gemm_specialized(g, cache, stream);
}
