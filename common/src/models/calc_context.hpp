// Internal to the calculator: the context one model run reads its parameters from and writes its
// derivation to, and the registry entry type. Not installed; only calc.cpp and calc_models.cpp use it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "labs/models/calc.hpp"
#include "labs/models/datasets.hpp"

namespace gpulab::models::calc_detail {

/** A model run in progress: parameter values as typed (defaults filled in) and the derivation so far. */
class Context {
public:
    Context(const CalcModel& model, std::map<std::string, std::string> values,
            std::map<std::string, std::string> origins, std::optional<DeviceSpec> device);

    // Parameters, each recorded as an input quantity when read. Names as in CalcParam::name.
    double number(const std::string& name);
    std::int64_t whole(const std::string& name);
    std::vector<std::int64_t> counts(const std::string& name);
    std::vector<double> numbers(const std::string& name);
    std::string word(const std::string& name);

    // The device (models with a default device only), and an input read from it.
    const DeviceSpec& device() const;
    double device_figure(const std::string& figure, const std::string& unit);

    // Steps of the derivation.
    void step(const std::string& name, double value, const std::string& unit, const std::string& formula);
    void result(const std::string& name, double value, const std::string& unit, const std::string& formula);
    void result_text(const std::string& name, const std::string& value, const std::string& formula);

    Derivation take() { return std::move(derivation_); }

private:
    const CalcParam& param(const std::string& name) const;
    std::string raw(const std::string& name) const;
    void record_input(const CalcParam& p, std::variant<double, std::string> value);
    void add(Quantity q);

    const CalcModel& model_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::string> origins_;  // where a defaulted value came from
    std::optional<DeviceSpec> device_;
    Derivation derivation_;
};

/** A registered model: what `--help` shows, and how to run it. */
struct Entry {
    CalcModel model;
    void (*run)(Context&);
};

/** Every registered model (calc_models.cpp). */
const std::vector<Entry>& registry();

}  // namespace gpulab::models::calc_detail
