// Copying noticed: the files a class submitted, compared by Dolos (grader/similarity/similarity.mjs), and the
// flagged pairs written into the gradebook.
#include "grader/similarity.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

#include "grader/process.hpp"
#include "grader/submission.hpp"
#include "labs/text.hpp"

namespace gpulab::grader {
namespace fs = std::filesystem;
namespace {

// The code files of the course a student might copy from, as the manifest names them: extensions of C, C++ and CUDA.
bool is_code(const fs::path& p) {
    static const std::set<std::string> kExt = {".cu", ".cuh", ".cpp", ".cc", ".hpp", ".h"};
    return kExt.count(p.extension().string()) > 0;
}

// `node` on PATH ("" when there is none).
std::string find_node() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path == nullptr ? "" : path);
    for (std::string d; std::getline(dirs, d, ':');) {
        if (d.empty()) continue;
        const fs::path p = fs::path(d) / "node";
        std::error_code ec;
        if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
    }
    return "";
}

fs::path tool_dir(const std::string& source_dir) { return fs::path(source_dir) / "grader" / "similarity"; }

// The course's own code files under @p dir (recursively; paths relative to the course), largest files left out.
void add_course_files(const fs::path& source, const fs::path& dir, const std::set<std::string>& leave_out,
                      std::vector<nlohmann::json>& files) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_regular_file() || !is_code(it->path()) || it->file_size(ec) > 256 * 1024) continue;
        const std::string rel = fs::relative(it->path(), source).string();
        if (!leave_out.count(rel)) found.push_back(rel);
    }
    std::sort(found.begin(), found.end());
    for (const std::string& rel : found)
        files.push_back({{"id", "course: " + rel}, {"role", "course"}, {"path", (source / rel).string()}});
}

// Each lab's part of the manifest: the template subtracted, the students' files, the reference, the course's code.
nlohmann::json lab_manifest(const SimilarityOptions& o, const LabEntry& lab, const std::string& file,
                            const fs::path& files_dir, const std::vector<std::string>& students) {
    const fs::path source = o.registry.source_dir;
    nlohmann::json files = nlohmann::json::array();
    std::error_code ec;
    for (const std::string& id : students) {
        const fs::path p = files_dir / id / file;
        if (fs::is_regular_file(p, ec)) files.push_back({{"id", id}, {"role", "student"}, {"path", p.string()}});
    }
    const fs::path lab_dir = fs::path(lab.dir).filename();
    const fs::path reference = source / "solutions" / lab_dir / fs::path(file).filename();
    if (fs::is_regular_file(reference, ec))
        files.push_back({{"id", "reference"}, {"role", "reference"}, {"path", reference.string()}});
    std::vector<nlohmann::json> course;
    const std::set<std::string> leave_out(lab.student_files.begin(), lab.student_files.end());
    add_course_files(source, source / lab.dir, leave_out, course);
    add_course_files(source, source / "common" / "include", leave_out, course);
    add_course_files(source, source / "common" / "src", leave_out, course);
    for (nlohmann::json& c : course) files.push_back(std::move(c));
    // A lab with more than one editable file is compared file by file: the lab's name says which.
    const std::string name = lab.student_files.size() > 1 ? lab.id + ":" + fs::path(file).filename().string() : lab.id;
    return {{"lab", name}, {"language", "cpp"}, {"template", (source / file).string()}, {"files", files}};
}

// The partner as a sentence names it: "bob's code", "the reference solution", "the course's common/src/x.cu".
std::string partner_words(const std::string& partner) {
    if (partner == "reference") return "the reference solution";
    if (partner.rfind("course: ", 0) == 0) return "the course's " + partner.substr(8);
    return partner + "'s code";
}

// Whether a pair was flagged by its unbroken run (the shares may be low: the file padded with other code).
bool by_run(const SimilarPair& p) {
    return std::find(p.flagged_by.begin(), p.flagged_by.end(), "longest") != p.flagged_by.end();
}

double share_of(const nlohmann::json& pair, const char* key) {
    return pair.contains(key) && pair[key].is_number() ? pair[key].get<double>() : 0.0;
}

}  // namespace

