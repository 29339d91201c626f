/**
 * @file gpu_checks.hpp
 * @brief The lab kit: what every lab's checks.cu needs, written once.
 *
 * - cases: cached_case() makes a shape's inputs (and references) once per run, from the run's seed;
 *   draw() (grader/lab.hpp) picks sizes from the seed, so each run adds shapes nobody could tune for;
 * - results: run_on_poisoned() runs a launcher on a poisoned output and brings it back; to_result()
 *   turns a comparison into a correctness result; require_unchanged() fails it, with one wording, when
 *   the code wrote into an input;
 * - launches: kernel_count_result() grades what a captured graph (labs/graph.hpp) launched;
 * - timings: fraction_of_copy_bandwidth() and speedup_over(), always interleaved in one process.
 *
 * @code
 * struct Case { std::vector<float> hx; DeviceBuffer<float> x; };
 * CorrectnessResult check(Context& ctx, std::size_t n) {
 *     const Case& c = cached_case<Case>("n=" + std::to_string(n), [&] { ... });
 *     const auto y = run_on_poisoned<float>(n, [&](float* out) { launch_mine(c.x.data(), out, n, nullptr); });
 *     CorrectnessResult r = to_result(compare_f32(y, reference(c), tol), "y = f(x)");
 *     return require_unchanged(std::move(r), {input("x", c.x, c.hx)});
 * }
 * @endcode
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/bf16.hpp"
#include "labs/buffer.hpp"
#include "labs/compare.hpp"
#include "labs/graph.hpp"
#include "labs/timing.hpp"

namespace gpulab::grader {

// ---- cases -------------------------------------------------------------------------------------------

/**
 * @brief The case stored under @p key, made by @p make on first use and kept for the rest of the run
 * (one process grades one lab once, so "per process" is "per run"). A lab keeps one case type: its
 * inputs on host and device and whatever reference it computes from them.
 * @tparam Case the lab's case type
 * @param key  names the case (e.g. its shape); equal keys share one case
 * @param make makes the case (draws its data from the run's seed)
 */
template <typename Case>
Case& cached_case(const std::string& key, const std::function<std::unique_ptr<Case>()>& make) {
    static std::map<std::string, std::unique_ptr<Case>> cases;
    std::unique_ptr<Case>& slot = cases[key];
    if (!slot) slot = make();
    return *slot;
}


// ---- results -----------------------------------------------------------------------------------------

/**
 * @brief Runs @p launch on a fresh output of @p count elements that is poisoned first (so an element
 * the code never writes is caught), on the default stream, waits for it, and returns the output's bits.
 * @tparam T     the output's element type (bf16 comes back as std::uint16_t bits)
 * @param count  output elements
 * @param launch called with the device pointer; enqueues the code under test on the default stream
 */
template <typename T, typename Launch>
[[nodiscard]] std::vector<raw_bits_t<T>> run_on_poisoned(std::size_t count, Launch&& launch) {
    DeviceBuffer<T> out(count);
    out.poison();
    CUDA_CHECK(cudaDeviceSynchronize());
    launch(out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    return to_host_raw(out);
}

/**
 * @brief A correctness result from a comparison report.
 * @param report what compare() found
 * @param what   what was compared, e.g. "c = a + b, n = 1000"
 */
[[nodiscard]] CorrectnessResult to_result(const CompareReport& report, const std::string& what);

/** @brief One input of a check, to be verified unchanged after the code ran (see input()). */
struct InputCheck {
    std::string name;                          ///< as the handout names it ("A", "W", "G")
    std::function<std::size_t()> first_change; ///< index of the first changed element, or npos
};

/** @brief An input kept on the device (@p device) whose original bits are @p host.
 *  @param name the input's name @param device the buffer the code read @param host its original bits */
template <typename T>
[[nodiscard]] InputCheck input(std::string name, const DeviceBuffer<T>& device, const std::vector<raw_bits_t<T>>& host) {
    return {std::move(name), [&device, &host]() -> std::size_t {
                const std::vector<raw_bits_t<T>> now = to_host_raw(device);
                if (now.size() != host.size()) return 0;
                for (std::size_t i = 0; i < now.size(); ++i)
                    if (std::memcmp(&now[i], &host[i], sizeof(now[i])) != 0) return i;
                return static_cast<std::size_t>(-1);
            }};
}

/**
 * @brief Fails @p r when the code wrote into any of @p inputs (every input is checked, whatever @p r
 * says): "the input W was modified (first at element 17)", with the hint that a launcher writes only its
 * outputs. The comparison's own message follows when it failed too.
 * @param r      the result of the check so far
 * @param inputs the check's inputs (see input())
 */
[[nodiscard]] CorrectnessResult require_unchanged(CorrectnessResult r, std::initializer_list<InputCheck> inputs);

// ---- launches ----------------------------------------------------------------------------------------

/**
 * @brief Grades the kernels a captured graph holds against the number a path must launch:
 * "captured graph: 2 kernels: a, b; expected 1". @p r keeps its other findings; the count adds to them.
 * @param graph    the captured work
 * @param expected kernel launches the path must make
 * @param hint     what to do when the count is wrong
 */
[[nodiscard]] CorrectnessResult kernel_count_result(const CapturedGraph& graph, std::size_t expected,
                                                    const std::string& hint);

/**
 * @brief A correctness result from a comparison report.
 * @param report what compare() found
 * @param what   what was compared, e.g. "c = a + b, n = 1000"
 */
[[nodiscard]] CorrectnessResult to_result(const CompareReport& report, const std::string& what);

// ---- timings -----------------------------------------------------------------------------------------

/** @brief Default timing options for graded performance checks (L2 flushed, median stable to 1%). */
[[nodiscard]] TimingOptions grading_timing(const std::string& label);

/**
 * @brief Fraction of the device-to-device copy bandwidth that @p work reaches: @p work and a
 * cudaMemcpy moving the same number of bytes (bytes_moved / 2 copied = bytes_moved read + written) are
 * timed interleaved; the ratio is t_copy / t_work. The floor is bytes_moved at the theoretical DRAM
 * bandwidth (a faster time is physically impossible).
 * @param work        enqueues the graded code once
 * @param bytes_moved bytes the work must read plus write, at the least
 * @param label       NVTX label
 */
[[nodiscard]] PerfResult fraction_of_copy_bandwidth(const Enqueue& work, double bytes_moved, const std::string& label);

/**
 * @brief Speed-up of @p work over @p baseline, timed interleaved: t_baseline / t_work.
 * @param baseline    enqueues the lab's baseline once
 * @param work        enqueues the graded code once
 * @param floor_bytes bytes the work must move at the least (0: no floor)
 * @param label       NVTX label
 */
[[nodiscard]] PerfResult speedup_over(const Enqueue& baseline, const Enqueue& work, double floor_bytes,
                                      const std::string& label);

}  // namespace gpulab::grader
