// FROZEN: do not edit. Lab 00's graded checks: c = a + b for awkward sizes (one fixed list, plus one size
// drawn from the run's seed), and speed as a fraction of this GPU's copy bandwidth measured in the same run.
// Every call of launch_vector_add runs observed by the grader (grader/observer.hpp): the kernels checked are
// the kernels that ran, and every timed call gets fresh inputs and a scrambled output.
#include <cstdint>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/compare_device.hpp"
#include "labs/random.hpp"
#include "vector_add.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

// Several times the L2: the timed size (performance is graded on it), checked for correctness first.
constexpr std::size_t kTimed = std::size_t(1) << 27;

CorrectnessResult check_size(Context& ctx, std::size_t n) {
    const std::string what = "c = a + b, n = " + std::to_string(n);
    const std::uint64_t seed = ctx.seed_for(what);
    std::vector<float> ha(n), hb(n);
    fill_uniform(ha, seed, -100.0f, 100.0f);
    fill_uniform(hb, seed + 1, -100.0f, 100.0f);
    const DeviceBuffer<float> a = to_device(ha), b = to_device(hb);
    // The graded run is observed: the kernels it really ran are the ones whose output is compared.
    Observation seen;
    const std::vector<float> c = run_on_poisoned<float>(
        n, [&](float* out) { launch_vector_add(a.data(), b.data(), out, n, nullptr); }, seen);
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = static_cast<double>(ha[i]) + static_cast<double>(hb[i]);
    // FP32 addition rounds once: the result is within half an ulp of the exact sum.
    CorrectnessResult r = to_result(compare_f32(c, ref, Tolerance{0.0, 6.0e-8}, TileLayout{1, n, 1, 4}), what);
    // Provenance from that same run: every kernel it ran must be defined in vector_add.cu.
    r = require_own_kernels(std::move(r), ctx, "vector_add", seen);
    return require_unchanged(std::move(r), {input("a", a, ha), input("b", b, hb)});
}

// The two largest sizes on the device: the grader's baseline kernel gives the exact bits (FP32 addition rounds
// once, and the small sizes above check that against the expected values, computed in double precision), the
// inputs are drawn on the device and kept in copies to prove them unchanged. On the host these two took 7 s of
// lab 00's grading; a wrong result is described by the host check.
CorrectnessResult check_size_on_device(Context& ctx, std::size_t n) {
    const std::string what = "c = a + b, n = " + std::to_string(n);
    const std::uint64_t seed = ctx.seed_for(what);
    DeviceBuffer<float> a(n), b(n), a0(n), b0(n), ref(n), out(n);
    fill_uniform_device(a.data(), n, seed, -100.0f, 100.0f, nullptr);
    fill_uniform_device(b.data(), n, seed + 1, -100.0f, 100.0f, nullptr);
    CUDA_CHECK(cudaMemcpy(a0.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(b0.data(), b.data(), b.bytes(), cudaMemcpyDeviceToDevice));
    launch_vector_add_baseline(a.data(), b.data(), ref.data(), n, nullptr);
    out.poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    const Observation seen = observe_call([&] { launch_vector_add(a.data(), b.data(), out.data(), n, nullptr); });
    CorrectnessResult r;
    const DeviceDiff d = compare_bits_device(out.data(), ref.data(), n, sizeof(float));
    if (d.count != 0) {
        // Wrong: the host check on inputs of its own says what is wrong and where (never written, NaN, the tail);
        // should that one pass, the verdict here stands.
        CorrectnessResult host = check_size(ctx, n);
        if (!host.passed && host.skipped.empty() && host.tampered.empty()) return host;
    }
    r.passed = d.count == 0;
    r.message = r.passed ? what + ": all " + std::to_string(n) + " elements exact"
                         : what + ": " + std::to_string(d.count) + " of " + std::to_string(n) +
                               " elements wrong; first at index " + std::to_string(*d.first);
    r = require_own_kernels(std::move(r), ctx, "vector_add", seen);
    const auto unchanged = [n](std::string name, const DeviceBuffer<float>& now, const DeviceBuffer<float>& was) {
        return InputCheck{std::move(name), [n, &now, &was] {
                              const DeviceDiff changed = compare_bits_device(now.data(), was.data(), n, sizeof(float));
                              return changed.count == 0 ? static_cast<std::size_t>(-1) : *changed.first;
                          }};
    };
    return require_unchanged(std::move(r), {unchanged("a", a, a0), unchanged("b", b, b0)});
}

// The timed size on two sets of buffers with different data, for the timing helpers to rotate over.
struct TimedSets {
    std::size_t n;
    DeviceBuffer<float> a[2], b[2], c[2];
    TimedSets(std::size_t n_, std::uint64_t seed) : n(n_) {
        for (int s = 0; s < 2; ++s) {
            a[s] = DeviceBuffer<float>(n);
            b[s] = DeviceBuffer<float>(n);
            c[s] = DeviceBuffer<float>(n);
            refill(s, seed + 2 * s, nullptr);
        }
    }
    void refill(int s, std::uint64_t seed, cudaStream_t stream) {
        fill_uniform_device(a[s].data(), n, seed, -100.0f, 100.0f, stream);
        fill_uniform_device(b[s].data(), n, seed + 1, -100.0f, 100.0f, stream);
    }
    // FP32 addition rounds once, so every correct kernel gives the baseline's bits.
    std::string verify(int s, const void* out) {
        DeviceBuffer<float> ref(n);
        launch_vector_add_baseline(a[s].data(), b[s].data(), ref.data(), n, nullptr);
        const DeviceDiff d = compare_bits_device(out, ref.data(), n, sizeof(float));
        if (d.count == 0) return "";
        return std::to_string(d.count) + " of " + std::to_string(n) + " elements wrong; first at index " +
               std::to_string(*d.first);
    }
    std::pair<void*, std::size_t> output(int s) { return output_of(c[s]); }
    Rotation rotation(void (*launch)(const float*, const float*, float*, std::size_t, cudaStream_t)) {
        return rotation_of(*this, [this, launch](int s, cudaStream_t st) { launch(a[s].data(), b[s].data(), c[s].data(), n, st); });
    }
};

}  // namespace

