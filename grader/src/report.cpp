// Console, JSON and JUnit forms of a grading run.
#include "grader/report.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace gpulab::grader {
namespace {

std::string pts(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;  // at most two decimals, trailing zeros dropped: 5, 1.25, 2.5
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string xml_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&apos;"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += ' ';
                else o += c;
        }
    }
    return o;
}

// Display width of UTF-8 text (counts code points; good enough for the table).
std::size_t width(const std::string& s) {
    std::size_t w = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++w;
    return w;
}

std::string pad(const std::string& s, std::size_t w) {
    std::string t = s;
    if (width(t) > w) {
        while (!t.empty() && width(t) > w - 1) t.pop_back();
        while (!t.empty() && (static_cast<unsigned char>(t.back()) & 0xC0) == 0x80) t.pop_back();
        if (!t.empty() && static_cast<unsigned char>(t.back()) >= 0xC0) t.pop_back();
        t += "~";
    }
    return t + std::string(w - std::min(w, width(t)), ' ');
}

const char* colour_of(Status s) {
    switch (s) {
        case Status::pass: return "\033[32m";
        case Status::partial: return "\033[33m";
        case Status::skipped: return "\033[36m";
        case Status::not_answered: return "\033[33m";
        case Status::invalid: return "\033[35m";
        default: return "\033[31m";
    }
}

std::string upper(std::string_view s) {
    std::string o(s);
    for (char& c : o) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return o;
}

}  // namespace

double RunReport::points() const {
    double s = 0;
    for (const LabResult& l : labs) s += l.points();
    return s;
}

double RunReport::max_points() const {
    double s = 0;
    for (const LabResult& l : labs) s += l.max_points();
    return s;
}

double RunReport::pending_points() const {
    double s = 0;
    for (const LabResult& l : labs) s += l.pending_points();
    return s;
}

bool RunReport::all_passed() const {
    for (const LabResult& l : labs) {
        if (!l.failures.empty()) return false;
        for (const CheckResult& c : l.checks)
            if (c.status != Status::pass && c.status != Status::skipped) return false;
    }
    return true;
}

nlohmann::json to_json(const RunReport& r) {
    nlohmann::json labs = nlohmann::json::array();
    for (const LabResult& l : r.labs) {
        nlohmann::json checks = nlohmann::json::array();
        for (const CheckResult& c : l.checks) checks.push_back(c);
        labs.push_back({{"id", l.id},
                        {"name", l.name},
                        {"title", l.title},
                        {"points", l.points()},
                        {"max_points", l.max_points()},
                        {"pending_points", l.pending_points()},
                        {"failures", l.failures},
                        {"warnings", l.warnings},
                        {"output_tail", l.output_tail},
                        {"seconds", l.seconds},
                        {"checks", checks}});
    }
    nlohmann::json j = {{"schema_version", kReportSchemaVersion},
            {"implementation", r.implementation},
            {"seed", r.seed},
            {"started_at", r.started_at},
            {"gpu_available", r.gpu_available},
            {"no_gpu_reason", r.no_gpu_reason},
            {"fingerprint", r.fingerprint},
            {"ceilings", r.ceilings},
            {"totals",
             {{"points", r.points()}, {"max_points", r.max_points()}, {"pending_points", r.pending_points()},
              {"all_passed", r.all_passed()}}},
            {"labs", labs}};
    if (!r.submission.is_null()) j["submission"] = r.submission;
    if (!r.student.is_null()) j["student"] = r.student;
    return j;
}

