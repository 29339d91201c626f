// grader: grades the labs (student work, solutions or a submission) and reports; its subcommands grade a
// class, write a student's exercise cases and work the chapter's models. One file per subcommand (cli.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "grader/process.hpp"

int main(int argc, char** argv) {
    namespace cli = gpulab::grader::cli;
    gpulab::grader::stop_children_on_signals();
    try {
        const std::string sub = argc >= 2 ? argv[1] : "";
        if (sub == "calc") return cli::calc_main(std::vector<std::string>(argv + 2, argv + argc));
        if (sub == "exercises") return cli::exercises_main(argc - 1, argv + 1);
        if (sub == "batch") return cli::batch_main(argc - 1, argv + 1);
        if (sub == "gradebook") return cli::gradebook_main(argc - 1, argv + 1);
        if (sub == "similarity") return cli::similarity_main(argc - 1, argv + 1);
        if (sub == "report") return cli::report_main(argc - 1, argv + 1);
        if (sub == "release") return cli::release_main(argc - 1, argv + 1);
        return cli::grade_main(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return cli::kExitGraderError;
    } catch (...) {
        std::cerr << "grader: unexpected error\n";
        return cli::kExitGraderError;
    }
}
