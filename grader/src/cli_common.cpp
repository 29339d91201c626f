// What the grader's subcommands share: class.toml and the lab registry.
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <toml++/toml.h>

#include "cli.hpp"

namespace gpulab::grader::cli {

ClassConfig read_class_config(const std::string& source_dir) {
    ClassConfig c;
    const std::string path = source_dir + "/class.toml";
    if (source_dir.empty() || !std::filesystem::exists(path)) return c;
    try {
        const toml::table t = toml::parse_file(path);
        c.course_seed = static_cast<std::uint64_t>(t["course"]["seed"].value_or<std::int64_t>(0));
        c.student = t["student"]["id"].value_or<std::string>("");
    } catch (const toml::parse_error& e) {
        c.error = "class.toml:" + std::to_string(e.source().begin.line) + ": " + std::string(e.description());
    }
    return c;
}

bool load_labs(const std::string& registry_path, const std::vector<std::string>& selectors, Registry& reg,
               std::vector<LabEntry>& labs) {
    try {
        reg = load_registry(registry_path);
        labs = select_labs(reg, selectors);
        return true;
    } catch (const std::invalid_argument& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return false;
    }
}


std::optional<ClassConfig> class_config(const Registry& reg, const std::string& who) {
    ClassConfig config = read_class_config(reg.source_dir);
    if (config.error.empty()) return config;
    std::cerr << who << ": " << config.error << "\n";
    return std::nullopt;
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitPassed : kExitUsage;
    }
}

}  // namespace gpulab::grader::cli
