// `grader batch --calibrate`: the solutions graded on each worker's GPU before the class, recorded per
// host and GPU, and the gradebook's view of them (calibration.csv, the spread of the solutions' ratios).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "batch_detail.hpp"
#include "grader/batch.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"

namespace gpulab::grader {

namespace batch_detail {

namespace {

// @p s with every character but letters, digits, '.', '_' and '-' made '_': a folder's name.
std::string safe_name(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    return s;
}

// Where the calibration of GPU @p gpu on this host is kept: OUT/calibration/HOST-gpu-G (HOST-no-gpu without
// one). One per host and GPU, so that a batch resumed on another node (a requeued shard) keeps the first
// node's calibration beside its own.
RunFolder calibration_files(const fs::path& out, const std::string& host, const std::string& gpu) {
    const std::string name = safe_name(host) + (gpu.empty() ? "-no-gpu" : "-gpu-" + safe_name(gpu));
    return {out / "calibration" / name, "calibration/" + name};
}

// What the calibrations run: the code of the labs (their performance checks and the correctness checks
// those require), or the checks --only names.
std::string calibration_only(const std::string& only) {
    return only == "all" || only == "answers" || only == "code" ? "code" : only;
}

}  // namespace

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
    return buf;
}

std::optional<nlohmann::json> calibrate(const BatchOptions& o, std::uint64_t seed, const std::vector<LabEntry>& labs,
                                        const fs::path& out, const fs::path& registry, int worker, const std::string& gpu,
                                        const std::string& host, const nlohmann::json& settings) {
    const RunFolder f = calibration_files(out, host, gpu);
    fs::create_directories(f.dir);
    const fs::path partial = f.dir / "report.json.partial";
    std::error_code ec;
    fs::remove(partial, ec);
    std::vector<std::string> argv = {o.grader_exe, "--registry", registry.string(), "--solution", "--seed", std::to_string(seed),
                                     "--json", partial.string(), "--no-color", "--timeout", std::to_string(o.lab_timeout_s),
                                     "--only", calibration_only(o.only)};
    if (o.retry_invalid > 0) argv.insert(argv.end(), {"--retry-invalid", std::to_string(o.retry_invalid)});
    if (o.no_ceilings) argv.push_back("--no-ceilings");
    for (const LabEntry& l : labs) argv.push_back(l.id);
    const ChildRun run = run_grader(argv, gpu, f.log(), o.timeout_s);
    if (run.stopped) {
        fs::remove(partial, ec);
        return std::nullopt;
    }
    const auto report = child_report(run, partial);
    nlohmann::json entry = {{"host", host}, {"worker", worker}, {"cuda_visible_devices", gpu},
                            {"shard", {{"index", o.shard_index}, {"count", o.shard_count}}}, {"calibrated_at", utc_now_iso8601()},
                            {"seconds", run.seconds}, {"log", f.rel + "/grader.log"}};
    if (report) {
        fs::rename(partial, f.report());
        const auto [g, fingerprint] = gpu_of(*report);
        entry.update({{"outcome", "graded"}, {"error", ""}, {"gpu", g}, {"gpu_fingerprint", fingerprint},
                      {"no_gpu_reason", report->value("no_gpu_reason", "")}, {"checks", calibration_checks(*report)},
                      {"report", f.rel + "/report.json"}});
    } else {
        entry.update({{"outcome", run.timed_out ? "hung" : "error"},
                      {"error", child_failure(run, o.timeout_s, f.log())},
                      {"gpu", nullptr}, {"gpu_fingerprint", "none"}, {"no_gpu_reason", ""}, {"checks", nlohmann::json::array()},
                      {"report", nullptr}});
        fs::remove(partial, ec);
        fs::remove(f.report(), ec);
    }
    write_atomically(f.record(), nlohmann::json{{"settings", settings}, {"entry", entry}}.dump(2) + "\n");
    return entry;
}

std::optional<nlohmann::json> recorded_calibration(const fs::path& out, const std::string& host, const std::string& gpu,
                                                   const nlohmann::json& settings) {
    const RunFolder f = calibration_files(out, host, gpu);
    const auto record = read_json(f.record());
    if (!record || record->value("settings", nlohmann::json()) != settings || !record->contains("entry")) return std::nullopt;
    const nlohmann::json& entry = (*record)["entry"];
    if (entry.value("outcome", "") != "graded" || !fs::exists(f.report())) return std::nullopt;
    return entry;
}

nlohmann::json recorded_calibrations(const fs::path& out, const nlohmann::json& settings) {
    std::vector<nlohmann::json> entries;
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(out / "calibration", ec)) {
        const auto record = read_json(d.path() / "record.json");
        if (record && record->value("settings", nlohmann::json()) == settings && record->contains("entry"))
            entries.push_back((*record)["entry"]);
    }
    std::sort(entries.begin(), entries.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return std::make_tuple(a.value("host", ""), a.value("cuda_visible_devices", ""), a.value("worker", 0)) <
               std::make_tuple(b.value("host", ""), b.value("cuda_visible_devices", ""), b.value("worker", 0));
    });
    return entries;
}

