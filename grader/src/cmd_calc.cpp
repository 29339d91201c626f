// `grader calc`: the chapter's models as a calculator; at the inputs of a graded question it shows the method only.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <variant>

#include "cli.hpp"
#include "grader/process.hpp"
#include "labs/models/calc.hpp"

namespace gpulab::grader::cli {

namespace {

// The calculator checks the student's working; it does not do the graded exercises. Each lab's answers runner
// lists the calculator runs that work its graded questions (Lab::graded_calc: at the stated cases, and with the
// student id of class.toml at that student's own), each with the parameters its questions depend on. Where every
// one of those parameters (and the device, where the run names one) has the run's value, the derivation keeps its
// inputs and its method (each step's formula) and loses every number it derives; anywhere else it shows
// everything. Without a registry (no build) nothing is hidden.

// The input quantity a parameter sets ("smem-bytes" → smem_bytes), or nullptr.
const gpulab::models::Quantity* input_of(const gpulab::models::Derivation& d, std::string param) {
    std::replace(param.begin(), param.end(), '-', '_');
    for (const gpulab::models::Quantity& q : d.quantities)
        if (q.kind == gpulab::models::QuantityKind::input && q.name == param) return &q;
    return nullptr;
}

bool same_value(const gpulab::models::Quantity& a, const gpulab::models::Quantity& b) {
    if (a.value.index() != b.value.index()) return false;
    if (const auto* v = std::get_if<double>(&a.value)) {
        const double w = std::get<double>(b.value);
        return std::fabs(*v - w) <= 1e-9 * std::max(1.0, std::fabs(*v));
    }
    return std::get<std::string>(a.value) == std::get<std::string>(b.value);
}

// A calculator run that works a graded question, as a lab's answers runner lists it.
struct GradedRun {
    std::string asks;  // "lab 02 exercise_5_1.*"
    std::string model;
    std::map<std::string, std::string> params;
    std::string device;
};

// Every lab's graded calculator runs (of @p model only, when given), at the stated cases and the student's own.
std::vector<GradedRun> graded_runs(const std::string& model = "") {
    Registry reg;
    try {
        reg = load_registry(LABS_REGISTRY_PATH);
    } catch (const std::exception&) {
        return {};
    }
    const ClassConfig config = read_class_config(reg.source_dir);
    std::vector<GradedRun> runs;
    for (const LabEntry& lab : reg.labs) {
        if (!model.empty() && !lab.calculators.empty() &&
            std::find(lab.calculators.begin(), lab.calculators.end(), model) == lab.calculators.end())
            continue;
        std::vector<std::string> argv = lab.runner_answers;
        argv.push_back("--graded-calcs");
        if (!config.student.empty())
            argv.insert(argv.end(), {"--student", config.student, "--course-seed", std::to_string(config.course_seed)});
        const ChildOutcome o = run_child(argv, 30);
        for (const std::string& line : split_lines(o.output)) {
            nlohmann::json j;
            try {
                j = nlohmann::json::parse(line);
            } catch (const std::exception&) {
                continue;  // not one of its lines
            }
            if (!j.is_object() || (!model.empty() && j.value("model", "") != model)) continue;
            runs.push_back({"lab " + lab.id + " " + j.value("asks", std::string("?")), j.value("model", ""),
                            j.value("params", std::map<std::string, std::string>{}), j.value("device", "")});
        }
    }
    return runs;
}

gpulab::models::Derivation calculate_run(const GradedRun& r) {
    try {
        return gpulab::models::calculate(r.model, r.params, r.device.empty() ? std::nullopt : std::optional<std::string>(r.device));
    } catch (const gpulab::models::CalcError& e) {  // a lab definition error, not the student's
        throw std::logic_error("the calculator run of " + r.asks + " does not compute: " + e.what());
    }
}

// Whether derivation @p d is at graded run @p r's case: the same model, and every parameter the run names (and its
// device, when it names one) at the run's value, read from the inputs of both derivations (so a default written
// out or left to the model is the same input). Parameters the run leaves out do not matter to its questions.
bool at_case(const gpulab::models::Derivation& d, const GradedRun& r) {
    if (d.model != r.model) return false;
    const gpulab::models::Derivation g = calculate_run(r);
    if (!r.device.empty() && d.device != g.device) return false;
    for (const auto& [param, value] : r.params) {
        const gpulab::models::Quantity* want = input_of(g, param);
        if (want == nullptr)  // a lab definition error, not the student's
            throw std::logic_error("the calculator run of " + r.asks + " names --" + param + ", which is not an input of " + r.model);
        const gpulab::models::Quantity* have = input_of(d, param);
        if (have == nullptr || !same_value(*want, *have)) return false;
    }
    return true;
}

// The graded question a derivation is at the case of ("lab 02 exercise_5_1.*"), or nothing.
std::optional<std::string> graded_by(const gpulab::models::Derivation& d) {
    for (const GradedRun& r : graded_runs(d.model))
        if (at_case(d, r)) return r.asks;
    return std::nullopt;
}

// --graded: each graded run as the command that makes it (what an instructor checks the hiding against).
int print_graded_runs() {
    for (const GradedRun& r : graded_runs()) {
        (void)calculate_run(r);  // each one computes, or the lab is at fault
        std::string cmd = "grader calc " + r.model;
        for (const auto& [name, value] : r.params) cmd += " --" + name + " " + value;
        if (!r.device.empty()) cmd += " --device " + r.device;
        std::cout << r.asks << ": " << cmd << "\n";
    }
    return kExitPassed;
}

// Every number the derivation derives, and every text it concludes, hidden; the inputs and the formulas stay.
void hide_results(gpulab::models::Derivation& d, const std::string& which) {
    for (gpulab::models::Quantity& q : d.quantities) {
        if (q.kind == gpulab::models::QuantityKind::input) continue;
        q.value = std::string("(graded)");
        q.unit.clear();
    }
    d.note = "these are the inputs of a graded question (" + which +
             "): the steps are shown, the numbers are yours to work out. At any other inputs everything is shown.";
}

}  // namespace

// `grader calc`: the chapter's models as a calculator. Parameters are model-specific, so they are
// parsed here rather than by CLI11: --name value (or --name=value); --device, --json, --help.
int calc_main(const std::vector<std::string>& args) {
    namespace m = gpulab::models;
    const std::string usage = "usage: grader calc --list | grader calc --graded | grader calc MODEL --help | "
                              "grader calc MODEL [--param value ...] [--device NAME] [--json]\n";
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << usage << "\n" << m::calc_list();
        return args.empty() ? kExitUsage : kExitPassed;
    }
    if (args[0] == "--list") {
        std::cout << m::calc_list();
        return kExitPassed;
    }
    try {
        if (args[0] == "--graded") return print_graded_runs();
        const std::string model = args[0];
        std::map<std::string, std::string> params;
        std::optional<std::string> device;
        bool json = false, help = false;
        for (std::size_t i = 1; i < args.size(); ++i) {
            std::string a = args[i];
            if (a.rfind("--", 0) != 0) throw m::CalcError(model + ": unexpected '" + a + "' (parameters look like --name value)");
            a = a.substr(2);
            std::string value;
            bool has_value = false;
            if (const auto eq = a.find('='); eq != std::string::npos) {
                value = a.substr(eq + 1);
                a = a.substr(0, eq);
                has_value = true;
            }
            if (a == "json") { json = true; continue; }
            if (a == "help") { help = true; continue; }
            if (!has_value && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) value = args[++i];
            if (a == "device") {
                if (value.empty()) throw m::CalcError(model + ": missing value for --device");
                device = value;
            } else {
                params[a] = value;
            }
        }
        if (help) {
            std::cout << m::calc_help(m::calc_model(model));
            return kExitPassed;
        }
        m::Derivation d = m::calculate(model, params, device);
        if (const std::optional<std::string> which = graded_by(d)) hide_results(d, *which);
        if (json) std::cout << m::to_json(d).dump(2) << "\n";
        else std::cout << m::to_text(d);
        return kExitPassed;
    } catch (const std::exception& e) {
        std::cerr << "grader calc: " << e.what() << "\n";
        return kExitUsage;
    }
}

}  // namespace gpulab::grader::cli
