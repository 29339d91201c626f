/**
 * @file request.hpp
 * @brief Lab 12 interface: a request's trace as data — the stages that ran, on which lane, when, and which waited for
 * which — and what you compute from it: (a) its critical path, (b) the saving a faster operator predicts, by Amdahl
 * and by the path, (c) the paired statistic that measures it, (d) the operator worth speeding up and the point past
 * which speeding up one stage stops helping.
 *
 * FROZEN: do not edit. Everything here is host code, and your functions see only what they are given: a trace (the
 * grader's observation of a request, or one it made up with a known answer) and measured times.
 *
 * The model of a trace. Stage i may start when every predecessor of it has ended: the stage before it on its lane (the
 * closest j < i with the same lane) and the `before` of every Wait whose `after` is i. A stage runs for its duration
 * (end_us − start_us as recorded, or the durations a function is given). With every stage starting as early as its
 * predecessors allow, the request ends when its last stage ends; a longest chain of predecessors is its critical path.
 * Gaps the recording shows between stages (a launch, a host that was late) are not part of the model.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace request {

/** @brief One piece of work the trace recorded: a kernel, a copy or a group of them under one name. */
struct Stage {
    std::string op;       ///< the operator it belongs to ("attention", "ffn", "activation", …): several stages share one
    int lane = 0;         ///< the stream it ran on
    double start_us = 0;  ///< when it started, µs from the request's start
    double end_us = 0;    ///< when it ended
    /** @brief end_us − start_us. */
    [[nodiscard]] double duration_us() const { return end_us - start_us; }
};

/** @brief A dependency across lanes: stage `after` waited (an event) until stage `before` had ended. */
struct Wait {
    int before = 0;  ///< index into Trace::stages
    int after = 0;   ///< index into Trace::stages; before < after
};

/** @brief A request's trace: its stages in the order they were enqueued (on one lane, a lower index ran first) and the
 *  waits between lanes. */
struct Trace {
    std::vector<Stage> stages;  ///< at least one
    std::vector<Wait> waits;    ///< any number
    /** @brief Every stage's recorded duration, in stage order. */
    [[nodiscard]] std::vector<double> durations_us() const {
        std::vector<double> d;
        d.reserve(stages.size());
        for (const Stage& s : stages) d.push_back(s.duration_us());
        return d;
    }
};

/** @brief A critical path. */
struct Path {
    double length_us = 0;     ///< when the last stage ends, every stage starting as early as its predecessors allow
    std::vector<int> stages;  ///< the stages of one longest chain of predecessors, first to last (indices)
};

/** @brief A prediction of what a faster operator saves. */
struct Prediction {
    double amdahl_saving_us = 0;  ///< every stage of the operator added up as if the request ran them one after another
    double path_saving_us = 0;    ///< the critical path's length before less after
};

/** @brief The paired statistic of N rounds, each a request before and a request after the change. */
struct Paired {
    double median_difference_us = 0;    ///< the median of before_i − after_i
    double low_us = 0;                  ///< its bootstrap interval: the 2.5th percentile …
    double high_us = 0;                 ///< … and the 97.5th (Resampler, kResamples; see paired())
    double difference_of_medians_us = 0;  ///< median(before) − median(after): what the paired median is not
};

/** @brief What to speed up. */
struct Lever {
    std::string op;              ///< the operator whose stages, all taking no time, shorten the critical path most
    double saving_if_free_us = 0;  ///< by how much
};

/** @brief Resamples the bootstrap draws (a fixed number, so that an interval is reproducible). */
inline constexpr int kResamples = 2000;

/**
 * @brief The bootstrap's random indices, reproducible from a seed (SplitMix64): below(n) is the next index in [0, n).
 * paired() must draw with it, in this order: for each resample b = 0 … kResamples − 1, n indices, the k-th of them
 * the k-th value of the resample.
 */
class Resampler {
public:
    /** @param seed the seed paired() is given */
    explicit Resampler(std::uint64_t seed) : state_(seed) {}
    /** @brief The next index in [0, n). @param n how many values there are (≥ 1) */
    std::size_t below(std::size_t n) {
        state_ += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return static_cast<std::size_t>(z % n);
    }

private:
    std::uint64_t state_;
};

/** @brief The median of values (not empty): the middle value, or the mean of the two middle ones. @param v values */
[[nodiscard]] double median(std::vector<double> v);

// ---- Yours (analysis.cpp) ----------------------------------------------------------------------------------------

/**
 * @brief (a) The critical path of trace t when stage i takes duration_us[i] (see the model above).
 * @param t the trace (its recorded times are not used: only its lanes, order and waits)
 * @param duration_us one duration per stage
 */
[[nodiscard]] Path critical_path(const Trace& t, const std::vector<double>& duration_us);

/**
 * @brief (b) What it saves when every stage of operator @p op takes @p factor of its recorded duration (0.5: twice as
 * fast): by Amdahl, the operator's recorded durations added up times (1 − factor); by the path, the critical path with
 * the recorded durations less the one with the operator's scaled.
 * @param t the trace @param op an operator's name @param factor new duration over old (≥ 0)
 */
[[nodiscard]] Prediction predict(const Trace& t, const std::string& op, double factor);

/**
 * @brief (c) The paired statistic of rounds i = 0 … n − 1: d_i = before[i] − after[i]; median_difference_us = median(d);
 * the interval from kResamples resamples of d (Resampler(seed), n draws each, in order), each resample's median, sorted:
 * low_us the one at index ⌊0.025 · kResamples⌋, high_us the one at ⌈0.975 · kResamples⌉ − 1; and median(before) −
 * median(after).
 * @param before request times before the change @param after after it, same length (≥ 1) @param seed the Resampler's
 */
[[nodiscard]] Paired paired(const std::vector<double>& before, const std::vector<double>& after, std::uint64_t seed);

/**
 * @brief (d) The operator that, if all its stages took no time, would shorten the critical path of the recorded
 * durations most (any one of several equal ones), and by how much.
 * @param t the trace
 */
[[nodiscard]] Lever most_helpful(const Trace& t);

/**
 * @brief (d) How far stage @p stage can shrink before shrinking it stops helping: the largest duration, up to its
 * recorded one, at which the critical path (the other stages at their recorded durations) is already as short as with
 * the stage taking no time. Past it another chain is the longest. Its recorded duration when shortening it saves
 * nothing at all; 0 when every shortening helps.
 * @param t the trace @param stage its index
 */
[[nodiscard]] double knee_us(const Trace& t, int stage);

}  // namespace request
