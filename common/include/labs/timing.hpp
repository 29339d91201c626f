/**
 * @file timing.hpp
 * @brief The timing protocol: CUDA events, warm-up, an L2 flush before every timed run, repetition
 * until the median is stable, and interleaved A/B comparison.
 *
 * Every timed repetition is bracketed by its own pair of events and preceded by a flush that writes
 * twice the L2 size, so no repetition starts with its inputs already in cache. Repetitions are
 * enqueued in batches without a host synchronisation in between: the flush keeps the GPU busy while
 * the host enqueues the next launch, so host launch gaps stay out of the measured spans.
 *
 * Stopping rule: after at least `min_reps`, stop when the 95% confidence half-width of the median
 * (1.57·IQR/√n, McGill's notch) is below `max_rel_ci` of the median, or when `max_reps` or
 * `max_total_ms` is reached. Each timed region shows up in Nsight Systems as an NVTX range.
 */
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "labs/buffer.hpp"

namespace gpulab {

/** @brief A pair of CUDA events measuring device time between two points of a stream. */
class EventTimer {
public:
    EventTimer();
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    /** @brief Records the start event on @p stream. */
    void start(cudaStream_t stream = nullptr);
    /** @brief Records the stop event on @p stream. */
    void stop(cudaStream_t stream = nullptr);
    /** @brief Waits for the stop event and returns the milliseconds between the two events. */
    [[nodiscard]] float elapsed_ms();

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

/** @brief Writes twice the device's L2 capacity so that the next kernel starts with a cold cache. */
class L2Flusher {
public:
    /** @param l2_bytes the device's L2 size; the flush buffer is twice that (at least 8 MiB). */
    explicit L2Flusher(std::size_t l2_bytes);
    /** @brief Enqueues the flush on @p stream. */
    void flush(cudaStream_t stream = nullptr);
    /** @brief Bytes written per flush. */
    [[nodiscard]] std::size_t bytes() const noexcept { return buffer_.bytes(); }

private:
    DeviceBuffer<unsigned char> buffer_;
};

/** @brief Enqueues on @p stream a one-thread kernel that spins @p us microseconds on the device's clock: the
 *  stream's later work waits behind it (TimingOptions::hold_us). */
void hold_stream(cudaStream_t stream, double us);

/** @brief How to time. */
struct TimingOptions {
    int warmup = 3;               ///< untimed runs first (module load, caches, clocks)
    int min_reps = 10;            ///< at least this many timed runs
    int max_reps = 500;           ///< at most this many
    double max_rel_ci = 0.01;     ///< stop when the median's 95% CI half-width is below this fraction
    double max_total_ms = 3000;   ///< stop once the timed runs add up to this much device time
    /// Timed runs enqueued between two synchronisations (the stopping rule is tested after each batch): fewer for
    /// work of many milliseconds, whose spread is small, so that min_reps of them can be enough.
    int batch = 8;
    bool flush_l2 = true;         ///< flush L2 before every timed run
    /// When above 0: a kernel that spins this many microseconds on the device (hold_stream()) is enqueued after
    /// the flush and before the start event of every timed run, so that work submitted slower than it runs (many
    /// small launches) is queued whole before its timing starts: its device time, not the host's pace.
    double hold_us = 0;
    std::string label = "timed";  ///< NVTX range name
};

/** @brief Summary of the timed repetitions. */
struct TimingResult {
    double median_ms = 0;   ///< median of the repetitions
    double q1_ms = 0;       ///< first quartile
    double q3_ms = 0;       ///< third quartile
    double min_ms = 0;      ///< fastest repetition
    int count = 0;          ///< number of timed repetitions
    double rel_ci = 0;      ///< 95% CI half-width of the median over the median
    bool converged = false; ///< the stopping rule was met before a cap

    /** @brief (q3 − q1) / median. */
    [[nodiscard]] double rel_iqr() const noexcept {
        return median_ms > 0 ? (q3_ms - q1_ms) / median_ms : 0.0;
    }
};

/** @brief Summary statistics of raw samples (milliseconds); exposed for tests. */
[[nodiscard]] TimingResult summarize(std::vector<double> samples_ms);

/** @brief JSON form of TimingResult. */
void to_json(nlohmann::json& j, const TimingResult& t);

/** @brief Work to time: enqueue it on the given stream (it must not synchronise the device). */
using Enqueue = std::function<void(cudaStream_t)>;

/**
 * @brief Work to enqueue around one timed repetition, outside its events: `before` ahead of the L2
 * flush, `after` right behind the stop event. @p work is the workload's index (A = 0, B = 1), @p rep the
 * timed repetition (0-based; warm-up runs have no hooks).
 */
struct TimingHooks {
    std::function<void(std::size_t work, int rep, cudaStream_t)> before;  ///< may be empty
    std::function<void(std::size_t work, int rep, cudaStream_t)> after;   ///< may be empty
};

/**
 * @brief Times @p work on @p stream under @p opts.
 * @param work    enqueues the work to time
 * @param opts    warm-up, repetitions, stopping rule, L2 flush
 * @param stream  stream to time on
 * @param flusher used when opts.flush_l2 (may be null to allocate one for this call)
 */
[[nodiscard]] TimingResult time_region(const Enqueue& work, const TimingOptions& opts = {},
                                       cudaStream_t stream = nullptr, L2Flusher* flusher = nullptr);

/** @brief Result of an interleaved A/B timing. */
struct AbResult {
    TimingResult a;      ///< timings of A
    TimingResult b;      ///< timings of B
    double ratio = 0;    ///< median(A) / median(B): > 1 means B is faster
};

/**
 * @brief Times A and B alternately (A, B, A, B, ...) so that clock and thermal drift affect both
 * alike, and returns both summaries and the ratio of medians.
 * @param a       enqueues variant A
 * @param b       enqueues variant B
 * @param opts    as for time_region; the stopping rule must hold for both
 * @param stream  stream to time on
 * @param flusher as for time_region
 * @param hooks   work to enqueue around chosen repetitions, outside the timed spans (may be null)
 */
[[nodiscard]] AbResult time_ab(const Enqueue& a, const Enqueue& b, const TimingOptions& opts = {},
                               cudaStream_t stream = nullptr, L2Flusher* flusher = nullptr,
                               const TimingHooks* hooks = nullptr);

/** @brief Told how a timing goes, after each batch of repetitions: its label, the repetitions so far, and
 *  the cap (for a progress display; it must not touch the GPU). */
using TimingObserver = std::function<void(const std::string& label, int reps, int max_reps)>;

/** @brief Sets the process's timing observer (an empty one: none). @param observer called after each batch */
void set_timing_observer(TimingObserver observer);

/**
 * @brief Host microseconds per call of @p calls calls of @p call enqueued back to back on @p stream, from a drained
 * stream until it is drained again: the time a caller waits, end to end (host submission included).
 * @param call   enqueues call number i (0 … calls − 1) @param stream the stream the calls are enqueued on
 * @param calls  how many (at least 1)
 */
[[nodiscard]] double host_us_per_call(const std::function<void(int i)>& call, cudaStream_t stream, int calls);

/** @brief The median of @p values (of an even count, the upper of the two middle ones); 0 when there are none.
 *  @param values the values */
[[nodiscard]] double median_of(std::vector<double> values);

/** @brief An NVTX range that lasts for the object's scope (visible in Nsight Systems). */
class NvtxRange {
public:
    /** @param name the range's label */
    explicit NvtxRange(const char* name);
    ~NvtxRange();
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace gpulab
