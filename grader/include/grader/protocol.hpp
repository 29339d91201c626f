/**
 * @file protocol.hpp
 * @brief What a lab's runner process tells the grader: one JSON object per line.
 *
 * Messages, in order: `hello` (protocol version, mode, seed), `plan` (every check the runner will
 * report, with its points), then for each check `start` and `result`, and finally `done`. A runner
 * that loses its CUDA context sends `fatal` and reports the checks it can no longer run as not_run.
 * `warning` lines (an unknown answer key, say) may come at any time. Anything else on the channel, or
 * a channel that ends before `done`, is a failure the grader reports with its cause.
 */
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "grader/lab.hpp"

namespace gpulab::grader {

/** @brief Version of the line protocol between grader and runners. */
inline constexpr int kProtocolVersion = 1;

/** @brief The graded outcome of one check. */
struct CheckResult {
    std::string id;              ///< check id (answer key for answers)
    std::string title;           ///< one line for the table
    CheckKind kind = CheckKind::answer;  ///< what it grades
    Status status = Status::not_run;     ///< outcome
    double points = 0;           ///< points scored
    double max_points = 0;       ///< points possible
    std::string measured;        ///< what was measured or answered, as shown in the table
    std::string target;          ///< what was required, as shown in the table
    std::string message;         ///< why it failed, or what it measured
    std::string hint;            ///< likely cause, for a student
    nlohmann::json details;      ///< everything else (timings, sizes, compare report)
};

/** @brief A result for @p decl with nothing graded yet (status not_run, 0 of its points): the one place a
 *  result takes its id, title, kind and points from the declaration. @param decl the declared check */
[[nodiscard]] CheckResult result_for(const CheckDecl& decl);

/** @brief JSON form of a CheckResult. */
void to_json(nlohmann::json& j, const CheckResult& r);
/** @brief Reads a CheckResult; throws nlohmann::json::exception when a field is missing or mistyped. */
void from_json(const nlohmann::json& j, CheckResult& r);
/** @brief JSON form of a CheckDecl. */
void to_json(nlohmann::json& j, const CheckDecl& d);
/** @brief Reads a CheckDecl. */
void from_json(const nlohmann::json& j, CheckDecl& d);

/** @brief Writes protocol messages, one line each, flushed at once (they must survive a crash). */
class Emitter {
public:
    /** @param out the channel (a pipe from the grader, or a file); not closed by the Emitter */
    explicit Emitter(std::FILE* out) : out_(out) {}
    /** @brief Sends one message. */
    void send(const nlohmann::json& message);

private:
    std::FILE* out_;
};

}  // namespace gpulab::grader
