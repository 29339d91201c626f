// Console, JSON and JUnit forms of a grading run.
#include "grader/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <vector>

#ifndef LABS_GRADER_VERSION
#define LABS_GRADER_VERSION "unknown"
#endif

namespace gpulab::grader {

std::string format_points(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string s = buf;  // at most three decimals (the handouts' 2.375), trailing zeros dropped: 5, 1.25, 2.5
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string csv_field(const std::string& f) {
    if (f.find_first_of(",\"\n\r") == std::string::npos) return f;
    std::string o = "\"";
    for (char c : f) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
}

std::string utc_now_iso8601() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string grader_version() { return LABS_GRADER_VERSION; }

std::string markup_escape(const std::string& s) {
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

namespace {

std::string pts(double v) { return format_points(v); }

std::string xml_escape(const std::string& s) { return markup_escape(s); }

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

// Why a check did not run, in a few words for its row (the message below the table says it in full).
std::string short_reason(const CheckResult& c) {
    const std::string& m = c.message;
    if (c.status == Status::skipped) {
        if (m.find("no CUDA device") != std::string::npos || m.find("no usable CUDA device") != std::string::npos)
            return "no GPU here";
        if (m.find("ceilings") != std::string::npos) return "needs a GPU's ceilings";
        return "skipped";
    }
    for (const auto& [needle, words] : {std::pair{"hung", "hung (killed)"}, {"crashed", "crashed"},
                                       {"did not compile", "did not compile"}, {"did not link", "did not link"},
                                       {"code policy", "code policy"}, {"CUDA context was lost", "CUDA context lost"},
                                       {"TAMPERED", "tampered channel"}})
        if (m.find(needle) != std::string::npos) return words;
    return "not run";
}

}  // namespace

double RunReport::points() const {
    double s = 0;
    for (const LabResult& l : labs) s += l.points();
    return tidy_points(s);
}

double RunReport::max_points() const {
    double s = 0;
    for (const LabResult& l : labs) s += l.max_points();
    return tidy_points(s);
}

double RunReport::pending_points() const {
    double s = 0;
    for (const LabResult& l : labs) s += l.pending_points();
    return tidy_points(s);
}

bool RunReport::all_passed() const {
    return all_that_ran_passed() && pending_points() == 0;
}

bool RunReport::all_that_ran_passed() const {
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
        nlohmann::json lab = {{"id", l.id},
                              {"name", l.name},
                              {"title", l.title},
                              {"points", l.points()},
                              {"max_points", l.max_points()},
                              {"pending_points", l.pending_points()},
                              {"notes", l.notes},
                              {"failures", l.failures},
                              {"warnings", l.warnings},
                              {"output_tail", l.output_tail},
                              {"seconds", l.seconds},
                              {"checks", checks}};
        // How the graded code ran (only where a code runner spoke): the observer and the sandbox.
        if (!l.observer.empty()) lab["observer"] = l.observer;
        if (!l.sandbox.empty())
            lab["sandbox"] = {{"level", l.sandbox}, {"notes", l.sandbox_notes}, {"install_ms", l.sandbox_ms}};
        if (!l.profile.empty()) lab["profile"] = l.profile;
        labs.push_back(std::move(lab));
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
              {"all_passed", r.all_passed()}, {"all_that_ran_passed", r.all_that_ran_passed()}}},
            {"labs", labs}};
    if (!r.submission.is_null()) j["submission"] = r.submission;
    if (!r.student.is_null()) j["student"] = r.student;
    return j;
}

std::string to_csv(const RunReport& r) {
    const auto q = csv_field;
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
            x << "<system-out>"
              << xml_escape(pts(c.points) + "/" + pts(c.max_points) +
                            (c.fairness.empty() ? "" : "; fairness: " + fairness_text(c.fairness)))
              << "</system-out></testcase>\n";
        }
        for (const std::string& f : l.failures)
            x << "    <system-err>" << xml_escape(f) << "</system-err>\n";
        x << "  </testsuite>\n";
    }
    x << "</testsuites>\n";
    return x.str();
}

