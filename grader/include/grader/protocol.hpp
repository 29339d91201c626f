/**
 * @file protocol.hpp
 * @brief What a lab's runner process tells the grader: one JSON object per line.
 *
 * Messages, in order: `hello` (protocol version, mode, seed), `plan` (every check the runner will
 * report, with its points), then for each check `start` and `result`, and finally `done`. A runner
 * that loses its CUDA context sends `fatal` and reports the checks it can no longer run as not_run.
 * `warning` lines (an unknown answer key, say) may come at any time. A channel that ends before
 * `done` is a failure the grader reports with its cause.
 *
 * Every line is authenticated: `<16 hex digits> <json>`, the digits being SipHash-2-4 of the line's
 * sequence number and its JSON under a key the grader made for this one process. The grader hands the
 * key over on a pipe (the descriptor named by $LABS_CHANNEL_KEY_FD), followed by the run's parameters (seed,
 * checks, ceilings, the graded code's own symbols, the scratch folder: nothing secret is on the command line or
 * in the environment); the runner reads both and closes the pipe in a constructor that runs before any other
 * static initialiser of the program, and loads the graded code only afterwards. A line whose digits do not match (forged, replayed, reordered), or messages out
 * of order, make the part TAMPERED.
 */
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grader/fairness.hpp"
#include "grader/lab.hpp"

namespace gpulab::grader {

/** @brief Version of the line protocol between grader and runners (2: authenticated lines; 3: the code runner
 *  says whether it found a CUDA device, in a "device" message after its plan; 4: its parameters come on the key
 *  pipe, and "device" says whether the observer records and which sandbox holds). */
inline constexpr int kProtocolVersion = 4;

/** @brief A channel key: 128 bits, fresh for every runner process. */
using ChannelKey = std::array<std::uint8_t, 16>;

/** @brief The environment variable naming the descriptor a runner reads its channel key from. */
inline constexpr const char* kChannelKeyFdVariable = "LABS_CHANNEL_KEY_FD";

/** @brief SipHash-2-4 of @p data under @p key (a keyed pseudo-random function: without the key, the
 *  value of a new message cannot be guessed). @param key the key @param data the message */
[[nodiscard]] std::uint64_t siphash24(const ChannelKey& key, std::string_view data) noexcept;

/** @brief The MAC of line number @p seq carrying @p json, as 16 lower-case hex digits.
 *  @param key the channel key @param seq the line's number, from 0 @param json the line's JSON text */
[[nodiscard]] std::string line_mac(const ChannelKey& key, std::uint64_t seq, std::string_view json);

/** @brief The key this process received from the grader (read at start-up), if any. A runner started by
 *  hand has none and writes plain JSON lines. */
[[nodiscard]] std::optional<ChannelKey> received_channel_key() noexcept;

/** @brief Reads the channel key and the run's parameters from the descriptor $LABS_CHANNEL_KEY_FD names, closes
 *  it and removes the variable. Called once, automatically, before any other static initialiser of a runner;
 *  later calls do nothing. */
void receive_channel_key() noexcept;

/** @brief The run's parameters (a JSON object's text) the grader sent after the key, if any. */
[[nodiscard]] std::optional<std::string> received_run_params();

/**
 * @brief What the grader writes on a runner's key pipe: the 16-byte key, the parameters' length (4 bytes, little
 * endian) and the parameters (JSON text). @param key the channel key @param params the run's parameters
 */
[[nodiscard]] std::string channel_handover(const ChannelKey& key, const std::string& params);

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
    /// Earlier attempts at this check, oldest first, when the grader retried it (`--retry-invalid`): each
    /// {attempt, status, points, measured, message}. Written by the grader only, never read from a runner.
    std::vector<nlohmann::json> attempts;
    /// Why this performance check's measurement may not be fair (a timing that did not converge, a throttled
    /// GPU clock: grader/fairness.hpp); empty when none. Its notes end the message too; they change no points.
    std::vector<FairnessNote> fairness;
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

/** @brief Writes protocol messages, one line each, flushed at once (they must survive a crash),
 *  authenticated with the received channel key when there is one. */
class Emitter {
public:
    /** @param out the channel (a pipe from the grader, or a file); not closed by the Emitter */
    explicit Emitter(std::FILE* out) : out_(out), key_(received_channel_key()) {}
    /** @brief Sends one message. */
    void send(const nlohmann::json& message);

private:
    std::FILE* out_;
    std::optional<ChannelKey> key_;
    std::uint64_t seq_ = 0;
};

}  // namespace gpulab::grader