std::string similarity_unavailable(const std::string& source_dir) {
    if (find_node().empty()) return "Node.js (node) is not installed";
    std::error_code ec;
    if (!fs::is_regular_file(tool_dir(source_dir) / "similarity.mjs", ec))
        return "this course has no grader/similarity/similarity.mjs";
    if (!fs::is_directory(tool_dir(source_dir) / "node_modules" / "@dodona" / "dolos-lib", ec))
        return "Dolos is not installed (grader/similarity/install.sh installs it)";
    return "";
}

SimilarityRun run_similarity(const SimilarityOptions& o) {
    SimilarityRun r;
    r.flag_share = o.flag_share.value_or(kDefaultFlagShare);
    r.flag_run = o.flag_run.value_or(kDefaultFlagRun);
    r.why_not = similarity_unavailable(o.registry.source_dir);
    if (!r.why_not.empty()) return r;
    const fs::path dir = fs::path(o.out_dir) / "similarity";
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir / "files", ec);
    if (ec) {
        r.why_not = "cannot create " + dir.string() + ": " + ec.message();
        return r;
    }
    // Each submission's editable code, as the student wrote it (a missing file is the template: nothing to compare).
    std::vector<std::string> students;
    for (const BatchEntry& e : o.entries) {
        const std::string problem = copy_graded_code(e.path, o.labs, (dir / "files" / e.student).string());
        if (!problem.empty()) {
            std::cerr << "grader similarity: " << e.student << " left out: " << problem << "\n";
            continue;
        }
        students.push_back(e.student);
    }
    nlohmann::json labs = nlohmann::json::array();
    for (const LabEntry& lab : o.labs)
        for (const std::string& file : lab.student_files) labs.push_back(lab_manifest(o, lab, file, dir / "files", students));
    const nlohmann::json manifest = {{"labs", labs}, {"flag_share", r.flag_share}, {"flag_longest", r.flag_run}};
    {
        std::ofstream m(dir / "manifest.json");
        m << manifest.dump(2) << "\n";
        if (!m) {
            r.why_not = "cannot write " + (dir / "manifest.json").string();
            return r;
        }
    }
    const ChildOutcome c = run_child({find_node(), (tool_dir(o.registry.source_dir) / "similarity.mjs").string(),
                                      (dir / "manifest.json").string(), dir.string()},
                                     o.timeout_s);
    if (c.spawn_failed || c.timed_out || c.exit_code != 0) {
        r.why_not = c.timed_out ? "the comparison was stopped after " + std::to_string(static_cast<int>(o.timeout_s)) + " s"
                                : "the comparison failed: " + join(split_lines(c.output_tail), " | ");
        return r;
    }
    nlohmann::json result;
    try {
        std::ifstream in(dir / "similarity.json");
        result = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
        r.why_not = std::string("the comparison left no readable similarity.json: ") + e.what();
        return r;
    }
    r.ran = true;
    r.tool = result.value("tool", nlohmann::json::object());
    r.report = "similarity/similarity.json";
    const std::set<std::string> class_ids(students.begin(), students.end());
    for (const nlohmann::json& lab : result.value("labs", nlohmann::json::array())) {
        std::string id = lab.value("lab", "");
        id = id.substr(0, id.find(':'));
        for (const nlohmann::json& p : lab.value("pairs", nlohmann::json::array())) {
            if (!p.value("flagged", false)) continue;
            const std::string a = p.value("a", ""), b = p.value("b", "");
            const std::string html = p.contains("html") && p["html"].is_string() ? "similarity/" + p["html"].get<std::string>() : "";
            const int longest = p.contains("longest") && p["longest"].is_number_integer() ? p["longest"].get<int>() : 0;
            std::vector<std::string> by;
            for (const nlohmann::json& x : p.value("flagged_by", nlohmann::json::array()))
                if (x.is_string()) by.push_back(x.get<std::string>());
            if (class_ids.count(a)) r.flagged.push_back({id, a, b, share_of(p, "share_a"), share_of(p, "share_b"), longest, by, html});
            if (class_ids.count(b)) r.flagged.push_back({id, b, a, share_of(p, "share_b"), share_of(p, "share_a"), longest, by, html});
        }
    }
    // Per lab, the reference first, then the highest shares: the row and the terminal read the strongest first.
    std::stable_sort(r.flagged.begin(), r.flagged.end(), [](const SimilarPair& a, const SimilarPair& b) {
        return std::make_tuple(a.lab, a.partner != "reference", -a.share, a.partner) <
               std::make_tuple(b.lab, b.partner != "reference", -b.share, b.partner);
    });
    return r;
}

