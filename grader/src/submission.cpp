// Staging a submission: only its editable files reach the build.
#include "grader/submission.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "labs/text.hpp"

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
    if (o.exit_code != 0) {
        // The cause is in the tool's last lines, less the ones that only say it gave up (tar: "gzip: stdin: not in
        // gzip format", then "Child returned status 1" and "Error is not recoverable: exiting now"; python's
        // zipfile ends its traceback with "BadZipFile: File is not a zip file"): the last two that are left, a
        // traceback's own lines left out.
        std::vector<std::string> said;
        for (const std::string& line : split_lines(o.output_tail))
            if (line.find("Error is not recoverable") == std::string::npos &&
                line.find("Child returned status") == std::string::npos &&
                line.find("Exiting with failure status") == std::string::npos && !line.empty() && line[0] != ' ' &&
                line[0] != '\t' && line.rfind("Traceback", 0) != 0)  // (a traceback's frames are indented)
                said.push_back(line);
        if (said.size() > 2) said.erase(said.begin(), said.end() - 2);
        const std::string why = join(said, "; ");
        return argv.front() + " failed" + (why.empty() ? " (exit code " + std::to_string(o.exit_code) + ")" : ": " + why);
    }
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

namespace {

// A submission opened for reading: its files under `root` (for an archive or a git repository, a scratch
// folder that is removed with this object).
struct OpenedSubmission {
    fs::path root;
    std::string source;  // "directory", "archive", or "git HEAD <commit>"
    std::string error;   // why it cannot be read ("" when it can)
    fs::path scratch;
    OpenedSubmission() = default;
    OpenedSubmission(const OpenedSubmission&) = delete;
    OpenedSubmission& operator=(const OpenedSubmission&) = delete;
    ~OpenedSubmission() {
        std::error_code e;
        if (!scratch.empty()) fs::remove_all(scratch, e);
    }
};

void open_submission(const std::string& path, OpenedSubmission& o) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        o.error = "the submission " + path + " does not exist";
        return;
    }
    // Unpack what is not a plain directory into a scratch folder.
    o.root = path;
    char scratch_template[] = "/tmp/grader-submission-XXXXXX";
    const bool needs_scratch = !fs::is_directory(path) || fs::exists(fs::path(path) / ".git");
    if (needs_scratch) {
        if (mkdtemp(scratch_template) == nullptr) {
            o.error = "cannot create a scratch folder";
            return;
        }
        o.scratch = scratch_template;
        o.root = o.scratch;
    }
    std::string problem;
    if (fs::is_directory(path) && fs::exists(fs::path(path) / ".git")) {
        std::string head;
        problem = run({"git", "-C", path, "rev-parse", "HEAD"}, &head);
        if (problem.empty()) {
            o.source = "git HEAD " + head.substr(0, head.find_first_of(" \n"));
            problem = run({"sh", "-c", "git -C \"$1\" archive --format=tar HEAD | tar -x -C \"$2\"", "sh", path,
                           o.scratch.string()});
        }
    } else if (fs::is_directory(path)) {
        o.source = "directory";
    } else if (ends_with(path, ".zip")) {
        o.source = "archive";
        problem = run({"python3", "-m", "zipfile", "-e", path, o.scratch.string()});
    } else if (ends_with(path, ".tar") || ends_with(path, ".tar.gz") || ends_with(path, ".tgz") ||
               ends_with(path, ".tar.xz") || ends_with(path, ".tar.bz2")) {
        o.source = "archive";
        problem = run({"tar", "-xf", path, "-C", o.scratch.string()});
    } else {
        problem = "not a directory, a git repository or an archive (.tar, .tar.gz, .tgz, .tar.xz, .zip)";
    }
    if (!problem.empty()) {
        o.error = "cannot read the submission " + path + ": " + problem;
        return;
    }
    // An archive of one folder (student.tar.gz → student/labs/...): grade what is inside it.
    if (!fs::exists(o.root / "labs")) {
        std::vector<fs::path> entries;
        for (const auto& e : fs::directory_iterator(o.root)) entries.push_back(e.path());
        if (entries.size() == 1 && fs::is_directory(entries.front())) o.root = entries.front();
    }
}

// The files of @p labs a submission is graded on: each lab's editable files and answers.toml.
std::vector<std::string> graded_files(const std::vector<LabEntry>& labs) {
    std::vector<std::string> files;
    for (const LabEntry& lab : labs) {
        files.insert(files.end(), lab.student_files.begin(), lab.student_files.end());
        files.push_back(lab.dir + "/answers.toml");
    }
    return files;
}

}  // namespace

StagedSubmission inspect_submission(const std::string& path, const std::vector<LabEntry>& labs) {
    StagedSubmission s;
    s.path = path;
    OpenedSubmission o;
    open_submission(path, o);
    s.source = o.source;
    s.error = o.error;
    if (!s.error.empty()) return s;
    std::error_code ec;
    for (const std::string& rel : graded_files(labs)) {
        const fs::path from = o.root / rel;
        if (fs::is_regular_file(fs::symlink_status(from, ec))) s.used.push_back({{"file", rel}, {"bytes", fs::file_size(from, ec)}, {"sha256", sha256_of(from)}});
        else s.missing.push_back(rel);
    }
    return s;
}

std::string copy_graded_code(const std::string& path, const std::vector<LabEntry>& labs, const std::string& dest) {
    OpenedSubmission o;
    open_submission(path, o);
    if (!o.error.empty()) return o.error;
    std::error_code ec;
    for (const LabEntry& lab : labs)
        for (const std::string& rel : lab.student_files) {
            const fs::path from = o.root / rel;
            if (!fs::is_regular_file(fs::symlink_status(from, ec))) continue;  // (a link is not staged either)
            const fs::path to = fs::path(dest) / rel;
            fs::create_directories(to.parent_path(), ec);
            if (!ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
            if (ec) return "cannot copy " + rel + ": " + ec.message();
        }
    return "";
}

std::string content_hash(const nlohmann::json& used, const nlohmann::json& missing) {
    std::vector<std::string> lines;
    for (const auto& u : used) lines.push_back(u.at("file").get<std::string>() + "\t" + u.at("sha256").get<std::string>());
    for (const auto& m : missing) lines.push_back(m.get<std::string>() + "\tmissing");
    std::sort(lines.begin(), lines.end());
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    char path[] = "/tmp/grader-content-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return "";
    const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    const std::string hash = written ? sha256_of(path) : "";
    std::remove(path);
    return hash;
}

StagedSubmission stage_submission(const std::string& path, const Registry& registry, const std::vector<LabEntry>& labs) {
    StagedSubmission s;
    s.path = path;
    std::error_code ec;
    OpenedSubmission o;
    open_submission(path, o);
    s.source = o.source;
    s.error = o.error;
    if (!s.error.empty()) return s;
    const fs::path root = o.root;

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
            // A link is never followed: it could name a file on the grading machine (the reference solution).
            if (fs::is_regular_file(fs::symlink_status(from, ec))) {
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
