// `grader exercises`: each student's own exercise cases, written into their answers.toml files.
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "grader/process.hpp"

namespace gpulab::grader::cli {

// `grader exercises`: writes each exercise case of the selected labs (the stated one, or the student's own)
// into the `# case NAME: ...` lines of the student's answers.toml files.
int exercises_main(int argc, char** argv) {
    CLI::App app{"Writes your exercise cases into your answers.toml files: each `# case NAME: ...` line gets the "
                 "parameters you are graded on (your own with a student id, else the stated ones)."};
    std::vector<std::string> selectors;
    std::string student, registry_path = LABS_REGISTRY_PATH;
    std::optional<std::uint64_t> course_seed;
    app.add_option("labs", selectors, "Labs, by number or name; default: all");
    app.add_option("--student", student, "Your student id (default: [student] id in class.toml)");
    app.add_option("--course-seed", course_seed, "The course's seed (default: [course] seed in class.toml)");
    app.add_option("--registry", registry_path, "Lab registry written by the build")->capture_default_str();
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
    Registry reg;
    std::vector<LabEntry> labs;
    if (!load_labs(registry_path, selectors, reg, labs)) return kExitUsage;
    const auto config = class_config(reg, "grader exercises");
    if (!config) return kExitUsage;
    if (student.empty()) student = config->student;
    const std::uint64_t seed = course_seed.value_or(config->course_seed);
    int problems = 0;
    for (const LabEntry& lab : labs) {
        std::vector<std::string> argv_runner = lab.runner_answers;
        argv_runner.insert(argv_runner.end(), {"--report-fd", "3", "--answers", lab.student.answers});
        if (!student.empty()) argv_runner.insert(argv_runner.end(), {"--student", student, "--course-seed", std::to_string(seed)});
        const PartResult part = interpret(run_child(argv_runner, 60), "answers", 0, 60);
        std::map<std::string, std::string> cases;  // name -> "m = 96, n = 80"
        for (const CheckResult& c : part.checks)
            if (c.details.is_object() && c.details.contains("case"))
                cases[c.details["case"].value("name", "")] = c.details["case"].value("text", "");
        if (cases.empty()) continue;
        std::ifstream in(lab.student.answers);
        std::string text, line;
        std::map<std::string, bool> written;
        while (std::getline(in, line)) {
            for (const auto& [name, values] : cases) {
                const std::string mark = "# case " + name + ":";
                if (line.rfind(mark, 0) != 0) continue;
                line = mark + " " + values + (student.empty() ? "" : "  (student " + student + ")");
                written[name] = true;
            }
            text += line + "\n";
        }
        in.close();
        std::ofstream(lab.student.answers) << text;
        for (const auto& [name, values] : cases) {
            if (written[name]) {
                std::cout << "lab " << lab.id << ": case " << name << ": " << values << "\n";
            } else {
                std::cout << "lab " << lab.id << ": case " << name << ": " << values << " — no '# case " << name
                          << ":' line in " << lab.student.answers << " to write it into\n";
                ++problems;
            }
        }
    }
    std::cout << (student.empty() ? "the stated cases (no student id: set [student] id in class.toml or pass --student)"
                                  : "the cases of student " + student)
              << "\n";
    return problems == 0 ? kExitPassed : kExitFailed;
}

}  // namespace gpulab::grader::cli
