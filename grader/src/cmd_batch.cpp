// `grader batch` and `grader gradebook merge`: a class graded in parallel workers, and its shards joined.
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "grader/html_report.hpp"
#include "grader/batch.hpp"
#include "grader/similarity.hpp"
#include "batch_detail.hpp"

namespace gpulab::grader::cli {

namespace {

std::string share_text(double share) {
    std::ostringstream s;
    s << share;
    return s.str();
}

// What `grader batch`'s command line asks for, besides the BatchOptions it sets directly.
struct BatchCli {
    std::vector<std::string> paths;
    std::string registry_path = LABS_REGISTRY_PATH, out_dir, labs_list, shard_text;
    std::optional<std::uint64_t> seed, course_seed;
};

// The command's options (a table: one entry per option).
void add_options(CLI::App& app, BatchCli& c, BatchOptions& o) {
    app.add_option("submissions", c.paths, "Submissions, or folders of submissions")->required();
    app.add_option("--out", c.out_dir, "Where the reports and the gradebook go (default: build/batch)");
    app.add_option("--workers", o.workers, "Submissions graded at once (default: one per GPU, or 2 without a GPU)")
        ->check(CLI::PositiveNumber);
    app.add_option("--gpus", o.gpus, "GPUs for the workers: all (the visible ones), or CUDA_VISIBLE_DEVICES values "
                                     "such as 0,2,3; each worker is pinned to one")
        ->capture_default_str();
    app.add_option("--seed", c.seed, "The class's seed (default: drawn once and printed; with --resume, the earlier run's)")
        ->check(seed_validator());
    app.add_option("--timeout", o.timeout_s, "Seconds one submission may take before it is stopped and flagged HUNG")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--lab-timeout", o.lab_timeout_s, "Seconds each lab process may run (grader --timeout)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_flag("--resume", o.resume, "Do not grade again a submission whose result is in --out for the same files "
                                       "(content hash) and settings");
    app.add_option("--labs", c.labs_list, "Labs to grade, comma-separated (default: all)");
    app.add_option("--only", o.only, "What to grade, as grader --only says (answers, code, or check ids)")->capture_default_str();
    app.add_option("--retry-invalid", o.retry_invalid, "As grader --retry-invalid")->check(CLI::NonNegativeNumber);
    app.add_flag("--no-ceilings", o.no_ceilings, "As grader --no-ceilings");
    app.add_flag("--calibrate", o.calibrate, "Before grading, each worker grades the solutions on its GPU; the "
                                             "gradebook records their performance checks (ratio, points) per GPU, and "
                                             "calibration.csv too, so that GPUs and nodes can be compared");
    app.add_option("--course-seed", c.course_seed, "The course's seed (default: [course] seed in class.toml); when it is "
                                                   "not 0, each student is graded on their own exercise cases");
    app.add_option("--registry", c.registry_path, "Lab registry written by the build")->capture_default_str();
    app.add_option("--first-slot", o.first_slot, "Worker K stages and builds in the build tree's slot FIRST+K: batches "
                                                 "that share one build tree (shards on a cluster) need disjoint slots")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_flag("--no-similarity", [&o](std::int64_t) { o.similarity = false; },
                 "Do not compare the class's code for copying after grading (grader similarity does it on its own)");
    app.add_option("--flag-share", o.flag_share, "Flag a pair SIMILAR when this share of one file's code is in the "
                                                 "other (default " + share_text(kDefaultFlagShare) + ")")
        ->check(CLI::Range(0.05, 1.0));
    app.add_option("--flag-run", o.flag_run, "Flag a pair SIMILAR when one unbroken run of shared code is this many "
                                             "fingerprints long (default " + std::to_string(kDefaultFlagRun) + ")")
        ->check(CLI::Range(5, 100000));
    app.add_option("--shard", c.shard_text, "I/N: grade only shard I (0-based) of N; the students, sorted by id, are dealt "
                                            "round robin; its results go to OUT/shard-I-of-N (grader gradebook merge joins them)");
}

// The class's submissions, and this shard's share of them; throws std::invalid_argument on a usage error.
Shard find_class(const BatchCli& c, BatchOptions& o) {
    Shard shard;
    if (!c.shard_text.empty()) shard = parse_shard(c.shard_text);
    std::vector<std::string> passed_over;
    o.entries = find_submissions(c.paths, passed_over);
    for (const std::string& p : passed_over) std::cerr << "grader batch: passed over " << p << " (not a folder or an archive)\n";
    for (const BatchEntry& e : o.entries) o.class_students.push_back(e.student);
    o.shard_index = shard.index;
    o.shard_count = shard.count;
    o.entries = select_shard(o.entries, shard);
    if (o.entries.empty())
        throw std::invalid_argument("shard " + c.shard_text + " of a class of " + std::to_string(o.class_students.size()) +
                                    " has no student: use fewer shards");
    return shard;
}

}  // namespace

// `grader batch`: grades a class (gpulab::grader::run_batch, grader/include/grader/batch.hpp).
int batch_main(int argc, char** argv) {
    CLI::App app{"Grades a class: each submission (a directory, a git repository at HEAD, or an archive; or a "
                 "folder of them) as `grader --submission` grades it, in parallel workers pinned to the GPUs, "
                 "with one seed for the class; then writes the gradebook (CSV and JSON) beside the per-student "
                 "reports. The student id is the folder's or the archive's name.", "grader batch"};
    BatchCli c;
    BatchOptions o;
    add_options(app, c, o);
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
    Shard shard;
    try {
        shard = find_class(c, o);
    } catch (const std::invalid_argument& e) {
        std::cerr << "grader batch: " << e.what() << "\n";
        return kExitUsage;
    }
    Registry reg;
    std::vector<LabEntry> labs;
    if (!load_labs(c.registry_path, {}, reg, labs)) return kExitUsage;
    const auto config = class_config(reg, "grader batch");
    if (!config) return kExitUsage;
    std::stringstream selectors(c.labs_list);
    for (std::string s; std::getline(selectors, s, ',');)
        if (!s.empty()) o.labs.push_back(s);
    o.registry_path = c.registry_path;
    const std::string out = c.out_dir.empty() ? (std::filesystem::path(c.registry_path).parent_path() / "batch").string() : c.out_dir;
    o.out_dir = shard_out_dir(out, shard);
    o.grader_exe = std::filesystem::read_symlink("/proc/self/exe").string();
    o.seed = c.seed;
    o.course_seed = c.course_seed.value_or(config->course_seed);
    return run_batch(o);
}

// `grader similarity`: a class's code compared for copying (gpulab::grader::run_similarity), written into its
// gradebook when OUT has one.
int similarity_main(int argc, char** argv) {
    CLI::App app{"Compares a class's submissions for copying, per lab: every pair of students' editable files, and each "
                 "one against the reference solution and the course's own code (Dolos; the template subtracted). Flags "
                 "change no points. When OUT holds the class's gradebook (grader batch), its rows get the SIMILAR flag "
                 "and the pairs; the side-by-side pages go to OUT/similarity/.", "grader similarity"};
    std::vector<std::string> paths;
    std::string registry_path = LABS_REGISTRY_PATH, out_dir, labs_list;
    std::optional<double> share;
    std::optional<int> run_length;
    app.add_option("submissions", paths, "Submissions, or folders of submissions (as grader batch takes them)")->required();
    app.add_option("--out", out_dir, "Where the class's gradebook is and the comparison goes (default: build/batch)");
    app.add_option("--labs", labs_list, "Labs to compare, comma-separated (default: all)");
    app.add_option("--flag-share", share, "Flag a pair SIMILAR when this share of one file's code is in the other "
                                          "(default " + share_text(kDefaultFlagShare) + ")")
        ->check(CLI::Range(0.05, 1.0));
    app.add_option("--flag-run", run_length, "Flag a pair SIMILAR when one unbroken run of shared code is this many "
                                             "fingerprints long (default " + std::to_string(kDefaultFlagRun) + ")")
        ->check(CLI::Range(5, 100000));
    app.add_option("--registry", registry_path, "Lab registry written by the build")->capture_default_str();
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
    SimilarityOptions o;
    try {
        std::vector<std::string> passed_over;
        o.entries = find_submissions(paths, passed_over);
        for (const std::string& p : passed_over) std::cerr << "grader similarity: passed over " << p << " (not a folder or an archive)\n";
    } catch (const std::invalid_argument& e) {
        std::cerr << "grader similarity: " << e.what() << "\n";
        return kExitUsage;
    }
    std::vector<std::string> selectors;
    std::stringstream list(labs_list);
    for (std::string s; std::getline(list, s, ',');)
        if (!s.empty()) selectors.push_back(s);
    if (!load_labs(registry_path, selectors, o.registry, o.labs)) return kExitUsage;
    const std::filesystem::path out =
        out_dir.empty() ? std::filesystem::path(registry_path).parent_path() / "batch" : std::filesystem::path(out_dir);
    if (const std::string why = similarity_unavailable(o.registry.source_dir); !why.empty()) {
        std::cerr << "grader similarity: cannot compare: " << why << "\n";
        return kExitUsage;
    }
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    o.out_dir = out.string();
    o.flag_share = share;
    o.flag_run = run_length;
    const SimilarityRun run = run_similarity(o);
    report_similarity(run, "grader similarity");
    if (!run.ran) return kExitGraderError;
    if (auto gradebook = batch_detail::read_json(out / "gradebook.json")) {
        apply_similarity(*gradebook, run);
        batch_detail::write_atomically(out / "gradebook.json", gradebook->dump(2) + "\n");
        batch_detail::write_atomically(out / "gradebook.csv", gradebook_csv(*gradebook));
        batch_detail::write_atomically(out / "class.html", class_html(*gradebook, out.string()));
        std::cerr << "grader similarity: the gradebook in " << out.string() << " has the SIMILAR flags\n";
    } else {
        std::cerr << "grader similarity: no gradebook in " << out.string() << ": the pairs are in "
                  << (out / run.report).string() << "\n";
    }
    return 0;
}

// `grader gradebook merge`: joins the gradebooks of a class's shards (gpulab::grader::merge_gradebooks).
int gradebook_main(int argc, char** argv) {
    CLI::App app{"Gradebooks of a class graded in shards (grader batch --shard I/N).", "grader gradebook"};
    app.require_subcommand(1);
    CLI::App* merge = app.add_subcommand("merge", "Joins the shards' gradebooks into one gradebook.csv and gradebook.json, "
                                                  "refusing shards of another grading and naming any shard or student missing "
                                                  "or twice");
    std::string out;
    std::vector<std::string> dirs;
    merge->add_option("--out", out, "Where the merged gradebook goes")->required();
    std::string registry_path = LABS_REGISTRY_PATH;
    merge->add_option("--registry", registry_path, "Lab registry written by the build (the course the class's code is "
                                                   "compared against)")->capture_default_str();
    merge->add_option("shards", dirs, "The shards' folders (OUT/shard-I-of-N, as grader batch --shard wrote them)")->required();
    if (const auto rc = parse_command_line(app, argc, argv)) return *rc;
    return merge_gradebooks(out, dirs, registry_path);
}

}  // namespace gpulab::grader::cli