void register_checks(Lab& lab) {
    // One element; the handout's 1000 (a partial last block); 2^20 + 7 and 2^26 + 3 (a float4 tail of 3,
    // the second one larger than the L2); an odd size drawn from the run's seed (a tail of 1 or 3, at a
    // size no one can tune for); the timed size.
    const auto drawn = static_cast<std::size_t>(draw(lab.seed_for("lab00 drawn n"), 3, (1 << 24) + 1, 1) | 1);
    const struct {
        const char* id;
        std::string title;
        std::size_t n;
        double points;
    } sizes[] = {{"correct.n1", "c = a + b, n = 1", 1, 5},
                 {"correct.n1000", "c = a + b, n = 1000", 1000, 10},
                 {"correct.n1048583", "c = a + b, n = 2^20 + 7", (std::size_t(1) << 20) + 7, 10},
                 {"correct.large", "c = a + b, n = 2^26 + 3", (std::size_t(1) << 26) + 3, 10},
                 {"correct.drawn", "c = a + b, n = " + std::to_string(drawn) + " (drawn)", drawn, 5},
                 {"correct.timed", "c = a + b, n = 2^27 (timed size)", kTimed, 5}};
    for (const auto& s : sizes)
        lab.correctness(s.id, s.title, s.points, [n = s.n](Context& ctx) {
            return n >= (std::size_t(1) << 26) ? check_size_on_device(ctx, n) : check_size(ctx, n);
        });

    // The one-thread-per-element baseline reaches about 0.76-0.82 on an H200 and the solution about
    // 0.97-0.99 (measured): a correct naive kernel earns partial credit, the last 10% need the handout's steps.
    const CopyBaseline copy = copy_baseline(3.0 * 4.0 * static_cast<double>(kTimed));  // read a, b; write c
    const PerfSpec spec{.requires_check = "correct.timed", .pass_bar = 0.70, .full_bar = 0.90, .unit = "of copy BW",
                        .baseline = copy.baseline};
    lab.performance("perf.copy_fraction", "bandwidth, n = 2^27 (vs D2D copy)", 35, spec, [copy](Context& ctx) {
        TimedSets sets(kTimed, ctx.seed_for("lab00 timed"));
        PerfResult r = fraction_of_copy_bandwidth(ctx, copy, sets.rotation(&launch_vector_add), "lab00 vector_add");
        // Floors: the bytes (set by the helper: 12 bytes per element at the copy rate with its headroom), and the
        // ratio itself. The work reads and writes exactly the bytes of the copy it is timed against, in the same
        // loop: an honest kernel can match the copy engine's kernel, not beat it by more than a few percent (the
        // solution measures 0.97-0.99; 2:1 reads to writes instead of 1:1 is worth a few percent at most).
        r.floor.ratio_at_most(1.10,
                              "a vector add moves the same bytes as the copy it is timed against, in the same loop");
        // (The baseline's fraction, for contrast, is in docs/performance-log.md: timed by this helper, the
        // baseline would run as graded code, which the grader's own code never does.)
        return r;
    });
}
