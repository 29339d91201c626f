/**
 * @file request.hpp
 * @brief From one faster kernel to a faster request: Amdahl's law for sequential stages, and the
 * critical path of a small dependency graph of stages (sections 5.1.4, 5.6.1, 5.6.2).
 *
 * @code
 * using namespace gpulab::models;
 * amdahl_speedup(0.2, 2);                                  // ≈ 1.11
 * critical_path({{"prep", 10, {}}, {"A", 60, {"prep"}}, {"B", 40, {"prep"}},
 *                {"finish", 10, {"A", "B"}}}).length_us;   // 80
 * @endcode
 */
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpulab::models {

/**
 * @brief Whole-request speed-up when a stage taking fraction @p f of the time gets @p s times faster:
 * 1 / ((1 − f) + f / s).
 * @param f fraction of the time in the stage (0..1) @param s the stage's speed-up (> 0)
 */
[[nodiscard]] double amdahl_speedup(double f, double s);

/** @brief The limit of amdahl_speedup as s → ∞: 1 / (1 − f). @param f fraction of the time in the stage (0..1) */
[[nodiscard]] double amdahl_limit(double f);

/** @brief A stage of a request and the stages it waits for. */
struct Task {
    std::string name;                 ///< unique name
    double duration_us = 0;           ///< how long it runs once it starts
    std::vector<std::string> deps;    ///< stages that must finish first
};

/** @brief Earliest finish times and the longest path. */
struct CriticalPath {
    double length_us = 0;                        ///< finish time of the last stage
    std::vector<std::string> path;               ///< the stages on the longest path, first to last
    std::map<std::string, double> finish_us;     ///< earliest finish of every stage
};

/**
 * @brief Earliest finish of every stage (each starts when its dependencies are done, resources
 * independent) and the path that sets the request's time.
 * @param tasks the stages (any order)
 * @throws std::invalid_argument on a duplicate name, an unknown dependency or a cycle
 */
[[nodiscard]] CriticalPath critical_path(const std::vector<Task>& tasks);

/**
 * @brief How far stage @p name can shrink before shrinking it stops shortening the critical path: the largest
 * duration, up to its own, at which the path is already as short as with the stage taking no time (the path falls
 * one for one with the stage's duration until another chain is the longest). Its own duration when shortening it
 * saves nothing; 0 when every shortening helps.
 * @param tasks the stages @param name the stage
 * @throws std::invalid_argument for an unknown stage (and as critical_path())
 */
[[nodiscard]] double knee_us(const std::vector<Task>& tasks, const std::string& name);

/** @brief The median of @p values: the middle one, or the mean of the two middle ones. @throws std::invalid_argument
 *  when there are none */
[[nodiscard]] double median(std::vector<double> values);

/**
 * @brief What a faster kernel saves per call, from the totals of many calls (section 5.6.3: 1116 decode calls of
 * SwiGLU, 2.4 ms before and 0.92 ms after, save 1.33 µs each).
 * @param old_total_ms the calls' time before @param new_total_ms after @param calls how many calls
 */
[[nodiscard]] double per_call_saving_us(double old_total_ms, double new_total_ms, double calls);

}  // namespace gpulab::models
