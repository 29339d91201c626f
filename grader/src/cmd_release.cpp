// `grader release OUT_DIR`: the course as a class receives it. No solutions, no known-bad versions, no
// instructor's guide; class.toml with the class's course seed and no student; a README that starts at lab 00.
// grader/scripts/check-release.sh builds and grades what it writes (CI runs it).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "grader/process.hpp"
#include "labs/text.hpp"

namespace gpulab::grader::cli {

namespace {

namespace fs = std::filesystem;

// Why a file of the course stays out of a student's release ("" : it goes in). The file's path is relative to the
// course's root, with '/'.
std::string left_out_why(const std::string& rel) {
    if (rel.rfind("solutions/", 0) == 0) return "the solutions, each lab's known-bad versions, the models' answers";
    if (rel.rfind("wrong/", 0) == 0 || rel.find("/wrong/") != std::string::npos) return "known-bad versions";
    if (rel == "docs/instructor.md") return "the instructor's guide (a class's grading, its gradebook, a cluster)";
    if (rel.rfind(".ci/", 0) == 0) return "the course's own CI (it tests the course with its solutions, and releases it)";
    return "";
}

// The course's files, relative to @p src: git's list in a checkout (tracked, and untracked ones .gitignore does not
// name), else every file outside the build trees, .deps/, out/ and .git/.
std::vector<std::string> course_files(const fs::path& src) {
    std::vector<std::string> out;
    if (fs::exists(src / ".git")) {
        const ChildOutcome git = run_child({"git", "-C", src.string(), "ls-files", "-co", "--exclude-standard"}, 60);
        if (git.exit_code != 0) throw std::runtime_error("git ls-files in " + src.string() + " failed: " + git.output_tail);
        for (const std::string& line : split(git.output, '\n'))
            if (!line.empty() && fs::is_regular_file(src / line)) out.push_back(line);
    } else {
        for (auto it = fs::recursive_directory_iterator(src); it != fs::recursive_directory_iterator(); ++it) {
            const std::string rel = fs::relative(it->path(), src).generic_string();
            const std::string top = rel.substr(0, rel.find('/'));
            if (it->is_directory() && (top.rfind("build", 0) == 0 || top == ".deps" || top == "out" ||
                                       it->path().filename() == ".git" || it->path().filename() == "__pycache__")) {
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file()) out.push_back(rel);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The course's class.toml for a class: its seed kept (it draws each student's cases), the student's id emptied.
std::string release_class_toml(const std::string& text, std::uint64_t seed) {
    std::istringstream in(text);
    std::string line, out, section;
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (!t.empty() && t.front() == '[') section = t;
        if (section == "[course]" && t.rfind("seed", 0) == 0 && t.find('=') != std::string::npos)
            line = "seed = " + std::to_string(seed);
        else if (section == "[student]" && t.rfind("id", 0) == 0 && t.find('=') != std::string::npos)
            line = "id = \"\"";
        out += line + "\n";
    }
    return out;
}

// The README a class receives: where to start first; the instructors' lines of the quick start left out.
std::string release_readme(const std::string& text) {
    std::istringstream in(text);
    std::string line, out;
    bool started = false;
    while (std::getline(in, line)) {
        if (line.find("# instructors:") != std::string::npos) continue;
        if (line.find("Instructors: `docs/instructor.md`") != std::string::npos) {
            const auto at = line.find("Instructors: `docs/instructor.md`");
            line.erase(at);
            while (!line.empty() && line.back() == ' ') line.pop_back();
            if (line.empty()) continue;
        }
        out += line + "\n";
        if (!started && line.rfind("# ", 0) == 0) {
            started = true;
            out += "\n> **This is your copy of the course.** Start with lab 00: read `labs/00_warmup/README.md`, run the "
                   "main command below once, then `build/grader/grader 00` whenever you want a grade. The solutions "
                   "are not part of this copy; your instructor grades your editable files on the course as released.\n";
        }
    }
    return out;
}

}  // namespace

int release_main(int argc, char** argv) {
    CLI::App app{"Writes the course as a class receives it into OUT_DIR: no solutions, no known-bad versions, no "
                 "instructor's guide; class.toml with the course's seed and no student id; a README that starts at "
                 "lab 00. grader/scripts/check-release.sh builds and grades the result."};
    std::string out_dir, registry_path = LABS_REGISTRY_PATH;
    std::optional<std::uint64_t> course_seed;
    app.add_option("OUT_DIR", out_dir, "Where to write it (a folder that does not exist yet, or is empty)")->required();
    app.add_option("--course-seed", course_seed,
                   "The class's course seed (default: the one in this course's class.toml): with each student id it "
                   "draws that student's exercise cases")
        ->check(seed_validator());
    app.add_option("--registry", registry_path, "Lab registry JSON (written by CMake)");
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;

    const Registry reg = load_registry(registry_path);
    const fs::path src = fs::weakly_canonical(reg.source_dir);
    const fs::path out = fs::weakly_canonical(out_dir);
    if (fs::exists(out) && (!fs::is_directory(out) || !fs::is_empty(out))) {
        std::cerr << "grader release: " << out_dir << " exists and is not an empty folder: name a new one\n";
        return kExitUsage;
    }
    // Inside the course its files would be the course's next time (a build tree, which nothing lists, is the exception).
    const auto [a, b] = std::mismatch(src.begin(), src.end(), out.begin(), out.end());
    if (a == src.end() && (b == out.end() || b->string().rfind("build", 0) != 0)) {
        std::cerr << "grader release: " << out_dir << " is inside the course (" << src.string()
                  << "): write the release outside it\n";
        return kExitUsage;
    }
    const auto config = class_config(reg, "grader release");
    if (!config) return kExitUsage;
    const std::uint64_t seed = course_seed.value_or(config->course_seed);

    std::map<std::string, std::size_t> left_out;  // why -> files
    std::size_t copied = 0;
    for (const std::string& rel : course_files(src)) {
        if (const std::string why = left_out_why(rel); !why.empty()) {
            ++left_out[why];
            continue;
        }
        const fs::path to = out / rel;
        fs::create_directories(to.parent_path());
        if (rel == "class.toml" || rel == "README.md") {
            std::ifstream f(src / rel);
            std::stringstream text;
            text << f.rdbuf();
            std::ofstream o(to);
            o << (rel == "class.toml" ? release_class_toml(text.str(), seed) : release_readme(text.str()));
            if (!o) throw std::runtime_error("cannot write " + to.string());
        } else {
            fs::copy_file(src / rel, to, fs::copy_options::overwrite_existing);
        }
        ++copied;
    }
    std::cout << "grader release: " << copied << " files of the course written to " << out.string() << "\n";
    std::cout << "  class.toml: course seed " << seed << (seed == 0 ? " (every student works the stated cases)" : "")
              << ", no student id\n";
    for (const auto& [why, n] : left_out) std::cout << "  left out: " << n << " file" << (n == 1 ? "" : "s") << ", " << why << "\n";
    std::cout << "Check it before handing it out: grader/scripts/check-release.sh " << out.string() << "\n";
    return kExitPassed;
}

}  // namespace gpulab::grader::cli
