// FROZEN: do not edit. Lab 09's graded checks (work in progress: the host-side ones — the policy against the
// models, and the program cache: memory order, a warm second cache, damaged files, every part of the key, and
// processes sharing the directory; the kernels' checks come with the GPU run).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "grader/gpu_checks.hpp"
#include "labs/models/shapes.hpp"
#include "labs/random.hpp"
#include "labs/text.hpp"
#include "shapes.hpp"

using namespace gpulab;
using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// ---- (d) the policy ----------------------------------------------------------------------------------------

// The model's choice: the least P + r·T, by labs_models' ranges (ties to the strategy listed first).
int model_choice(const std::array<StrategyCost, 3>& c, std::int64_t calls) {
    const std::vector<models::Strategy> s{{"0", c[0].prep_ms, c[0].call_ms}, {"1", c[1].prep_ms, c[1].call_ms},
                                          {"2", c[2].prep_ms, c[2].call_ms}};
    if (calls == 0) {
        int best = 0;
        for (int i = 1; i < 3; ++i)
            if (c[i].prep_ms < c[best].prep_ms) best = i;
        return best;
    }
    for (const models::BestRange& r : models::best_strategy_ranges(s, calls))
        if (r.first <= calls && calls <= r.last) return std::stoi(r.strategy);
    return 0;
}

CorrectnessResult check_policy(Context& ctx) {
    std::mt19937_64 rng(ctx.seed_for("lab09 policy"));
    std::uniform_real_distribution<double> prep(0, 1000), call(0.01, 20);
    int cases = 0;
    for (int n = 0; n < 400; ++n) {
        std::array<StrategyCost, 3> c{};
        for (auto& s : c) s = {std::round(prep(rng)), std::round(call(rng) * 100) / 100};
        if (n % 4 == 0) c[0].prep_ms = 0;  // the generic kernel usually needs nothing
        // Calls around each crossover (where a wrong comparison shows), and a few anywhere.
        std::vector<std::int64_t> calls{0, 1, std::int64_t(rng() % 100000)};
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                if (a != b && c[a].prep_ms <= c[b].prep_ms)
                    if (const auto x = models::crossover_groups({"a", c[a].prep_ms, c[a].call_ms}, {"b", c[b].prep_ms, c[b].call_ms}))
                        for (const std::int64_t r : {*x - 1, *x, *x + 1})
                            if (r >= 0) calls.push_back(r);
        for (const std::int64_t r : calls) {
            const int want = model_choice(c, r), got = choose_strategy(c, double(r));
            ++cases;
            if (got != want) {
                CorrectnessResult res;
                res.message = strprintf("P = (%g, %g, %g) ms, T = (%g, %g, %g) ms, %lld calls still expected: you chose %d, "
                                        "the least total time P + r·T is strategy %d",
                                        c[0].prep_ms, c[1].prep_ms, c[2].prep_ms, c[0].call_ms, c[1].call_ms, c[2].call_ms,
                                        (long long)r, got, want);
                res.hint = "compare P + r·T of the three, and give a tie to the lower index";
                return res;
            }
        }
    }
    CorrectnessResult r;
    r.passed = true;
    r.message = strprintf("%d cases, around every crossover of 400 random cost triples: the model's choice each time", cases);
    return r;
}

// ---- (c) the program cache ---------------------------------------------------------------------------------

// A fresh directory, removed when the check ends.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& tag) {
        path = std::filesystem::temp_directory_path() / ("labs-lab09-" + tag + "-" + std::to_string(::getpid()) + "-" +
                                                         std::to_string(std::random_device{}()));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

ProgramKey key_of(int i) { return {"// program " + std::to_string(i) + "\n__global__ void k() {}\n", "-O3", "sm_90", 13000}; }

// Deterministic bytes for program i (a few KiB, different for every i).
std::vector<char> image_of(int i) {
    std::vector<char> v(4096 + 97 * i);
    std::uint64_t x = mix64(i + 1);
    for (char& c : v) c = static_cast<char>(x = mix64(x));
    return v;
}

const char* outcome_name(CacheOutcome o) {
    switch (o) {
        case CacheOutcome::memory_hit: return "memory_hit";
        case CacheOutcome::disk_hit: return "disk_hit";
        case CacheOutcome::built: return "built";
        case CacheOutcome::rebuilt_corrupt: return "rebuilt_corrupt";
    }
    return "?";
}

