// `grader calc`: the chapter's models as a calculator, with every number that answers a graded question hidden.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <variant>

#include "cli.hpp"
#include "grader/process.hpp"
#include "labs/models/calc.hpp"

namespace gpulab::grader::cli {

namespace {

// The calculator checks the student's working, it does not do the exercises: a derived quantity that
// answers a graded question of a lab (at the stated case, or the student's own from class.toml) is shown
// as graded instead of its value. Each lab's answers runner says which numbers answer which questions;
// a quantity in bytes or FLOP is tried in the units the questions use (KiB, MiB, GiB, GFLOP). Small whole
// numbers (up to 16) are everywhere and stay. A lab that names the calculators able to answer its questions
// (labs_add_lab CALCULATORS) is asked only about theirs: another model's numbers that happen to equal one of
// its keys (a pipeline timeline's 6.5 µs and lab 09's mean call time) are not its answers. Without a registry
// (no build) nothing is redacted.
void redact_graded(gpulab::models::Derivation& d) {
    namespace m = gpulab::models;
    Registry reg;
    try {
        reg = load_registry(LABS_REGISTRY_PATH);
    } catch (const std::exception&) {
        return;
    }
    const ClassConfig config = read_class_config(reg.source_dir);
    // A key's unit is in its name (traffic.mib_64x64, local_kib, gflop); a number answers it only in that unit.
    const auto unit_of_key = [](const std::string& key) {
        for (const char* u : {"kib", "mib", "gib", "gflop", "bytes", "rounds", "blocks", "warps", "percent", "us", "ms"})
            if (std::regex_search(key, std::regex(std::string("(^|[._])") + u + "([._]|$)"))) return std::string(u);
        return std::string();  // a count or a ratio
    };
    std::map<std::string, std::set<std::pair<std::size_t, std::string>>> candidates;  // number -> (quantity, unit)
    for (std::size_t i = 0; i < d.quantities.size(); ++i) {
        const m::Quantity& q = d.quantities[i];
        if (q.kind == m::QuantityKind::input || !std::holds_alternative<double>(q.value)) continue;
        const double v = std::get<double>(q.value);
        std::string own;  // the quantity's own unit as the keys name it; "" for counts and ratios
        for (const auto& [unit, tag] : {std::pair{"KiB", "kib"}, {"MiB", "mib"}, {"GiB", "gib"}, {"GFLOP", "gflop"},
                                        {"bytes", "bytes"}, {"FLOP", "flop"}, {"rounds", "rounds"}, {"blocks", "blocks"},
                                        {"warps", "warps"}, {"µs", "us"}, {"ms", "ms"}})
            if (q.unit == unit) own = tag;
        std::vector<std::pair<double, std::string>> forms{{v, own}};
        if (q.unit == "fraction") forms.push_back({v * 100, "percent"});  // a key in percent answers it too
        if (q.unit == "µs") forms.push_back({v / 1000, "ms"});
        if (q.unit == "ms") forms.push_back({v * 1000, "us"});
        if (q.unit == "bytes") forms.insert(forms.end(), {{v / 1024, "kib"}, {v / (1024.0 * 1024), "mib"}, {v / (1024.0 * 1024 * 1024), "gib"}});
        if (q.unit == "FLOP") forms.push_back({v / 1e9, "gflop"});
        for (const auto& [f, tag] : forms) {
            // A small whole number answers only a key with a unit ("1 round"): bare, it is everywhere.
            if (!std::isfinite(f) || (tag.empty() && f == std::round(f) && std::fabs(f) <= 16)) continue;
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", f);
            candidates[buf].insert({i, tag});
        }
    }
    if (candidates.empty()) return;
    std::string list;
    for (const auto& [text, where] : candidates) list += (list.empty() ? "" : ",") + text;
    std::map<std::size_t, std::string> graded;  // quantity -> "lab 03 traffic.mib_64x64"
    for (const LabEntry& lab : reg.labs) {
        if (!lab.calculators.empty() && std::find(lab.calculators.begin(), lab.calculators.end(), d.model) == lab.calculators.end())
            continue;
        std::vector<std::string> argv = lab.runner_answers;
        argv.insert(argv.end(), {"--which-keys", list});
        if (!config.student.empty())
            argv.insert(argv.end(), {"--student", config.student, "--course-seed", std::to_string(config.course_seed)});
        const ChildOutcome o = run_child(argv, 30);
        for (const std::string& line : split_lines(o.output)) {
            const auto space = line.find(' ');
            if (space == std::string::npos) continue;
            const auto it = candidates.find(line.substr(0, space));
            if (it == candidates.end()) continue;
            const std::string key = line.substr(space + 1);
            for (const auto& [i, tag] : it->second)
                if (tag == unit_of_key(key) && !graded.count(i)) graded[i] = "lab " + lab.id + " " + key;
        }
    }
    for (const auto& [i, which] : graded) {
        d.quantities[i].value = "(graded: " + which + " — work it out)";
        d.quantities[i].unit.clear();
    }
}

}  // namespace

// `grader calc`: the chapter's models as a calculator. Parameters are model-specific, so they are
// parsed here rather than by CLI11: --name value (or --name=value); --device, --json, --help.
int calc_main(const std::vector<std::string>& args) {
    namespace m = gpulab::models;
    const std::string usage = "usage: grader calc --list | grader calc MODEL --help | "
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
        redact_graded(d);
        if (json) std::cout << m::to_json(d).dump(2) << "\n";
        else std::cout << m::to_text(d);
        return kExitPassed;
    } catch (const std::exception& e) {
        std::cerr << "grader calc: " << e.what() << "\n";
        return kExitUsage;
    }
}

}  // namespace gpulab::grader::cli
