/**
 * @file calc.hpp
 * @brief The calculator registry behind `grader calc`: every model with its parameters (name, unit,
 * default), and a function that runs one and returns the derivation a student can follow — the
 * inputs, each intermediate quantity and the results, with units — as text or as flat JSON.
 *
 * Parameters arrive as strings (from a command line); names may carry their leading "--". Any
 * mistake (unknown model or parameter, a missing value, something that is not a number, a negative
 * size, a tile larger than its matrix, an unknown device) throws CalcError with a one-line message.
 *
 * @code
 * using namespace gpulab::models;
 * const Derivation d = calculate("occupancy", {{"threads", "256"}, {"regs", "128"}, {"smem-bytes", "98304"}}, "H100");
 * d.number("resident_blocks");   // 2
 * d.text("limiter");             // "regs+smem"
 * std::cout << to_text(d);       // the derivation, one quantity per line
 * std::cout << to_json(d).dump(2);
 * @endcode
 */
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab::models {

/** @brief A calculator request that cannot be answered; what() is one line for the user. */
class CalcError : public std::runtime_error {
public:
    /** @param message one line, naming the model and the parameter at fault */
    explicit CalcError(const std::string& message) : std::runtime_error(message) {}
};

/** @brief What a parameter's value must be. */
enum class ParamKind {
    count,      ///< whole number ≥ 1
    size,       ///< whole number ≥ 0 (a size or a count that may be zero)
    non_negative,  ///< number ≥ 0 (a time or a rate that may be zero)
    positive,   ///< number > 0
    fraction,   ///< number within 0..1
    number,     ///< any number
    flag,       ///< 0 or 1
    counts,     ///< comma-separated whole numbers ≥ 0; "8*256" repeats 256 eight times
    numbers,    ///< comma-separated numbers
    word,       ///< free text (e.g. a split "separate", "fused" or "2,1")
};

/** @brief One parameter of a calculator model. */
struct CalcParam {
    std::string name;           ///< as typed after "--", e.g. "smem-bytes"
    std::string unit;           ///< e.g. "bytes", "threads", "µs"
    std::string description;    ///< one line
    ParamKind kind = ParamKind::number;  ///< what the value must be
    std::string default_value;  ///< literal default; empty with no default_from: required
    std::string default_from;   ///< "device:<figure>" or "model:<figure>" (Qwen3-8B) when not given
    /** @brief True when the parameter has no default of either kind. */
    [[nodiscard]] bool required() const { return default_value.empty() && default_from.empty(); }
};

/** @brief One calculator model. */
struct CalcModel {
    std::string name;                ///< e.g. "occupancy"
    std::string description;         ///< one line
    std::string chapter_section;     ///< where the chapter works it out, e.g. "5.1.5"
    std::vector<CalcParam> params;   ///< its parameters (without --device)
    std::string default_device;      ///< device used when none is given; empty: takes no device
};

/** @brief Where a quantity stands in the derivation. */
enum class QuantityKind {
    input,         ///< given, defaulted or read from the device/model dataset
    intermediate,  ///< a step of the derivation
    result,        ///< what was asked for
};

/** @brief One named quantity of a derivation. */
struct Quantity {
    std::string name;                         ///< snake_case; also the JSON key
    std::variant<double, std::string> value;  ///< a number, or text such as the limiter
    std::string unit;                         ///< unit of a number (empty for ratios and text)
    QuantityKind kind = QuantityKind::input;  ///< input, intermediate or result
    std::string formula;                      ///< how it follows (empty for given inputs), or where an input comes from
};

/** @brief A calculator answer: the quantities in the order a student would derive them. */
struct Derivation {
    std::string model;        ///< model name
    std::string device;       ///< device key, empty when the model takes no device
    std::string device_name;  ///< the device's full name
    std::string device_note;  ///< when --device named a family ("A100"): which part it chose, and why
    std::string note;         ///< a line for the reader about the whole derivation (e.g. why its numbers are hidden)
    std::vector<Quantity> quantities;  ///< inputs, then intermediates and results

    /** @brief The quantity called @p name. @param name its name @throws std::out_of_range when absent */
    [[nodiscard]] const Quantity& at(std::string_view name) const;
    /** @brief A numeric quantity's value. @param name its name @throws std::out_of_range when absent or text */
    [[nodiscard]] double number(std::string_view name) const;
    /** @brief A text quantity's value. @param name its name @throws std::out_of_range when absent or numeric */
    [[nodiscard]] std::string text(std::string_view name) const;
};

/** @brief Every calculator model, in a fixed order. */
[[nodiscard]] const std::vector<CalcModel>& calc_models();

/** @brief The model called @p name. @param name model name @throws CalcError when unknown (the message lists the models) */
[[nodiscard]] const CalcModel& calc_model(std::string_view name);

/**
 * @brief Runs a model.
 * @param model  model name
 * @param params parameter name (with or without "--") → value as typed
 * @param device device name for models that take one (default: the model's default device)
 * @throws CalcError on any mistake, with a one-line message
 */
[[nodiscard]] Derivation calculate(std::string_view model, const std::map<std::string, std::string>& params,
                                   const std::optional<std::string>& device = std::nullopt);

/** @brief The derivation as aligned text: inputs, derivation steps, results, each with unit and formula. @param d a derivation */
[[nodiscard]] std::string to_text(const Derivation& d);

/** @brief Flat JSON: "model", "device" (if any) and every quantity by name → value. @param d a derivation */
[[nodiscard]] nlohmann::json to_json(const Derivation& d);

/** @brief One line per model: name, section, description. */
[[nodiscard]] std::string calc_list();

/** @brief A model's parameters with units, defaults and descriptions (the `--help` text). @param m a model */
[[nodiscard]] std::string calc_help(const CalcModel& m);

}  // namespace gpulab::models
