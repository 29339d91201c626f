// The calculator: parameter parsing and checking, defaults from the datasets, text and JSON output.
// The models themselves are registered in calc_models.cpp.
#include "labs/models/calc.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "calc_context.hpp"
#include "labs/math.hpp"
#include "labs/text.hpp"

namespace gpulab::models {
namespace calc_detail {
namespace {

std::string json_name(const std::string& param) {
    std::string out = param;
    std::replace(out.begin(), out.end(), '-', '_');
    return out;
}

}  // namespace

Context::Context(const CalcModel& model, std::map<std::string, std::string> values,
                 std::map<std::string, std::string> origins, std::optional<DeviceSpec> device)
    : model_(model), values_(std::move(values)), origins_(std::move(origins)), device_(std::move(device)) {
    derivation_.model = model.name;
    if (device_) {
        derivation_.device = device_->key;
        derivation_.device_name = device_->name;
    }
}

const CalcParam& Context::param(const std::string& name) const {
    for (const CalcParam& p : model_.params) {
        if (p.name == name) return p;
    }
    throw std::logic_error("calculator model '" + model_.name + "' reads undeclared parameter '" + name + "'");
}

std::string Context::raw(const std::string& name) const { return values_.at(name); }

void Context::add(Quantity q) {
    for (const Quantity& existing : derivation_.quantities) {
        if (existing.name == q.name) throw std::logic_error("calculator quantity '" + q.name + "' recorded twice");
    }
    derivation_.quantities.push_back(std::move(q));
}

void Context::record_input(const CalcParam& p, std::variant<double, std::string> value) {
    const auto origin = origins_.find(p.name);
    add({json_name(p.name), std::move(value), p.unit, QuantityKind::input,
         origin == origins_.end() ? std::string() : origin->second});
}

double Context::number(const std::string& name) {
    const CalcParam& p = param(name);
    const std::string text = raw(name);
    const std::string where = model_.name + ": --" + name;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
        throw CalcError(where + " expects a number, got '" + text + "'");
    }
    const bool whole_kind = p.kind == ParamKind::count || p.kind == ParamKind::size || p.kind == ParamKind::flag;
    if (whole_kind && v != std::floor(v)) throw CalcError(where + " expects a whole number, got " + text);
    switch (p.kind) {
        case ParamKind::count:
            if (v < 1) throw CalcError(where + " must be at least 1 (got " + text + ")");
            break;
        case ParamKind::size:
        case ParamKind::non_negative:
            if (v < 0) throw CalcError(where + " must not be negative (got " + text + ")");
            break;
        case ParamKind::positive:
            if (!(v > 0)) throw CalcError(where + " must be positive (got " + text + ")");
            break;
        case ParamKind::fraction:
            if (v < 0 || v > 1) throw CalcError(where + " must be within 0..1 (got " + text + ")");
            break;
        case ParamKind::flag:
            if (v != 0 && v != 1) throw CalcError(where + " must be 0 or 1 (got " + text + ")");
            break;
        default:
            break;
    }
    record_input(p, v);
    return v;
}

std::int64_t Context::whole(const std::string& name) { return static_cast<std::int64_t>(number(name)); }

std::vector<std::int64_t> Context::counts(const std::string& name) {
    const CalcParam& p = param(name);
    const std::string where = model_.name + ": --" + name;
    std::vector<std::int64_t> out;
    for (const std::string& item : split(raw(name))) {
        // "8*256" is eight copies of 256.
        const auto star = item.find('*');
        const std::string count_text = star == std::string::npos ? "1" : item.substr(0, star);
        const std::string value_text = star == std::string::npos ? item : item.substr(star + 1);
        char* end1 = nullptr;
        char* end2 = nullptr;
        const long long count = std::strtoll(count_text.c_str(), &end1, 10);
        const long long value = std::strtoll(value_text.c_str(), &end2, 10);
        if (count_text.empty() || value_text.empty() || *end1 != '\0' || *end2 != '\0') {
            throw CalcError(where + " expects whole numbers separated by commas (\"8*256,1536\"), got '" + item + "'");
        }
        if (count < 1) throw CalcError(where + " repeat count must be at least 1 (got " + count_text + ")");
        if (value < 0) throw CalcError(where + " must not be negative (got " + value_text + ")");
        out.insert(out.end(), static_cast<std::size_t>(count), value);
    }
    if (out.empty()) throw CalcError("missing value for --" + name);
    record_input(p, raw(name));
    return out;
}

std::vector<double> Context::numbers(const std::string& name) {
    const CalcParam& p = param(name);
    std::vector<double> out;
    for (const std::string& item : split(raw(name))) {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !std::isfinite(v)) {
            throw CalcError(model_.name + ": --" + name + " expects numbers separated by commas, got '" + item + "'");
        }
        out.push_back(v);
    }
    record_input(p, raw(name));
    return out;
}

