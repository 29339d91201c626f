// What the runner's tests share (answers_test.cpp, fairness_test.cpp): a lab's code half run in this process and
// its results read back from the protocol lines the runner wrote.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "grader/runner.hpp"

namespace gpulab::testing {

// Runs the code half of @p lab with @p gpu (the checks @p only selects; every one when empty) and returns its
// results by id.
inline std::map<std::string, nlohmann::json> run_code(const grader::Lab& lab, const grader::GpuHooks& gpu,
                                                      const std::string& only = "") {
    grader::RunnerOptions o;
    o.mode = grader::RunnerMode::code;
    o.only = only;
    const std::string path =
        (std::filesystem::temp_directory_path() / ("grader-run-code-" + std::to_string(::getpid()) + ".jsonl")).string();
    std::FILE* f = std::fopen(path.c_str(), "w");
    grader::Emitter em(f);
    run_lab(lab, o, gpu, em);
    std::fclose(f);
    std::ifstream in(path);
    std::map<std::string, nlohmann::json> results;
    for (std::string line; std::getline(in, line);) {
        const nlohmann::json m = nlohmann::json::parse(line);
        if (m["type"] == "result") results[m["result"]["id"]] = m["result"];
    }
    std::remove(path.c_str());
    return results;
}

}  // namespace gpulab::testing