namespace {

// The terminal's escape sequences, or nothing without colour.
struct Style {
    const char *bold, *reset, *dim, *green, *yellow, *red, *magenta;
    explicit Style(bool colour)
        : bold(colour ? "\033[1m" : ""), reset(colour ? "\033[0m" : ""), dim(colour ? "\033[2m" : ""),
          green(colour ? "\033[32m" : ""), yellow(colour ? "\033[33m" : ""), red(colour ? "\033[31m" : ""),
          magenta(colour ? "\033[35m" : "") {}
};

// What a submission's staging used and left out.
void print_submission(std::ostream& out, const nlohmann::json& s, const Style& st) {
    out << "\n" << st.bold << "Submission " << s.value("path", "") << st.reset << " (" << s.value("source", "") << "): "
        << s["used"].size() << " editable file(s) graded";
    if (!s["missing"].empty()) out << ", " << s["missing"].size() << " missing (graded as the untouched template)";
    out << "\n";
    for (const auto& f : s["missing"]) out << "  missing: " << f.get<std::string>() << "\n";
    for (const auto& f : s["ignored"])
        out << "  ignored: " << f.get<std::string>() << " differs from the course (only editable files are used)\n";
    if (s.value("extra_files", 0) > 0) out << "  ignored: " << s.value("extra_files", 0) << " file(s) the course does not have\n";
}

// One row per check. The id is the handouts' vocabulary (and what --only takes); the title says it in words. The
// target comes last, whole; a check that did not run says why in its row.
// A cell of a column @p w wide: the text cut to leave at least one space before the next column.
std::string cell(const std::string& s, std::size_t w) { return pad(s, w - 1) + " "; }

// @p s in lines of at most @p w columns, broken between words (a word longer than a line is cut).
std::vector<std::string> wrap_words(const std::string& s, std::size_t w) {
    std::vector<std::string> lines{""};
    std::istringstream words(s);
    std::string word;
    while (words >> word) {
        std::string& line = lines.back();
        if (line.empty()) line = word;
        else if (width(line) + 1 + width(word) <= w) line += " " + word;
        else lines.push_back(word);
    }
    return lines;
}

// The table: one row per check; a check's id and title wrap onto lines of their own under it rather than being cut
// (the title says the shape that was graded).
void print_table(std::ostream& out, const LabResult& l, bool colour, const Style& st) {
    constexpr std::size_t kName = 56;
    out << "  " << cell("check", kName) << cell("status", 13) << cell("measured", 24) << cell("points", 11) << "target\n";
    for (const CheckResult& c : l.checks) {
        const std::string name = c.title.empty() || c.title == c.id ? c.id : c.id + "  " + c.title;
        // The id and as much of the title as fits; the rest of the title wrapped under it, indented.
        std::vector<std::string> lines{name};
        if (width(name) > kName - 1) {
            std::istringstream words(c.title);
            std::string word, rest;
            lines = {c.id + " "};
            while (words >> word)
                if (rest.empty() && width(lines[0]) + 1 + width(word) <= kName - 1) lines[0] += " " + word;
                else rest += (rest.empty() ? "" : " ") + word;
            for (const std::string& w : wrap_words(rest, kName - 5))
                if (!w.empty()) lines.push_back(w);
        }
        const std::string measured = c.status == Status::skipped || c.status == Status::not_run ? short_reason(c) : c.measured;
        out << "  " << cell(lines.front(), kName) << (colour ? colour_of(c.status) : "") << cell(upper(to_string(c.status)), 13)
            << st.reset << cell(measured, 24) << cell(pts(c.points) + "/" + pts(c.max_points), 11) << c.target << "\n";
        for (std::size_t i = 1; i < lines.size(); ++i) out << "      " << st.dim << lines[i] << st.reset << "\n";
    }
}

// Below the table, once each: what failed and why, with hints. Unanswered questions are counted, not listed again;
// a check that only repeats why the whole lab failed is left to the FAILED line; checks that say the same thing
// are listed together, once. Returns whether it printed anything.
bool print_bullets(std::ostream& out, const LabResult& l, bool verbose, const Style& st) {
    struct Bullet {
        std::vector<std::string> ids;
        std::string message, hint;
    };
    std::vector<Bullet> bullets;
    for (const CheckResult& c : l.checks) {
        if (c.status == Status::not_answered) continue;
        const bool show = c.status != Status::pass || verbose || !c.fairness.empty();
        if (!show || (c.message.empty() && c.hint.empty())) continue;
        if (c.status == Status::skipped && !verbose) continue;
        const bool repeats_failure = std::any_of(l.failures.begin(), l.failures.end(), [&](const std::string& f) {
            const auto colon = f.find(": ");
            const std::string reason = colon == std::string::npos ? f : f.substr(colon + 2);
            return !reason.empty() && c.message.find(reason.substr(0, std::min<std::size_t>(reason.size(), 60))) != std::string::npos;
        });
        if (repeats_failure && !verbose) continue;
        const auto same = std::find_if(bullets.begin(), bullets.end(),
                                       [&](const Bullet& b) { return b.message == c.message && b.hint == c.hint; });
        if (same != bullets.end()) same->ids.push_back(c.id);
        else bullets.push_back({{c.id}, c.message, c.hint});
    }
    for (const Bullet& b : bullets) {
        if (&b == &bullets.front()) out << "\n";
        std::string who = b.ids.front();
        if (b.ids.size() > 1) {
            who = std::to_string(b.ids.size()) + " checks (" + b.ids.front();
            for (std::size_t i = 1; i < b.ids.size() && i < 3; ++i) who += ", " + b.ids[i];
            who += b.ids.size() > 3 ? ", ...)" : ")";
        }
        out << "  " << st.dim << "•" << st.reset << " " << who << ": " << b.message << "\n";
        if (!b.hint.empty()) out << "      hint: " << b.hint << "\n";
    }
    return !bullets.empty();
}

// The lab's warnings and failures, and the output of a part that failed (a compiler's only with --verbose: its
// first errors are in the FAILED line already).
void print_failures(std::ostream& out, const LabResult& l, bool verbose, const Style& st) {
    for (const std::string& w : l.warnings) out << "  " << st.yellow << "warning" << st.reset << ": " << w << "\n";
    for (const std::string& f : l.failures) out << "  " << st.red << "FAILED" << st.reset << " " << f << "\n";
    const bool build_failure = std::any_of(l.failures.begin(), l.failures.end(), [](const std::string& f) {
        return f.find("did not compile") != std::string::npos || f.find("did not link") != std::string::npos;
    });
    if (build_failure && !verbose && !l.output_tail.empty()) out << "  (--verbose shows the compiler's whole output)\n";
    if (!l.failures.empty() && !l.output_tail.empty() && (verbose || !build_failure)) {
        out << "  last output:\n";
        std::istringstream in(l.output_tail);
        for (std::string line; std::getline(in, line);) out << "    | " << line << "\n";
    }
}

// The lab's total, after what its fairness notes and INVALID measurements mean.
void print_total(std::ostream& out, const LabResult& l, const Style& st) {
    std::size_t skipped = 0, invalid = 0, unfair = 0;
    for (const CheckResult& c : l.checks) {
        if (c.status == Status::skipped) ++skipped;
        if (c.status == Status::invalid) ++invalid;
        if (!c.fairness.empty()) ++unfair;
    }
    if (unfair > 0)
        out << "  " << st.yellow << unfair << " measurement" << (unfair > 1 ? "s" : "") << " with a fairness note" << st.reset
            << " (a timing that did not converge, a throttled GPU clock): the points stand; `grader " << l.id
            << " --only ID` measures a check again\n";
    if (invalid > 0)
        out << "  " << st.magenta << invalid << " measurement" << (invalid > 1 ? "s" : "") << " INVALID" << st.reset
            << ": not graded (0 points), no verdict on the code — regrade with --retry-invalid N when the GPU is yours alone\n";
    out << "  " << st.bold << "total " << pts(l.points()) << "/" << pts(l.max_points()) << st.reset;
    if (skipped > 0)
        out << "  (" << skipped << " GPU check" << (skipped > 1 ? "s" : "") << " skipped, " << pts(l.pending_points())
            << " points pending)";
    out << "\n";
}

}  // namespace