std::string to_csv(const RunReport& r) {
    auto q = [](const std::string& f) {
        if (f.find_first_of(",\"\n") == std::string::npos) return f;
        std::string o = "\"";
        for (char c : f) o += c == '"' ? std::string("\"\"") : std::string(1, c);
        return o + "\"";
    };
    std::ostringstream x;
    const std::string student = r.student.is_object() ? r.student.value("id", "") : "";
    // An exercise case's values, e.g. "tile: m=96 n=80" (the gradebook keeps each student's own case).
    const auto case_of = [](const CheckResult& c) {
        if (!c.details.is_object() || !c.details.contains("case")) return std::string();
        const nlohmann::json& k = c.details["case"];
        std::string s = k.value("name", "") + ":";
        for (const auto& [name, value] : k["values"].items()) s += " " + name + "=" + value.dump();
        return s;
    };
    x << "implementation,seed,student,lab,lab_name,check,kind,status,points,max_points,measured,target,case\n";
    for (const LabResult& l : r.labs) {
        for (const CheckResult& c : l.checks)
            x << r.implementation << ',' << r.seed << ',' << q(student) << ',' << l.id << ',' << q(l.name) << ','
              << q(c.id) << ',' << to_string(c.kind) << ',' << to_string(c.status) << ',' << pts(c.points) << ','
              << pts(c.max_points) << ',' << q(c.measured) << ',' << q(c.target) << ',' << q(case_of(c)) << '\n';
        x << r.implementation << ',' << r.seed << ',' << q(student) << ',' << l.id << ',' << q(l.name) << ",total,,"
          << (l.failures.empty() ? "" : "failed") << ',' << pts(l.points()) << ',' << pts(l.max_points()) << ",,,\n";
    }
    return x.str();
}

std::string to_junit(const RunReport& r) {
    std::ostringstream x;
    // An INVALID measurement is a JUnit <error> (the test could not be judged), not a <failure>.
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    for (const LabResult& l : r.labs)
        for (const CheckResult& c : l.checks) {
            ++tests;
            if (c.status == Status::skipped) ++skipped;
            else if (c.status == Status::invalid) ++errors;
            else if (c.status != Status::pass) ++failures;
        }
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<testsuites name=\"gpu-labs (" << r.implementation << ")\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\">\n";
    for (const LabResult& l : r.labs) {
        int lf = 0, le = 0, ls = 0;
        for (const CheckResult& c : l.checks) {
            if (c.status == Status::skipped) ++ls;
            else if (c.status == Status::invalid) ++le;
            else if (c.status != Status::pass) ++lf;
        }
        x << "  <testsuite name=\"lab" << xml_escape(l.id) << "_" << xml_escape(l.name) << "\" tests=\"" << l.checks.size()
          << "\" failures=\"" << lf << "\" errors=\"" << le << "\" skipped=\"" << ls << "\" time=\"" << l.seconds << "\">\n";
        x << "    <properties><property name=\"points\" value=\"" << pts(l.points()) << "\"/><property name=\"max_points\" value=\""
          << pts(l.max_points()) << "\"/><property name=\"seed\" value=\"" << r.seed << "\"/></properties>\n";
        for (const CheckResult& c : l.checks) {
            x << "    <testcase classname=\"lab" << xml_escape(l.id) << "." << to_string(c.kind) << "\" name=\""
              << xml_escape(c.id) << "\">";
            const std::string msg = c.message + (c.hint.empty() ? "" : " — hint: " + c.hint);
            if (c.status == Status::skipped) {
                x << "<skipped message=\"" << xml_escape(msg) << "\"/>";
            } else if (c.status == Status::invalid) {
                x << "<error type=\"invalid\" message=\"" << xml_escape(msg) << "\">"
                  << xml_escape("0/" + pts(c.max_points) + " points: the measurement could not be trusted; measured " +
                                c.measured)
                  << "</error>";
            } else if (c.status != Status::pass) {
                x << "<failure type=\"" << to_string(c.status) << "\" message=\"" << xml_escape(msg) << "\">"
                  << xml_escape(pts(c.points) + "/" + pts(c.max_points) + " points; measured " + c.measured + "; target " + c.target)
                  << "</failure>";
            }
            x << "<system-out>" << xml_escape(pts(c.points) + "/" + pts(c.max_points)) << "</system-out></testcase>\n";
        }
        for (const std::string& f : l.failures)
            x << "    <system-err>" << xml_escape(f) << "</system-err>\n";
        x << "  </testsuite>\n";
    }
    x << "</testsuites>\n";
    return x.str();
}