std::string Context::word(const std::string& name) {
    const CalcParam& p = param(name);
    const std::string v = trim(raw(name));
    record_input(p, v);
    return v;
}

const DeviceSpec& Context::device() const {
    if (!device_) throw std::logic_error("calculator model '" + model_.name + "' has no device");
    return *device_;
}

double Context::device_figure(const std::string& figure, const std::string& unit) {
    const auto it = device().figures.find(figure);
    if (it == device().figures.end()) {
        throw CalcError(model_.name + ": device " + device().key + " has no figure '" + figure + "'");
    }
    add({figure, it->second.value, unit, QuantityKind::input, "device " + device().short_name});
    return it->second.value;
}

void Context::step(const std::string& name, double value, const std::string& unit, const std::string& formula) {
    add({name, value, unit, QuantityKind::intermediate, formula});
}

void Context::result(const std::string& name, double value, const std::string& unit, const std::string& formula) {
    add({name, value, unit, QuantityKind::result, formula});
}

void Context::result_text(const std::string& name, const std::string& value, const std::string& formula) {
    add({name, value, "", QuantityKind::result, formula});
}

}  // namespace calc_detail

using calc_detail::Context;
using calc_detail::registry;

namespace {

std::string strip_dashes(const std::string& name) {
    const auto first = name.find_first_not_of('-');
    return first == std::string::npos ? std::string() : name.substr(first);
}

std::string format_number(double v) {
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    } else {
        std::snprintf(buf, sizeof buf, "%.6g", v);
    }
    return buf;
}

// "98304" bytes also reads as "96 KiB": the size a student recognises from the chapter.
std::string readable_bytes(double bytes) {
    const double a = std::fabs(bytes);
    char buf[64];
    if (a >= kMiB * 1024) std::snprintf(buf, sizeof buf, "%.4g GiB", bytes / (kMiB * 1024));
    else if (a >= kMiB) std::snprintf(buf, sizeof buf, "%.4g MiB", bytes / kMiB);
    else if (a >= kKiB) std::snprintf(buf, sizeof buf, "%.4g KiB", bytes / kKiB);
    else return {};
    return buf;
}

std::string value_text(const Quantity& q) {
    if (const auto* s = std::get_if<std::string>(&q.value)) return *s;
    const double v = std::get<double>(q.value);
    std::string out = format_number(v);
    if (q.unit == "bytes") {
        const std::string readable = readable_bytes(v);
        if (!readable.empty()) out += " (" + readable + ")";
    } else if (q.unit == "fraction") {
        out += " (" + format_number(std::round(v * 1000) / 10) + "%)";
    }
    return out;
}

// Columns a string takes on a terminal: UTF-8 continuation bytes ("µ", "·", "−") take none.
std::size_t display_width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad_to(const std::string& s, std::size_t width) {
    return s + std::string(width - display_width(s) + 2, ' ');
}

const char* kind_title(QuantityKind k) {
    switch (k) {
        case QuantityKind::input: return "inputs";
        case QuantityKind::intermediate: return "derivation";
        case QuantityKind::result: return "results";
    }
    return "";
}

std::string default_text(const CalcParam& p) {
    if (!p.default_from.empty()) return "default: " + p.default_from;
    if (!p.default_value.empty()) return "default: " + p.default_value;
    return "required";
}

}  // namespace

const Quantity& Derivation::at(std::string_view name) const {
    for (const Quantity& q : quantities) {
        if (q.name == name) return q;
    }
    throw std::out_of_range("no quantity '" + std::string(name) + "' in the " + model + " derivation");
}

double Derivation::number(std::string_view name) const {
    const Quantity& q = at(name);
    if (const auto* v = std::get_if<double>(&q.value)) return *v;
    throw std::out_of_range("quantity '" + std::string(name) + "' is text, not a number");
}

