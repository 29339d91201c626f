// The `grader` command's parts: main.cpp dispatches to one subcommand per file (cmd_grade.cpp, cmd_calc.cpp,
// cmd_exercises.cpp, cmd_batch.cpp); what they share is here and in cli_common.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "grader/orchestrator.hpp"

#ifndef LABS_REGISTRY_PATH
#define LABS_REGISTRY_PATH "labs.json"
#endif

namespace gpulab::grader::cli {

// Exit codes: documented in docs/grading.md.
inline constexpr int kExitPassed = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitGraderError = 3;
inline constexpr int kExitNothingGraded = 77;  // --expect only: everything was skipped (ctest: SKIPPED)

// class.toml at the top of the course tree: the course's seed (the instructor sets it once per class) and
// the student's id (each student writes their own). Command-line options override both.
struct ClassConfig {
    std::uint64_t course_seed = 0;
    std::string student;
    std::string error;
};

ClassConfig read_class_config(const std::string& source_dir);

// The course's class.toml, or nothing after saying why ("grader exercises: class.toml:3: ...") — a usage error.
std::optional<ClassConfig> class_config(const Registry& reg, const std::string& who);

// Parses a subcommand's command line: nothing when it parsed, else the exit code (0 after --help, kExitUsage).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

// The registry and the labs the selectors pick; false (after saying why) on an unknown lab. A missing
// registry throws: a grader error, not a usage error.
bool load_labs(const std::string& registry_path, const std::vector<std::string>& selectors, Registry& reg,
               std::vector<LabEntry>& labs);

// --seed's check: a whole number from 1 to 2^64 − 1, digits only (refuses "", "-1", "0" and numbers that do not fit).
CLI::Validator seed_validator();

// Why the report file at @p path could not be written (a folder, no such folder, no permission), or "" when it
// can: checked before grading, so that a bad path is refused at once rather than after minutes of grading.
std::string unwritable_reason(const std::string& path);

int grade_main(int argc, char** argv);                // grader [labs] [options]: grade the labs
int calc_main(const std::vector<std::string>& args);  // grader calc: the chapter's models as a calculator
int exercises_main(int argc, char** argv);            // grader exercises: write the student's cases
int batch_main(int argc, char** argv);                // grader batch: grade a class
int gradebook_main(int argc, char** argv);
int similarity_main(int argc, char** argv);           // grader similarity: a class's code compared for copying            // grader gradebook merge: join the shards' gradebooks
int release_main(int argc, char** argv);
int report_main(int argc, char** argv);               // grader report: a saved report or a gradebook as a web page              // grader release OUT_DIR: the course a class receives

}  // namespace gpulab::grader::cli
