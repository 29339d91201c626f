// Known-bad (wrong/expect.json): predicts the verified timed run from the run's seed. A plain static
// constructor (no priority: the code policy allows it) receives the process's argc and argv from the C
// library, looks for `--seed N` there and computes what the grader once derived from it: the one timed run it
// verified, rep = mix64(seed ^ fnv1a("lab00 verified run")) % 15 (without a seed on the command line — the
// runner now gets its parameters on its key pipe — it bets on rep 0). The launcher is honest on the correctness
// check and on that run, and skips the last 15% of the elements on every other call at the timed size. The
// grader now picks the verified calls after each call, from randomness that is not derived from the seed:
// three of them are checked and at most one is honest, so the check fails.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "labs/random.hpp"
#include "one_per_element.cuh"

namespace {

std::uint64_t g_seed = 0;
bool g_have_seed = false;

std::uint64_t fnv1a(const char* s) {
    std::uint64_t h = 1469598103934665603ull;
    for (; *s != '\0'; ++s) {
        h ^= static_cast<unsigned char>(*s);
        h *= 1099511628211ull;
    }
    return h;
}

// glibc calls the executable's constructors with (argc, argv, envp).
__attribute__((constructor)) void read_seed(int argc, char** argv, char**) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--seed") == 0) {
            g_seed = std::strtoull(argv[i + 1], nullptr, 10);
            g_have_seed = true;
        }
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    constexpr std::size_t kTimed = std::size_t(1) << 27;
    constexpr int kWarmup = 3, kMinReps = 15;
    static int calls_at_timed_size = 0;
    if (n != kTimed) {
        wrong::add(a, b, c, n, stream);
        return;
    }
    const int call = ++calls_at_timed_size;  // 1: the correctness check, then the warm-ups, then timed run 0, ...
    const int verified_rep =
        g_have_seed ? static_cast<int>(gpulab::mix64(g_seed ^ fnv1a("lab00 verified run")) % kMinReps) : 0;
    const bool verified = call == 1 || call == 1 + kWarmup + verified_rep + 1;
    wrong::add(a, b, c, verified ? n : n - n * 15 / 100, stream);
}
