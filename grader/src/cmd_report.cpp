// `grader report`: a saved report, or a class's gradebook, as one self-contained web page (grader/html_report.hpp).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "grader/html_report.hpp"

namespace gpulab::grader::cli {

int report_main(int argc, char** argv) {
    CLI::App app{"Writes a saved report (grader --json) as one self-contained web page: each lab's checks, and each "
                 "performance check's roofline or bandwidth and its timings, drawn from the run's numbers. With --class, "
                 "a class's gradebook (grader batch) as a class page: points per check, ratios ranked with their "
                 "intervals, the calibration per GPU, the flags.", "grader report"};
    std::string input, html, klass;
    app.add_option("report", input, "A report written by grader --json (docs/report-schema.json)");
    app.add_option("--class", klass, "A gradebook.json written by grader batch or grader gradebook merge");
    app.add_option("--html", html, "Where the page goes")->required();
    std::string calibration;
    app.add_option("--calibration", calibration, "A gradebook.json with a calibration (grader batch --calibrate): the "
                                                 "report's page places the reference solution, as measured on its GPU");
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
    if (input.empty() == klass.empty()) {
        std::cerr << "grader report: give a report, or --class GRADEBOOK.json (one of them)\n";
        return kExitUsage;
    }
    const std::string from = klass.empty() ? input : klass;
    nlohmann::json j;
    {
        std::ifstream in(from);
        if (!in) {
            std::cerr << "grader report: cannot read " << from << "\n";
            return kExitUsage;
        }
        try {
            j = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            std::cerr << "grader report: " << from << " is not JSON: " << e.what() << "\n";
            return kExitUsage;
        }
    }
    const bool is_gradebook = j.is_object() && j.contains("students");
    const bool is_report = j.is_object() && j.contains("labs") && j.contains("totals");
    if (!klass.empty() && !is_gradebook) {
        std::cerr << "grader report: " << from << " is not a gradebook (no \"students\"): a student's report is read without --class\n";
        return kExitUsage;
    }
    if (klass.empty() && !is_report) {
        std::cerr << "grader report: " << from << " is not a grader report (no \"labs\" and \"totals\")"
                  << (is_gradebook ? ": a gradebook is read with --class" : "") << "\n";
        return kExitUsage;
    }
    if (const std::string why = unwritable_reason(html); !why.empty()) {
        std::cerr << "grader report: --html: " << why << "\n";
        return kExitUsage;
    }
    nlohmann::json reference = nlohmann::json::object();
    if (!calibration.empty()) {
        std::ifstream in(calibration);
        nlohmann::json g;
        try {
            g = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            std::cerr << "grader report: --calibration: " << calibration << " is not a readable gradebook: " << e.what() << "\n";
            return kExitUsage;
        }
        reference = reference_ratios(g, j);
        if (reference.empty())
            std::cerr << "grader report: " << calibration << " has no calibration on this report's GPU: no reference drawn\n";
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::string page = klass.empty()
                                 ? report_html(j, from, reference)
                                 : class_html(j, std::filesystem::absolute(from).parent_path().string());
    std::ofstream out(html);
    out << page;
    if (!out) {
        std::cerr << "grader report: cannot write " << html << "\n";
        return kExitGraderError;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "grader report: wrote " << html << " (" << page.size() / 1024 << " KiB in " << static_cast<int>(ms) << " ms)\n";
    return kExitPassed;
}

}  // namespace gpulab::grader::cli