void apply_similarity(nlohmann::json& g, const SimilarityRun& run) {
    g["similarity"] = {{"ran", run.ran},
                       {"why_not", run.why_not},
                       {"tool", run.ran ? run.tool : nlohmann::json(nullptr)},
                       {"flag_share", run.flag_share},
                       {"flag_run", run.flag_run},
                       {"report", run.ran ? nlohmann::json(run.report) : nlohmann::json(nullptr)}};
    for (nlohmann::json& row : g["students"]) {
        // An earlier comparison's entries go; this one's come in.
        nlohmann::json flags = nlohmann::json::array(), details = nlohmann::json::array(), similar = nlohmann::json::array();
        for (const auto& f : row["flags"])
            if (f != "SIMILAR") flags.push_back(f);
        for (const auto& d : row["flag_details"])
            if (d.value("flag", "") != "SIMILAR") details.push_back(d);
        const std::string student = row.value("student", "");
        for (const SimilarPair& p : run.flagged) {
            if (p.student != student) continue;
            similar.push_back({{"lab", p.lab},
                               {"partner", p.partner},
                               {"share", p.share},
                               {"partner_share", p.partner_share},
                               {"longest", p.longest},
                               {"flagged_by", p.flagged_by},
                               {"report", p.report.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.report)}});
            std::ostringstream why;
            why.setf(std::ios::fixed);
            why.precision(0);
            why << p.share * 100 << "% of this code is in " << partner_words(p.partner) << ", which has "
                << p.partner_share * 100 << "% of its own in this one (the template left out)";
            if (by_run(p))
                why << "; one unbroken stretch of " << p.longest << " fingerprints (about " << p.longest * 9
                    << " syntax-tree tokens) is in both";
            why << "; side by side: "
                << (p.report.empty() ? "no page" : p.report);
            details.push_back({{"flag", "SIMILAR"}, {"lab", p.lab}, {"why", why.str()}});
        }
        if (!similar.empty()) flags.push_back("SIMILAR");
        row["flags"] = flags;
        row["flag_details"] = details;
        row["similar"] = similar;
    }
}

void report_similarity(const SimilarityRun& run, const std::string& who) {
    constexpr std::size_t kShownPairs = 40;  // a class that copies wholesale would print thousands
    if (!run.ran) {
        std::cerr << who << ": similarity was not compared: " << run.why_not << "\n";
        return;
    }
    std::size_t shown = 0;
    for (const SimilarPair& p : run.flagged) {
        // A pair of students is listed once, from the side of the student whose id sorts first.
        if (p.partner != "reference" && p.partner.rfind("course: ", 0) != 0 && p.partner < p.student) continue;
        if (shown++ == 0) std::cerr << who << ": SIMILAR (flags change no points; read the pages side by side):\n";
        if (shown > kShownPairs) continue;  // counted, not listed
        std::cerr << "  lab " << p.lab << "  " << p.student << " ~ " << p.partner << "  "
                  << static_cast<int>(p.share * 100 + 0.5) << "% / " << static_cast<int>(p.partner_share * 100 + 0.5)
                  << "%" << (by_run(p) ? "  run " + std::to_string(p.longest) : std::string()) << "  " << p.report << "\n";
    }
    if (shown > kShownPairs)
        std::cerr << "  ... and " << shown - kShownPairs << " more flagged pairs, every one listed in " << run.report << "\n";
    if (shown == 0)
        std::cerr << who << ": similarity compared (" << run.tool.value("name", "?") << " " << run.tool.value("version", "?")
                  << "): no pair reaches the flag share " << run.flag_share << " or the flag run "
                  << run.flag_run << "\n";
}

}  // namespace gpulab::grader
