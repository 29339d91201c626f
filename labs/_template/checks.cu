// FROZEN: do not edit. Lab NN's graded checks: y = a · x at awkward sizes, and speed as a fraction of this GPU's copy
// bandwidth measured in the same run. Every graded call runs observed (grader/observer.hpp): the kernels compared
// are the kernels that ran, each defined in scale.cu; every timed call gets fresh inputs and a scrambled output.
// (The template's checks: a new lab keeps this shape — cases, checks, bars — and replaces the operation.)
#include <cstdint>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/compare_device.hpp"
#include "labs/random.hpp"
#include "scale.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

// The timed size: 512 MiB moved, many times the L2.
constexpr std::size_t kTimed = std::size_t(1) << 26;

// The factor of a case, drawn from its seed.
float factor(std::uint64_t seed) {
    std::vector<float> a(1);
    fill_uniform(a, seed, -4.0f, 4.0f);
    return a[0];
}

// Sizes the host can check element by element: a double-precision expectation, messages that say what is wrong
// and where (never written, NaN, the tail).
CorrectnessResult check_on_host(Context& ctx, std::size_t n) {
    const std::string what = "y = a · x, n = " + std::to_string(n);
    const std::uint64_t seed = ctx.seed_for(what);
    const float a = factor(seed + 1);
    std::vector<float> hx(n);
    fill_uniform(hx, seed, -100.0f, 100.0f);
    const DeviceBuffer<float> x = to_device(hx);
    Observation seen;
    const std::vector<float> y = run_on_poisoned<float>(n, [&](float* out) { launch_scale(x.data(), a, out, n, nullptr); }, seen);
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = double(a) * double(hx[i]);
    // FP32 multiplication rounds once: within half an ulp of the exact product.
    CorrectnessResult r = to_result(compare_f32(y, expected, Tolerance{0.0, 6.0e-8}, TileLayout{1, n, 1, 4}), what);
    r = require_own_kernels(std::move(r), ctx, "scale", seen);
    return require_unchanged(std::move(r), {input("x", x, hx)});
}

// The timed sets: x and y twice, for the timing helpers to rotate over; the baseline's bits are the expected ones.
struct TimedSets {
    std::size_t n;
    float a;
    DeviceBuffer<float> x[2], y[2];
    TimedSets(std::size_t n_, std::uint64_t seed) : n(n_), a(factor(seed)) {
        for (int s = 0; s < 2; ++s) {
            x[s] = DeviceBuffer<float>(n);
            y[s] = DeviceBuffer<float>(n);
            refill(s, seed + 1 + s, nullptr);
        }
    }
    std::string verify(int s, const void* out) const {
        DeviceBuffer<float> expected(n);
        launch_scale_baseline(x[s].data(), a, expected.data(), n, nullptr);
        const DeviceDiff d = compare_bits_device(out, expected.data(), n, sizeof(float));
        return d.count == 0 ? "" : std::to_string(d.count) + " of " + std::to_string(n) + " elements wrong; first at index " +
                                       std::to_string(*d.first);
    }
    void refill(int s, std::uint64_t seed, cudaStream_t st) { fill_uniform_device(x[s].data(), n, seed, -100.0f, 100.0f, st); }
    std::pair<void*, std::size_t> output(int s) { return output_of(y[s]); }
    Rotation rotation() {
        return rotation_of(*this, [this](int s, cudaStream_t st) { launch_scale(x[s].data(), a, y[s].data(), n, st); });
    }
};

// The timed size, checked on the device against the baseline's bits in one observed call.
CorrectnessResult check_timed_size(Context& ctx) {
    TimedSets sets(kTimed, ctx.seed_for("labNN timed size"));
    DeviceBuffer<float> x0(kTimed);
    CUDA_CHECK(cudaMemcpy(x0.data(), sets.x[0].data(), x0.bytes(), cudaMemcpyDeviceToDevice));
    sets.y[0].poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    const Observation seen = observe_call([&] { launch_scale(sets.x[0].data(), sets.a, sets.y[0].data(), kTimed, nullptr); });
    const std::string wrong = sets.verify(0, sets.y[0].data());
    CorrectnessResult r;
    r.passed = wrong.empty();
    r.message = "y = a · x, n = 2^26: " + (r.passed ? "every element exact" : wrong);
    r = require_own_kernels(std::move(r), ctx, "scale", seen);
    const DeviceDiff changed = compare_bits_device(sets.x[0].data(), x0.data(), kTimed, sizeof(float));
    return require_unchanged(std::move(r), {InputCheck{"x", [&] { return changed.count == 0 ? std::size_t(-1) : *changed.first; }}});
}

}  // namespace

void register_checks(Lab& lab) {
    // One element; a partial last block; a float4 tail of 3; an odd size drawn per run; the timed size.
    const auto drawn = static_cast<std::size_t>(draw(lab.seed_for("labNN drawn n"), 3, (1 << 22) + 1, 1) | 1);
    for (const std::size_t n : {std::size_t(1), std::size_t(1000), (std::size_t(1) << 20) + 3})
        lab.correctness("correct.n" + std::to_string(n), "y = a · x, n = " + std::to_string(n), 5,
                        [n](Context& ctx) { return check_on_host(ctx, n); });
    lab.correctness("correct.drawn", "y = a · x, n = " + std::to_string(drawn) + " (drawn)", 5,
                    [drawn](Context& ctx) { return check_on_host(ctx, drawn); });
    lab.correctness("correct.timed", "y = a · x, n = 2^26 (timed size)", 5, check_timed_size);

    // Bars from the solution on an H200: set them so that the solution clears full marks with room and an honest
    // first attempt (one thread per element) earns partial credit.
    const CopyBaseline copy = copy_baseline(2.0 * 4.0 * static_cast<double>(kTimed));  // read x, write y
    const PerfSpec spec{.requires_check = "correct.timed", .pass_bar = 0.70, .full_bar = 0.90, .unit = "of copy BW",
                        .baseline = copy.baseline};
    lab.performance("perf.copy_fraction", "bandwidth, n = 2^26 (vs D2D copy)", 25, spec, [copy](Context& ctx) {
        TimedSets sets(kTimed, ctx.seed_for("labNN timed"));
        PerfResult r = fraction_of_copy_bandwidth(ctx, copy, sets.rotation(), "labNN scale");
        // The floors: the bytes at the copy rate (set by the helper), and the ratio: y = a · x moves the bytes of
        // the copy it is timed against, in the same loop, so it cannot beat it by more than the noise.
        r.floor.ratio_at_most(1.10, "y = a · x moves the same bytes as the copy it is timed against, in the same loop");
        return r;
    });
}