void print_report(std::ostream& out, const RunReport& r, bool colour, bool verbose) {
    const Style st(colour);
    if (!r.submission.is_null()) print_submission(out, r.submission, st);
    for (const LabResult& l : r.labs) {
        out << "\n" << st.bold << "Lab " << l.id << " — " << l.title << st.reset << "  (" << r.implementation << ")\n";
        for (const std::string& n : l.notes) out << "  " << st.green << "✓" << st.reset << " " << n << "\n";
        print_table(out, l, colour, st);
        const bool any = print_bullets(out, l, verbose, st);
        const auto unanswered = std::count_if(l.checks.begin(), l.checks.end(),
                                              [](const CheckResult& c) { return c.status == Status::not_answered; });
        if (unanswered > 0)
            out << (any ? "" : "\n") << "  " << unanswered << " question" << (unanswered > 1 ? "s" : "")
                << " not answered yet: fill in the lab's answers.toml (`grader " << l.id
                << " --only answers` grades just the answers)\n";
        print_failures(out, l, verbose, st);
        print_total(out, l, st);
    }
    out << "\n" << st.bold << "Overall: " << pts(r.points()) << "/" << pts(r.max_points()) << " points" << st.reset;
    if (r.pending_points() > 0) out << ", " << pts(r.pending_points()) << " pending a GPU";
    out << "  (seed " << r.seed << "; reproduce with --seed " << r.seed << ")\n";
    if (!r.gpu_available) out << "GPU checks skipped: " << r.no_gpu_reason << "\n";
    // Before any work (the student's own tree, nothing scored and no question answered anywhere): say that this is
    // expected, and where to start.
    const bool nothing_answered = std::all_of(r.labs.begin(), r.labs.end(), [](const LabResult& l) {
        return std::none_of(l.checks.begin(), l.checks.end(), [](const CheckResult& c) {
            return c.kind == CheckKind::answer && c.status != Status::not_answered;
        });
    });
    if (r.implementation == "student" && r.points() == 0 && nothing_answered && !r.labs.empty())
        out << "Nothing done yet, so 0 points is what to expect. Start with lab 00: read labs/00_warmup/README.md, "
               "then run `grader 00`.\n";
}

}  // namespace gpulab::grader