// get(i) on `cache`, expecting `want` and the right bytes; "" when so. Counts build() calls in `builds`.
std::string expect_get(ProgramCache& cache, int i, CacheOutcome want, int& builds, const std::string& step) {
    const CacheResult r = cache.get(key_of(i), [&] { ++builds; return image_of(i); });
    if (r.image == nullptr || *r.image != image_of(i))
        return step + ": program " + std::to_string(i) + " came back with other bytes than it was built with";
    if (r.outcome != want)
        return step + ": program " + std::to_string(i) + " was " + outcome_name(r.outcome) + ", expected " + outcome_name(want);
    return "";
}

CorrectnessResult result_of(const std::string& why, const std::string& ok, const std::string& hint) {
    CorrectnessResult r;
    r.passed = why.empty();
    r.message = why.empty() ? ok : why;
    if (!r.passed) r.hint = hint;
    return r;
}

CorrectnessResult check_memory_order(Context&) {
    TempDir dir("memory");
    ProgramCache cache(dir.path, 2);
    int builds = 0;
    std::string why;
    for (const auto& [i, want, step] : std::vector<std::tuple<int, CacheOutcome, std::string>>{
             {0, CacheOutcome::built, "first use of 0"}, {0, CacheOutcome::memory_hit, "0 again"},
             {1, CacheOutcome::built, "first use of 1"}, {0, CacheOutcome::memory_hit, "0 (now the most recent)"},
             {2, CacheOutcome::built, "first use of 2 (memory holds 2: 1 is the least recent and leaves)"},
             {0, CacheOutcome::memory_hit, "0 (still in memory)"}, {1, CacheOutcome::disk_hit, "1 (back from disk)"}})
        if (why.empty()) why = expect_get(cache, i, want, builds, step);
    if (why.empty() && builds != 3) why = strprintf("build() ran %d times for 3 programs", builds);
    return result_of(why, "in memory the 2 most recently used; the third from disk, never rebuilt",
                     "keep programs in use order and drop the least recently used beyond the capacity");
}

CorrectnessResult check_warm_start(Context&) {
    TempDir dir("warm");
    int builds = 0;
    std::string why;
    {
        ProgramCache first(dir.path, 4);
        for (int i = 0; i < 3 && why.empty(); ++i) why = expect_get(first, i, CacheOutcome::built, builds, "first cache");
    }
    ProgramCache second(dir.path, 4);
    for (int i = 0; i < 3 && why.empty(); ++i) why = expect_get(second, i, CacheOutcome::disk_hit, builds, "second cache");
    if (why.empty() && builds != 3) why = strprintf("build() ran %d times for 3 programs and 2 caches", builds);
    return result_of(why, "a second cache on the same directory finds all 3 programs on disk",
                     "write each program to the directory when it is built, and look there before building");
}

// Damages every file the cache wrote with `damage`, then expects rebuilt_corrupt once and disk hits after.
CorrectnessResult check_damaged(const std::string& tag, const std::function<void(const std::filesystem::path&)>& damage,
                                const std::string& what) {
    TempDir dir(tag);
    int builds = 0;
    std::string why;
    {
        ProgramCache cache(dir.path, 4);
        why = expect_get(cache, 0, CacheOutcome::built, builds, "first use");
    }
    int files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path))
        if (e.is_regular_file()) damage(e.path()), ++files;
    if (why.empty() && files == 0) why = "the cache wrote no file into its directory";
    if (why.empty()) {
        ProgramCache cache(dir.path, 4);
        const CacheResult r = cache.get(key_of(0), [&] { ++builds; return image_of(0); });
        if (r.image == nullptr || *r.image != image_of(0))
            why = "after the file was " + what + ", the cache returned other bytes than the program's";
        else if (r.outcome != CacheOutcome::rebuilt_corrupt)
            why = std::string("after the file was ") + what + ", get() said " + outcome_name(r.outcome) + ", not rebuilt_corrupt";
        else if (r.note.empty())
            why = "rebuilt_corrupt without a note saying what was wrong";
    }
    if (why.empty()) {
        ProgramCache cache(dir.path, 4);
        why = expect_get(cache, 0, CacheOutcome::disk_hit, builds, "the next cache (the file replaced)");
    }
    return result_of(why, "a file " + what + " is reported, not used, and replaced by a fresh build",
                     "store with each program what it takes to check it (its length, a checksum, its key) and check "
                     "all of it before use");
}

