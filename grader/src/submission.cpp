// Staging a submission: only its editable files reach the build.
#include "grader/submission.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace gpulab::grader {
namespace fs = std::filesystem;
namespace {

std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Runs a command; "" when it succeeded, else what it said.
std::string run(const std::vector<std::string>& argv, std::string* output = nullptr) {
    const ChildOutcome o = run_child(argv, 300, false);
    if (output != nullptr) *output = o.output;
    if (o.spawn_failed) return o.output;
    if (o.timed_out) return argv.front() + " timed out";
    if (o.exit_code != 0) return argv.front() + " failed: " + o.output_tail;
    return "";
}

std::string sha256_of(const fs::path& p) {
    std::string out;
    if (!run({"sha256sum", p.string()}, &out).empty()) return "";
    return out.substr(0, out.find(' '));
}

// Folders a submission may carry that are never part of it.
bool skipped_dir(const std::string& name) {
    return name == ".git" || name.rfind("build", 0) == 0 || name == ".deps" || name == "out" ||
           name == "__pycache__" || name == "submission";
}

}  // namespace

void to_json(nlohmann::json& j, const StagedSubmission& s) {
    j = nlohmann::json{{"path", s.path},       {"source", s.source}, {"used", s.used},
                       {"missing", s.missing}, {"ignored", s.ignored}, {"extra_files", s.extra}};
}

StagedSubmission stage_submission(const std::string& path, const Registry& registry, const std::vector<LabEntry>& labs) {
    StagedSubmission s;
    s.path = path;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        s.error = "the submission " + path + " does not exist";
        return s;
    }
    // Unpack what is not a plain directory into a scratch folder.
    fs::path root = path;
    char scratch_template[] = "/tmp/grader-submission-XXXXXX";
    const bool needs_scratch = !fs::is_directory(path) || fs::exists(fs::path(path) / ".git");
    fs::path scratch;
    struct Cleanup {
        fs::path& dir;
        ~Cleanup() {
            std::error_code e;
            if (!dir.empty()) fs::remove_all(dir, e);
        }
    } cleanup{scratch};
    if (needs_scratch) {
        if (mkdtemp(scratch_template) == nullptr) {
            s.error = "cannot create a scratch folder";
            return s;
        }
        scratch = scratch_template;
        root = scratch;
    }
    std::string problem;
    if (fs::is_directory(path) && fs::exists(fs::path(path) / ".git")) {
        std::string head;
        problem = run({"git", "-C", path, "rev-parse", "HEAD"}, &head);
        if (problem.empty()) {
            s.source = "git HEAD " + head.substr(0, head.find_first_of(" \n"));
            problem = run({"sh", "-c", "git -C \"$1\" archive --format=tar HEAD | tar -x -C \"$2\"", "sh", path,
                           scratch.string()});
        }
    } else if (fs::is_directory(path)) {
        s.source = "directory";
    } else if (ends_with(path, ".zip")) {
        s.source = "archive";
        problem = run({"python3", "-m", "zipfile", "-e", path, scratch.string()});
    } else if (ends_with(path, ".tar") || ends_with(path, ".tar.gz") || ends_with(path, ".tgz") ||
               ends_with(path, ".tar.xz") || ends_with(path, ".tar.bz2")) {
        s.source = "archive";
        problem = run({"tar", "-xf", path, "-C", scratch.string()});
    } else {
        problem = "not a directory, a git repository or an archive (.tar, .tar.gz, .tgz, .tar.xz, .zip)";
    }
    if (!problem.empty()) {
        s.error = "cannot read the submission " + path + ": " + problem;
        return s;
    }
    // An archive of one folder (student.tar.gz → student/labs/...): grade what is inside it.
    if (!fs::exists(root / "labs")) {
        std::vector<fs::path> entries;
        for (const auto& e : fs::directory_iterator(root)) entries.push_back(e.path());
        if (entries.size() == 1 && fs::is_directory(entries.front())) root = entries.front();
    }

    // The editable files of every lab (graded or not) are the submission; of those, the graded labs'
    // are staged.
    std::set<std::string> editable;
    for (const LabEntry& lab : registry.labs) {
        for (const std::string& f : lab.student_files) editable.insert(f);
        editable.insert(lab.dir + "/answers.toml");
    }
    for (const LabEntry& lab : labs) {
        std::vector<std::string> files = lab.student_files;
        files.push_back(lab.dir + "/answers.toml");
        for (const std::string& rel : files) {
            const fs::path from = root / rel;
            const fs::path to = fs::path(lab.submission_dir) / fs::path(rel).filename();
            fs::create_directories(to.parent_path(), ec);
            if (fs::is_regular_file(from)) {
                fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
                s.used.push_back({{"file", rel}, {"bytes", fs::file_size(from, ec)}, {"sha256", sha256_of(from)}});
            } else {
                fs::copy_file(fs::path(registry.source_dir) / rel, to, fs::copy_options::overwrite_existing, ec);
                s.missing.push_back(rel);
            }
            if (ec) {
                s.error = "cannot stage " + rel + ": " + ec.message();
                return s;
            }
        }
    }
    // Everything else that differs from the course is listed, and left out.
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_directory() && skipped_dir(it->path().filename().string())) {
            it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file()) continue;
        const std::string rel = fs::relative(it->path(), root).string();
        if (editable.count(rel)) continue;
        const fs::path course = fs::path(registry.source_dir) / rel;
        if (!fs::exists(course)) ++s.extra;
        else if (read_file(course) != read_file(it->path())) s.ignored.push_back(rel);
    }
    std::sort(s.ignored.begin(), s.ignored.end());
    return s;
}

}  // namespace gpulab::grader