void print_report(std::ostream& out, const RunReport& r, bool colour, bool verbose) {
    const char* bold = colour ? "\033[1m" : "";
    const char* reset = colour ? "\033[0m" : "";
    const char* dim = colour ? "\033[2m" : "";
    if (!r.submission.is_null()) {
        const nlohmann::json& s = r.submission;
        out << "\n" << bold << "Submission " << s.value("path", "") << reset << " (" << s.value("source", "") << "): "
            << s["used"].size() << " editable file(s) graded";
        if (!s["missing"].empty()) out << ", " << s["missing"].size() << " missing (graded as the untouched template)";
        out << "\n";
        for (const auto& f : s["missing"]) out << "  missing: " << f.get<std::string>() << "\n";
        for (const auto& f : s["ignored"])
            out << "  ignored: " << f.get<std::string>() << " differs from the course (only editable files are used)\n";
        if (s.value("extra_files", 0) > 0)
            out << "  ignored: " << s.value("extra_files", 0) << " file(s) the course does not have\n";
    }
    for (const LabResult& l : r.labs) {
        out << "\n" << bold << "Lab " << l.id << " — " << l.title << reset << "  (" << r.implementation << ")\n";
        out << "  " << pad("check", 42) << pad("status", 13) << pad("measured", 24) << pad("target", 26) << "points\n";
        for (const CheckResult& c : l.checks) {
            const std::string status = upper(to_string(c.status));
            out << "  " << pad(c.title.empty() ? c.id : c.title, 42) << (colour ? colour_of(c.status) : "")
                << pad(status, 13) << reset << pad(c.measured, 24) << pad(c.target, 26) << pts(c.points) << "/"
                << pts(c.max_points) << "\n";
        }
        bool any = false;
        for (const CheckResult& c : l.checks) {
            const bool show = c.status != Status::pass || verbose;
            if (!show || (c.message.empty() && c.hint.empty())) continue;
            if (c.status == Status::skipped && !verbose) continue;
            if (!any) out << "\n";
            any = true;
            out << "  " << dim << "•" << reset << " " << (c.title.empty() ? c.id : c.title) << ": " << c.message << "\n";
            if (!c.hint.empty()) out << "      hint: " << c.hint << "\n";
        }
        for (const std::string& w : l.warnings) out << "  " << (colour ? "\033[33m" : "") << "warning" << reset << ": " << w << "\n";
        for (const std::string& f : l.failures) out << "  " << (colour ? "\033[31m" : "") << "FAILED" << reset << " " << f << "\n";
        if (!l.failures.empty() && !l.output_tail.empty()) {
            out << "  last output:\n";
            std::istringstream in(l.output_tail);
            std::string line;
            while (std::getline(in, line)) out << "    | " << line << "\n";
        }
        std::size_t skipped = 0, invalid = 0;
        for (const CheckResult& c : l.checks) {
            if (c.status == Status::skipped) ++skipped;
            if (c.status == Status::invalid) ++invalid;
        }
        if (invalid > 0)
            out << "  " << (colour ? "\033[35m" : "") << invalid << " measurement" << (invalid > 1 ? "s" : "")
                << " INVALID" << reset << ": not graded (0 points), no verdict on the code — regrade with --retry-invalid N "
                << "when the GPU is yours alone\n";
        out << "  " << bold << "total " << pts(l.points()) << "/" << pts(l.max_points()) << reset;
        if (skipped > 0)
            out << "  (" << skipped << " GPU check" << (skipped > 1 ? "s" : "") << " skipped, " << pts(l.pending_points())
                << " points pending)";
        out << "\n";
    }
    out << "\n" << bold << "Overall: " << pts(r.points()) << "/" << pts(r.max_points()) << " points" << reset;
    if (r.pending_points() > 0) out << ", " << pts(r.pending_points()) << " pending a GPU";
    out << "  (seed " << r.seed << "; reproduce with --seed " << r.seed << ")\n";
    if (!r.gpu_available) out << "GPU checks skipped: " << r.no_gpu_reason << "\n";
}

}  // namespace gpulab::grader
