// FROZEN: do not edit. Lab 00's graded checks: correctness of c = a + b for awkward sizes, and speed
// as a fraction of this GPU's copy bandwidth measured in the same run.
#include <cstdint>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "grader/lab.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/random.hpp"
#include "vector_add.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

// Checked sizes: one element, the notes' 1000 (a partial last block), a large odd size (a float4
// tail of 3), and one several times the L2 (timed: performance is graded on this one).
constexpr std::size_t kLargeCorrect = (std::size_t(1) << 26) + 3;
constexpr std::size_t kTimed = std::size_t(1) << 27;

CorrectnessResult check_size(Context& ctx, std::size_t n) {
    const std::string what = "c = a + b, n = " + std::to_string(n);
    const std::uint64_t seed = ctx.seed_for(what);
    DeviceBuffer<float> a(n), b(n), c(n);
    fill_uniform_device(a.data(), n, seed, -100.0f, 100.0f);
    fill_uniform_device(b.data(), n, seed + 1, -100.0f, 100.0f);
    c.poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    launch_vector_add(a.data(), b.data(), c.data(), n, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> ha(n), hb(n);
    fill_uniform(ha, seed, -100.0f, 100.0f);
    fill_uniform(hb, seed + 1, -100.0f, 100.0f);
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = static_cast<double>(ha[i]) + static_cast<double>(hb[i]);
    // FP32 addition rounds once: the result is within half an ulp of the exact sum.
    const CompareReport rep = compare_f32(to_host(c), ref, Tolerance{0.0, 6.0e-8}, TileLayout{1, n, 1, 4});
    CorrectnessResult r = to_result(rep, what);
    if (r.passed && (to_host(a) != ha || to_host(b) != hb)) {
        r.passed = false;
        r.message = "the inputs a and b were modified";
        r.hint = "the kernel must only write c";
    }
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    lab.correctness("correct.n1", "c = a + b, n = 1", 10, [](Context& ctx) { return check_size(ctx, 1); });
    lab.correctness("correct.n1000", "c = a + b, n = 1000", 10, [](Context& ctx) { return check_size(ctx, 1000); });
    lab.correctness("correct.n1048583", "c = a + b, n = 2^20 + 7", 10,
                    [](Context& ctx) { return check_size(ctx, (std::size_t(1) << 20) + 7); });
    lab.correctness("correct.large", "c = a + b, n = 2^26 + 3", 10,
                    [](Context& ctx) { return check_size(ctx, kLargeCorrect); });
    lab.correctness("correct.timed", "c = a + b, n = 2^27 (timed size)", 5,
                    [](Context& ctx) { return check_size(ctx, kTimed); });

    // The one-thread-per-element baseline reaches about 0.82 on an H200 and the reference about 0.98
    // (measured): a correct naive kernel earns partial credit, the last 10% need the handout's steps.
    const PerfSpec spec{.requires_check = "correct.timed", .pass_bar = 0.70, .full_bar = 0.90, .unit = "of copy BW"};
    lab.performance("perf.copy_fraction", "bandwidth, n = 2^27 (vs D2D copy)", 35, spec, [](Context& ctx) {
        const std::size_t n = kTimed;
        DeviceBuffer<float> a(n), b(n), c(n);
        fill_uniform_device(a.data(), n, ctx.seed_for("perf.a"));
        fill_uniform_device(b.data(), n, ctx.seed_for("perf.b"));
        const double bytes = 3.0 * 4.0 * static_cast<double>(n);  // read a, b; write c
        PerfResult r = fraction_of_copy_bandwidth(
            [&](cudaStream_t s) { launch_vector_add(a.data(), b.data(), c.data(), n, s); }, bytes, "lab00 vector_add");
        // For contrast (not graded): the baseline's fraction, measured the same way.
        const PerfResult base = fraction_of_copy_bandwidth(
            [&](cudaStream_t s) { launch_vector_add_baseline(a.data(), b.data(), c.data(), n, s); }, bytes,
            "lab00 baseline");
        r.details["baseline_fraction_of_copy"] = base.ratio;
        return r;
    });
}
