// main() of a lab's answers runner: grades answers.toml against the lab's answer key (no CUDA).
#include "grader/runner.hpp"

int main(int argc, char** argv) {
    return gpulab::grader::runner_main(argc, argv, gpulab::grader::RunnerMode::answers, &register_answers, {});
}
