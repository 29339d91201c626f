// What the grader's subcommands share: class.toml, the lab registry, and the checks of seeds and output paths.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <toml++/toml.h>

#include <unistd.h>

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

CLI::Validator seed_validator() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            const std::string why = "a seed is a whole number from 1 to 18446744073709551615 (a run prints its seed)";
            if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
                return "'" + text + "' is not a seed: " + why;
            errno = 0;
            const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
            if (errno == ERANGE) return "'" + text + "' is too large: " + why;
            if (v == 0) return "'0' is not a seed: " + why + "; leave --seed out to draw one";
            return "";
        },
        "SEED", "seed");
}

std::string unwritable_reason(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) return path + " is a folder: name a file in it";
    const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::exists(parent, ec)) return "no such folder: " + parent.string();
    if (!fs::is_directory(parent, ec)) return parent.string() + " is not a folder";
    if (fs::exists(p, ec) ? ::access(p.c_str(), W_OK) != 0 : ::access(parent.c_str(), W_OK | X_OK) != 0)
        return std::string("no permission to write ") + path + " (" + std::strerror(errno) + ")";
    return "";
}

}  // namespace gpulab::grader::cli