std::string calibration_line(const nlohmann::json& entry, bool recorded) {
    const std::string gpu = entry.value("cuda_visible_devices", "");
    std::string line = "calibration " + (gpu.empty() ? std::string("without a GPU") : "on GPU " + gpu) + " (" +
                       entry.value("host", "") + (recorded ? ", as recorded: --resume" : "") + "): ";
    if (entry.value("outcome", "") != "graded") return line + "no report: " + entry.value("error", "");
    std::map<std::string, int> statuses;
    std::string ratios;
    for (const nlohmann::json& c : entry["checks"]) {
        ++statuses[c.value("status", "")];
        if (c["ratio"].is_number()) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.3g", c["ratio"].get<double>());
            ratios += (ratios.empty() ? "" : ", ") + c.value("lab", "") + " " + c.value("id", "") + " " + buf;
        }
    }
    line += "the solutions' ";
    line += std::to_string(entry["checks"].size());
    line += " performance check(s):";
    for (const auto& [status, n] : statuses) line.append(" ").append(std::to_string(n)).append(" ").append(status);
    if (!ratios.empty()) line += "; ratios " + ratios;
    return line;
}

}  // namespace batch_detail

nlohmann::json calibration_checks(const nlohmann::json& report) {
    nlohmann::json checks = nlohmann::json::array();
    for (const nlohmann::json& lab : report.value("labs", nlohmann::json::array()))
        for (const nlohmann::json& c : lab.value("checks", nlohmann::json::array())) {
            if (c.value("kind", "") != "performance") continue;
            const nlohmann::json details = c.value("details", nlohmann::json::object());
            const auto number = [&](const char* key) {
                return details.is_object() && details.contains(key) && details[key].is_number() ? details[key] : nlohmann::json();
            };
            checks.push_back({{"lab", lab.value("id", "")}, {"id", c.value("id", "")}, {"title", c.value("title", "")},
                              {"status", c.value("status", "")}, {"ratio", number("ratio")}, {"measured", c.value("measured", "")},
                              {"points", c.value("points", 0.0)}, {"max_points", c.value("max_points", 0.0)},
                              {"pass_bar", number("pass_bar")}, {"full_bar", number("full_bar")},
                              {"fairness", c.value("fairness", nlohmann::json::array())}});
        }
    return checks;
}

std::string calibration_csv(const nlohmann::json& g) {
    std::ostringstream x;
    x << "shard,host,cuda_visible_devices,gpu_fingerprint,lab,check,status,ratio,points,max_points,pass_bar,full_bar,fairness\n";
    const auto number = [](const nlohmann::json& v) {
        if (!v.is_number()) return std::string();
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
        return std::string(buf);
    };
    for (const nlohmann::json& e : g.value("calibration", nlohmann::json::array())) {
        const std::string head = std::to_string(e["shard"].value("index", 0)) + "/" + std::to_string(e["shard"].value("count", 1)) +
                                 ',' + csv_field(e.value("host", "")) + ',' + csv_field(e.value("cuda_visible_devices", "")) +
                                 ',' + csv_field(e.value("gpu_fingerprint", "")) + ',';
        if (e.value("outcome", "") != "graded") {  // no report: one row says why
            x << head << ",," << e.value("outcome", "") << ",,,,,," << csv_field(e.value("error", "")) << '\n';
            continue;
        }
        for (const nlohmann::json& c : e["checks"]) {
            std::string notes;
            for (const nlohmann::json& n : c.value("fairness", nlohmann::json::array()))
                notes += (notes.empty() ? "" : "; ") + n.value("note", "");
            x << head << c.value("lab", "") << ',' << csv_field(c.value("id", "")) << ',' << c.value("status", "") << ','
              << number(c["ratio"]) << ',' << format_points(c.value("points", 0.0)) << ','
              << format_points(c.value("max_points", 0.0)) << ',' << number(c["pass_bar"]) << ',' << number(c["full_bar"])
              << ',' << csv_field(notes) << '\n';
        }
    }
    return x.str();
}

std::vector<std::string> calibration_spread(const nlohmann::json& calibration) {
    struct Range {
        double lo = 0, hi = 0;
        int n = 0;
    };
    std::map<std::pair<std::string, std::string>, Range> ranges;  // (lab, check) -> its ratios
    for (const nlohmann::json& e : calibration)
        for (const nlohmann::json& c : e.value("checks", nlohmann::json::array())) {
            const std::string status = c.value("status", "");
            if (!c["ratio"].is_number() || (status != "pass" && status != "partial" && status != "fail")) continue;
            const double v = c["ratio"].get<double>();
            Range& r = ranges[{c.value("lab", ""), c.value("id", "")}];
            r.lo = r.n == 0 ? v : std::min(r.lo, v);
            r.hi = r.n == 0 ? v : std::max(r.hi, v);
            ++r.n;
        }
    std::vector<std::string> lines;
    for (const auto& [check, r] : ranges) {
        if (r.n < 2) continue;
        char buf[200];
        std::snprintf(buf, sizeof buf, "lab %s %s: the solutions' ratios %.3g to %.3g over %d calibrations (%.1f%% apart)",
                      check.first.c_str(), check.second.c_str(), r.lo, r.hi, r.n, r.lo > 0 ? 100 * (r.hi / r.lo - 1) : 0.0);
        lines.push_back(buf);
    }
    return lines;
}

}  // namespace gpulab::grader