CorrectnessResult check_keys(Context&) {
    TempDir dir("keys");
    ProgramCache cache(dir.path, 8);
    std::vector<ProgramKey> keys(5, key_of(0));
    keys[1].source += " ";
    keys[2].options = "-O2";
    keys[3].arch = "sm_80";
    keys[4].driver = 12080;
    const char* part[] = {"-", "source", "options", "architecture", "driver"};
    std::string why;
    for (int round = 0; round < 2 && why.empty(); ++round)
        for (std::size_t i = 0; i < keys.size() && why.empty(); ++i) {
            const CacheResult r = cache.get(keys[i], [&] { return image_of(int(10 + i)); });
            const CacheOutcome want = round == 0 ? CacheOutcome::built : CacheOutcome::memory_hit;
            if (r.image == nullptr || *r.image != image_of(int(10 + i)))
                why = strprintf("%s: the key differing only in its %s got another program's bytes",
                                round == 0 ? "first use" : "second use", part[i]);
            else if (r.outcome != want)
                why = strprintf("%s of the key differing only in its %s: %s, expected %s", round == 0 ? "first use" : "second use",
                                part[i], outcome_name(r.outcome), outcome_name(want));
        }
    return result_of(why, "source, options, architecture and driver each make a key of their own",
                     "every part of the key must be in what names the program");
}

// Several processes share one directory: each gets 8 programs in a shuffled order, 150 times; no process may
// see a damaged file or other bytes.
constexpr int kHammerPrograms = 8, kHammerRounds = 150;

void hammer() {
    const char* dir = std::getenv("LAB09_CACHE_DIR");
    if (dir == nullptr) throw std::runtime_error("LAB09_CACHE_DIR is not set");
    ProgramCache cache(dir, 2);
    std::mt19937 rng(static_cast<unsigned>(::getpid()));
    for (int round = 0; round < kHammerRounds; ++round) {
        const int i = static_cast<int>(rng() % kHammerPrograms);
        const CacheResult r = cache.get(key_of(i), [&] { return image_of(i); });
        if (r.image == nullptr || *r.image != image_of(i)) throw std::runtime_error("program " + std::to_string(i) + ": other bytes");
        if (r.outcome == CacheOutcome::rebuilt_corrupt)
            throw std::runtime_error("program " + std::to_string(i) + " found damaged while others wrote: " + r.note);
    }
}

CorrectnessResult check_concurrent(Context&) {
    TempDir dir("shared");
    ::setenv("LAB09_CACHE_DIR", dir.path.c_str(), 1);
    const std::vector<TargetRun> runs = run_targets_together({"cache_hammer", "cache_hammer", "cache_hammer"}, 120);
    ::unsetenv("LAB09_CACHE_DIR");
    std::string why;
    for (const TargetRun& r : runs)
        if (r.status != 0 && why.empty())
            why = r.status == -2 ? "a process sharing the directory did not finish in 120 s"
                                 : "a process sharing the directory failed: " + r.output.substr(0, 400);
    if (why.empty()) {
        int builds = 0;
        ProgramCache cache(dir.path, 1);
        for (int i = 0; i < kHammerPrograms && why.empty(); ++i)
            why = expect_get(cache, i, CacheOutcome::disk_hit, builds, "after the processes");
    }
    return result_of(why, "3 processes, 150 gets each over 8 programs in one directory: no damaged file, no wrong bytes",
                     "write to a temporary file in the same directory and rename it over the final name (atomic), so "
                     "that a reader never sees half a file");
}

}  // namespace

void register_checks(Lab& lab) {
    lab.host_check("policy.synthetic", "(d) the strategy with the least P + r·T, around every crossover", 8, check_policy);
    lab.host_check("cache.memory", "(c) the cache keeps the most recently used programs in memory", 4, check_memory_order);
    lab.host_check("cache.warm", "(c) a second cache on the same directory starts warm", 4, check_warm_start);
    lab.host_check("cache.corrupt", "(c) a changed file is reported and rebuilt, never used", 4, [](Context&) {
        return check_damaged("corrupt", [](const std::filesystem::path& p) {
            std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
            const auto size = std::filesystem::file_size(p);
            f.seekg(std::streamoff(size - 1));
            char c = 0;
            f.read(&c, 1);
            c = static_cast<char>(c ^ 0x40);
            f.seekp(std::streamoff(size - 1));
            f.write(&c, 1);
        }, "changed in its last byte");
    });
    lab.host_check("cache.truncated", "(c) a truncated file is reported and rebuilt", 3, [](Context&) {
        return check_damaged("truncated", [](const std::filesystem::path& p) {
            std::filesystem::resize_file(p, std::filesystem::file_size(p) / 2);
        }, "cut to half its length");
    });
    lab.host_check("cache.keys", "(c) every part of the key names a program", 3, check_keys);
    lab.profile_target("cache_hammer", hammer);
    lab.host_check("cache.concurrent", "(c) processes sharing the directory never see a damaged file", 4, check_concurrent);
}