std::string Derivation::text(std::string_view name) const {
    const Quantity& q = at(name);
    if (const auto* v = std::get_if<std::string>(&q.value)) return *v;
    throw std::out_of_range("quantity '" + std::string(name) + "' is a number, not text");
}

const std::vector<CalcModel>& calc_models() {
    static const std::vector<CalcModel> models = [] {
        std::vector<CalcModel> out;
        for (const calc_detail::Entry& e : registry()) out.push_back(e.model);
        return out;
    }();
    return models;
}

const CalcModel& calc_model(std::string_view name) {
    for (const CalcModel& m : calc_models()) {
        if (m.name == name) return m;
    }
    std::string known;
    for (const CalcModel& m : calc_models()) known += (known.empty() ? "" : ", ") + m.name;
    throw CalcError("unknown model '" + std::string(name) + "' (models: " + known + ")");
}

namespace {

// The parameters given, by their names without dashes; the device named, in the map or beside it.
std::map<std::string, std::string> given_parameters(const CalcModel& model, const std::map<std::string, std::string>& params,
                                                    std::optional<std::string>& device_name) {
    std::map<std::string, std::string> given;
    for (const auto& [raw_name, value] : params) {
        const std::string name = strip_dashes(raw_name);
        if (name == "device") {
            if (value.empty()) throw CalcError(model.name + ": missing value for --device");
            device_name = value;
            continue;
        }
        const bool known = std::any_of(model.params.begin(), model.params.end(), [&](const CalcParam& p) { return p.name == name; });
        if (!known) {
            std::string list;
            for (const CalcParam& p : model.params) list += (list.empty() ? "--" : ", --") + p.name;
            if (!model.default_device.empty()) list += ", --device";
            throw CalcError(model.name + ": unknown parameter --" + name + " (parameters: " + list + ")");
        }
        if (value.empty()) throw CalcError(model.name + ": missing value for --" + name);
        given[name] = value;
    }
    return given;
}

// The device a model works on: the one named, else its default; none for a model without one.
std::optional<DeviceSpec> model_device(const CalcModel& model, const std::optional<std::string>& device_name) {
    if (model.default_device.empty()) {
        if (device_name) throw CalcError(model.name + ": takes no --device");
        return std::nullopt;
    }
    try {
        return load_device(device_name.value_or(model.default_device));
    } catch (const DatasetError& e) {
        throw CalcError(model.name + ": " + e.what());
    }
}

// Every parameter not given, from its default: a value, a device's figure or the model shape's; where each came
// from goes to the origins.
std::map<std::string, std::string> fill_defaults(const CalcModel& model, std::map<std::string, std::string>& given,
                                                 const std::optional<DeviceSpec>& spec) {
    std::map<std::string, std::string> origins;
    std::optional<ModelShape> shape;
    for (const CalcParam& p : model.params) {
        if (given.contains(p.name)) {
            origins[p.name] = "given";
            continue;
        }
        if (p.required()) throw CalcError(model.name + ": missing value for --" + p.name);
        if (!p.default_value.empty()) {
            given[p.name] = p.default_value;
            origins[p.name] = "default";
            continue;
        }
        const auto colon = p.default_from.find(':');
        const std::string source = p.default_from.substr(0, colon), figure = p.default_from.substr(colon + 1);
        std::optional<double> v;
        try {
            if (source == "device") {
                v = spec->figure(figure);
                origins[p.name] = "device " + spec->short_name + " (" + figure + ")";
            } else {
                if (!shape) shape = load_model_shape();
                const auto it = shape->figures.find(figure);
                if (it != shape->figures.end()) v = it->second.value;
                origins[p.name] = "model " + shape->name + " (" + figure + ")";
            }
        } catch (const DatasetError& e) {
            throw CalcError(model.name + ": " + e.what());
        }
        if (!v) throw CalcError(model.name + ": no default for --" + p.name + " (" + p.default_from + " is missing); give it");
        given[p.name] = format_number(*v);
    }
    return origins;
}

// A short name such as "A100" stands for one part of a family: say which one, not silently ("" when the name is
// the part's own).
std::string device_note(const std::optional<std::string>& device_name, const std::optional<DeviceSpec>& spec) {
    if (!device_name || !spec) return "";
    const auto lower = [](std::string s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    if (lower(*device_name) == lower(spec->name)) return "";
    return "--device " + *device_name + " is the " + spec->name + " here (datasets/devices/" + spec->key +
           ".toml); another part needs a file of its own";
}

}  // namespace

Derivation calculate(std::string_view model_name, const std::map<std::string, std::string>& params,
                     const std::optional<std::string>& device) {
    const CalcModel& model = calc_model(model_name);
    const calc_detail::Entry& entry = *std::find_if(registry().begin(), registry().end(),
                                                    [&](const calc_detail::Entry& e) { return e.model.name == model.name; });
    std::optional<std::string> device_name = device;
    std::map<std::string, std::string> given = given_parameters(model, params, device_name);
    std::optional<DeviceSpec> spec = model_device(model, device_name);
    std::map<std::string, std::string> origins = fill_defaults(model, given, spec);
    const std::string note = device_note(device_name, spec);
    Context ctx(model, std::move(given), std::move(origins), std::move(spec));
    try {
        entry.run(ctx);
    } catch (const std::invalid_argument& e) {
        throw CalcError(model.name + ": " + e.what());
    } catch (const DatasetError& e) {
        throw CalcError(model.name + ": " + e.what());
    }
    Derivation d = ctx.take();
    d.device_note = note;
    return d;
}

std::string to_text(const Derivation& d) {
    std::ostringstream out;
    const CalcModel& m = calc_model(d.model);
    out << d.model << ": " << m.description << " (chapter " << m.chapter_section << ")\n";
    if (!d.device.empty()) out << "device: " << d.device_name << " [" << d.device << "]\n";
    if (!d.device_note.empty()) out << "  (" << d.device_note << ")\n";
    if (!d.note.empty()) out << "note: " << d.note << "\n";
    std::size_t name_width = 0, value_width = 0, unit_width = 0;
    for (const Quantity& q : d.quantities) {
        name_width = std::max(name_width, display_width(q.name));
        value_width = std::max(value_width, display_width(value_text(q)));
        unit_width = std::max(unit_width, display_width(q.unit));
    }
    for (const QuantityKind kind : {QuantityKind::input, QuantityKind::intermediate, QuantityKind::result}) {
        bool title = false;
        for (const Quantity& q : d.quantities) {
            if (q.kind != kind) continue;
            if (!title) {
                out << "\n" << kind_title(kind) << "\n";
                title = true;
            }
            std::string line = "  " + pad_to(q.name, name_width) + pad_to(value_text(q), value_width) +
                               pad_to(q.unit, unit_width);
            if (!q.formula.empty()) line += (kind == QuantityKind::input ? "" : "= ") + q.formula;
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out << line << "\n";
        }
    }
    return out.str();
}

nlohmann::json to_json(const Derivation& d) {
    nlohmann::json j = nlohmann::json::object();
    j["model"] = d.model;
    if (!d.device.empty()) j["device"] = d.device;
    if (!d.note.empty()) j["note"] = d.note;
    for (const Quantity& q : d.quantities) {
        if (const auto* text = std::get_if<std::string>(&q.value)) {
            j[q.name] = *text;
            continue;
        }
        const double v = std::get<double>(q.value);
        // Counts and sizes print as integers (2, not 2.0).
        if (v == std::floor(v) && std::fabs(v) < 9.0e15) j[q.name] = static_cast<std::int64_t>(v);
        else j[q.name] = v;
    }
    return j;
}

std::string calc_list() {
    std::size_t width = 0;
    for (const CalcModel& m : calc_models()) width = std::max(width, m.name.size());
    std::ostringstream out;
    for (const CalcModel& m : calc_models()) {
        out << pad_to(m.name, width) << m.description << " (" << m.chapter_section
            << ")\n";
    }
    return out.str();
}

std::string calc_help(const CalcModel& m) {
    std::ostringstream out;
    out << m.name << ": " << m.description << " (chapter " << m.chapter_section << ")\n\nparameters\n";
    std::vector<std::array<std::string, 4>> rows;
    for (const CalcParam& p : m.params) rows.push_back({"--" + p.name, p.unit, default_text(p), p.description});
    if (!m.default_device.empty()) {
        rows.push_back({"--device", "", "default: " + m.default_device, "device from datasets/devices"});
    }
    std::array<std::size_t, 3> w{};
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < 3; ++i) w[i] = std::max(w[i], display_width(r[i]));
    }
    for (const auto& r : rows) {
        out << "  ";
        for (std::size_t i = 0; i < 3; ++i) out << pad_to(r[i], w[i]);
        out << r[3] << "\n";
    }
    return out.str();
}

}  // namespace gpulab::models
