// The gradebook of `grader batch`: each student's flags from their report, the gradebook's JSON and CSV.
#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include "batch_detail.hpp"
#include "grader/batch.hpp"
#include "grader/report.hpp"

namespace gpulab::grader {

using namespace batch_detail;

namespace {

// The order flags are listed in, and the one place the names a report raises are spelled (SIMILAR, last, is
// raised by the class's comparison: apply_similarity() in similarity.cpp).
constexpr const char* kFlagOrder[] = {"TAMPERED", "POLICY", "COMPILE_ERROR", "HUNG", "SUSPICIOUS", "ANSWERS_SYNTAX",
                                      "UNSTABLE", "SANDBOX", "ERROR", "SIMILAR"};

// A failure's first line and, when the lines below it give details (the compiler's first error, the
// policy's first violation), the first of those: "did not compile: vector_add.cu:3:10: fatal error: ...".
std::string with_first_detail(const std::string& s) {
    const std::size_t end = s.find('\n');
    if (end == std::string::npos) return s;
    std::string detail = first_line(s.substr(end + 1));
    detail.erase(0, detail.find_first_not_of(" \t"));
    std::string head = s.substr(0, end);
    while (!head.empty() && (head.back() == ':' || head.back() == ' ')) head.pop_back();
    return detail.empty() ? head : head + ": " + detail;
}

// A frozen file of the course whose edit a student could hope would change a grade: the labs' sources,
// checks and CMake, the grader, the common code, the data sets and the build files (not handouts or
// figures, nor class.toml, where the student writes their id).
bool grading_file(const std::string& rel) {
    if (ends_with(rel, ".md") || ends_with(rel, ".svg") || ends_with(rel, ".png")) return false;
    for (const char* dir : {"labs/", "grader/", "common/", "datasets/", "solutions/"})
        if (starts_with(rel, dir)) return true;
    return rel == "CMakeLists.txt" || rel == "CMakePresets.json";
}

// @p text with each build slot's number ("batch-slots/3/", in a quoted compiler message) read "batch-slots/K/":
// which worker graded a submission changes nothing in its gradebook row but the worker itself.
std::string without_slot(std::string text) {
    const std::string head = "batch-slots/";
    for (std::size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
        const std::size_t digits = at + head.size();
        std::size_t end = digits;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        if (end > digits && end < text.size() && text[end] == '/') text.replace(digits, end - digits, "K");
    }
    return text;
}

}  // namespace

std::vector<Flag> report_flags(const nlohmann::json& report) {
    std::vector<Flag> flags;
    const auto add = [&](const char* name, const std::string& lab, const std::string& why) {
        for (const Flag& f : flags)
            if (f.name == name && f.lab == lab) return;  // one per lab and flag: the first reason
        flags.push_back({name, lab, without_slot(why)});
    };
    for (const nlohmann::json& lab : report.value("labs", nlohmann::json::array())) {
        const std::string id = lab.value("id", "");
        for (const nlohmann::json& f : lab.value("failures", nlohmann::json::array())) {
            // A part's failure reads "code: <why>" or "answers: <why>", as grade_lab writes it.
            const std::string text = f.get<std::string>();
            const std::string why = text.substr(text.find(": ") == std::string::npos ? 0 : text.find(": ") + 2);
            if (starts_with(why, "TAMPERED")) add("TAMPERED", id, first_line(why));
            if (starts_with(text, "code: code policy:")) add("POLICY", id, with_first_detail(why));
            if (starts_with(text, "code: ") && (contains(first_line(why), " did not compile") ||
                                                contains(first_line(why), " compiled but did not link")))
                add("COMPILE_ERROR", id, with_first_detail(why));
            if (starts_with(why, "hung:")) add("HUNG", id, first_line(why));
        }
        std::string unstable;  // every check of the lab with a fairness note, with its notes
        for (const nlohmann::json& c : lab.value("checks", nlohmann::json::array())) {
            const std::string status = c.value("status", "");
            if (status == "tampered") add("TAMPERED", id, c.value("id", "") + ": " + first_line(c.value("message", "")));
            if (status == "suspicious") add("SUSPICIOUS", id, c.value("id", "") + ": " + first_line(c.value("message", "")));
            std::string notes;
            for (const nlohmann::json& n : c.value("fairness", nlohmann::json::array()))
                if (n.is_object()) notes += (notes.empty() ? "" : "; ") + n.value("note", "");
            if (!notes.empty()) unstable += (unstable.empty() ? "" : " | ") + c.value("id", "") + ": " + notes;
        }
        if (!unstable.empty()) add("UNSTABLE", id, unstable);
        // The graded code ran in a weaker sandbox than the grader's (the kernel lacked Landlock or seccomp).
        if (lab.contains("sandbox") && lab["sandbox"].is_object() && lab["sandbox"].value("level", "") != "seccomp+landlock") {
            std::string notes;
            for (const nlohmann::json& n : lab["sandbox"].value("notes", nlohmann::json::array()))
                notes += (notes.empty() ? "" : "; ") + n.get<std::string>();
            add("SANDBOX", id, "sandbox: " + lab["sandbox"].value("level", "") + (notes.empty() ? "" : " (" + notes + ")"));
        }
        for (const nlohmann::json& w : lab.value("warnings", nlohmann::json::array()))
            if (starts_with(w.get<std::string>(), "answers file does not parse")) add("ANSWERS_SYNTAX", id, w.get<std::string>());
    }
    if (report.contains("submission") && report["submission"].is_object()) {
        std::string edited;
        for (const nlohmann::json& f : report["submission"].value("ignored", nlohmann::json::array()))
            if (grading_file(f.get<std::string>())) edited += (edited.empty() ? "" : ", ") + f.get<std::string>();
        if (!edited.empty())
            add("TAMPERED", "", "frozen files of the course edited (not used: graded on the course's own): " + edited);
    }
    std::stable_sort(flags.begin(), flags.end(), [](const Flag& a, const Flag& b) {
        const auto rank = [](const std::string& n) {
            return std::find_if(std::begin(kFlagOrder), std::end(kFlagOrder), [&](const char* o) { return n == o; }) - std::begin(kFlagOrder);
        };
        return rank(a.name) < rank(b.name);
    });
    return flags;
}

nlohmann::json gradebook_json(const GradebookInfo& info, const std::vector<BatchResult>& results) {
    nlohmann::json labs = nlohmann::json::array();
    // Each lab's maximum, from the reports (the same for every student whose lab ran to its plan; the
    // largest, should a lab process have failed before saying its plan).
    std::map<std::string, double> lab_max;
    for (const BatchResult& r : results)
        if (r.outcome == "graded")
            for (const nlohmann::json& l : r.report.value("labs", nlohmann::json::array())) {
                double& m = lab_max[l.value("id", "")];
                m = std::max(m, l.value("max_points", 0.0));
            }
    for (const LabEntry& l : info.labs) {
        const auto it = lab_max.find(l.id);
        labs.push_back({{"id", l.id}, {"name", l.name}, {"title", l.title},
                        {"max_points", it == lab_max.end() ? nlohmann::json() : nlohmann::json(it->second)}});
    }
    nlohmann::json students = nlohmann::json::array();
    for (const BatchResult& r : results) {
        nlohmann::json row_labs = nlohmann::json::object();
        double points = 0, max_points = 0, pending = 0;
        for (const LabEntry& l : info.labs) {
            nlohmann::json cell = {{"points", 0.0}, {"max_points", lab_max.count(l.id) ? nlohmann::json(lab_max[l.id]) : nlohmann::json()},
                                   {"pending_points", 0.0}};
            for (const nlohmann::json& rl : r.report.is_object() ? r.report.value("labs", nlohmann::json::array()) : nlohmann::json::array())
                if (rl.value("id", "") == l.id)
                    cell = {{"points", rl.value("points", 0.0)}, {"max_points", rl.value("max_points", 0.0)},
                            {"pending_points", rl.value("pending_points", 0.0)}};
            points += cell["points"].get<double>();
            pending += cell["pending_points"].get<double>();
            if (cell["max_points"].is_number()) max_points += cell["max_points"].get<double>();
            row_labs[l.id] = cell;
        }
        nlohmann::json flags = nlohmann::json::array(), details = nlohmann::json::array();
        for (const Flag& f : flags_of(r)) {
            if (std::find(flags.begin(), flags.end(), f.name) == flags.end()) flags.push_back(f.name);
            details.push_back({{"flag", f.name}, {"lab", f.lab}, {"why", f.why}});
        }
        const auto [gpu, fingerprint] = gpu_of(r.report);
        students.push_back({{"student", r.entry.student},
                            {"submission", r.entry.path},
                            {"outcome", r.outcome},
                            {"error", r.error},
                            {"content_hash", r.content_hash},
                            {"labs", row_labs},
                            {"total_points", tidy_points(points)},
                            {"max_points", tidy_points(max_points)},
                            {"pending_points", tidy_points(pending)},
                            {"flags", flags},
                            {"flag_details", details},
                            {"similar", nlohmann::json::array()},  // apply_similarity() fills it
                            {"gpu", gpu},
                            {"gpu_fingerprint", fingerprint},
                            {"no_gpu_reason", r.report.is_object() ? r.report.value("no_gpu_reason", "") : ""},
                            {"seconds", r.seconds},
                            {"worker", r.worker},
                            {"cuda_visible_devices", r.gpu},
                            {"report", r.report_file.empty() ? nlohmann::json() : nlohmann::json(r.report_file)},
                            {"junit", r.junit_file.empty() ? nlohmann::json() : nlohmann::json(r.junit_file)},
                            {"log", r.log_file}});
    }
    return {{"schema_version", kGradebookSchemaVersion},
            {"grader_version", grader_version()},
            {"created_at", utc_now_iso8601()},
            {"seed", info.seed},
            {"course_seed", info.course_seed},
            {"only", info.only},
            {"labs", labs},
            {"students", students},
            {"calibration", info.calibration.is_array() ? info.calibration : nlohmann::json::array()},
            {"similarity", {{"ran", false}, {"why_not", "not compared"}, {"tool", nullptr}, {"flag_share", nullptr}, {"flag_run", nullptr}, {"report", nullptr}}}};
}

namespace {

// A row's SIMILAR pairs in one CSV cell: "07 reference 92%/88%; 05 bob 71%/69%; 02 course: x.cpp 35%/60% run 149"
// (lab, partner, the share of the student's code found in the partner's, and of the partner's in the student's;
// the unbroken run of shared code when the run flagged the pair).
std::string similar_cell(const nlohmann::json& row) {
    std::string cell;
    for (const nlohmann::json& p : row.value("similar", nlohmann::json::array())) {
        if (!cell.empty()) cell += "; ";
        cell += p.value("lab", "") + " " + p.value("partner", "") + " " +
                std::to_string(static_cast<int>(p.value("share", 0.0) * 100 + 0.5)) + "%/" +
                std::to_string(static_cast<int>(p.value("partner_share", 0.0) * 100 + 0.5)) + "%";
        for (const nlohmann::json& by : p.value("flagged_by", nlohmann::json::array()))
            if (by == "longest") cell += " run " + std::to_string(p.value("longest", 0));
    }
    return cell;
}

}  // namespace

std::string gradebook_csv(const nlohmann::json& g) {
    std::ostringstream x;
    x << "student";
    for (const nlohmann::json& l : g.at("labs")) x << ",lab" << l.at("id").get<std::string>() << "_points";
    x << ",total_points,max_points,pending_points,flags,similar,seed,grader_version,gpu_fingerprint\n";
    for (const nlohmann::json& s : g.at("students")) {
        x << csv_field(s.at("student").get<std::string>());
        for (const nlohmann::json& l : g.at("labs"))
            x << ',' << format_points(s.at("labs").at(l.at("id").get<std::string>()).at("points").get<double>());
        std::string flags;
        for (const nlohmann::json& f : s.at("flags")) {
            if (!flags.empty()) flags += ' ';
            flags += f.get<std::string>();
        }
        x << ',' << format_points(s.at("total_points").get<double>()) << ',' << format_points(s.at("max_points").get<double>())
          << ',' << format_points(s.at("pending_points").get<double>()) << ',' << csv_field(flags) << ','
          << csv_field(similar_cell(s)) << ',' << g.at("seed").get<std::uint64_t>() << ',' << csv_field(g.at("grader_version").get<std::string>()) << ','
          << csv_field(s.at("gpu_fingerprint").get<std::string>()) << '\n';
    }
    return x.str();
}

namespace batch_detail {

std::vector<Flag> flags_of(const BatchResult& r) {
    std::vector<Flag> flags;
    if (r.outcome == "graded") flags = report_flags(r.report);
    else flags.push_back({r.outcome == "hung" ? "HUNG" : "ERROR", "", r.error});
    return flags;
}

std::pair<nlohmann::json, std::string> gpu_of(const nlohmann::json& report) {
    const nlohmann::json fp = report.is_object() ? report.value("fingerprint", nlohmann::json()) : nlohmann::json();
    if (!fp.is_object() || !fp.contains("device")) return {nlohmann::json(), "none"};
    const nlohmann::json& d = fp["device"];
    return {{{"name", d.value("name", "")}, {"uuid", d.value("uuid", "")}, {"driver_version", fp.value("driver_version", "")}},
            d.value("name", "") + " " + d.value("uuid", "") + " driver " + fp.value("driver_version", "")};
}

}  // namespace batch_detail

}  // namespace gpulab::grader
