// A class graded in shards (`grader batch --shard I/N`), and their gradebooks joined (`grader gradebook merge`).
#include <algorithm>
#include <iostream>
#include <map>
#include <stdexcept>
#include <tuple>

#include "batch_detail.hpp"
#include "grader/html_report.hpp"
#include "grader/batch.hpp"
#include "grader/similarity.hpp"

namespace gpulab::grader {

using namespace batch_detail;

Shard parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    const auto whole = [&](const std::string& s) {
        if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument("--shard takes I/N, two whole numbers with 0 <= I < N (0-based: 0/3, 1/3, 2/3), not '" + text + "'");
        return std::stoi(s);
    };
    if (slash == std::string::npos) whole("");
    const Shard shard{whole(text.substr(0, slash)), whole(text.substr(slash + 1))};
    if (shard.count < 1) throw std::invalid_argument("--shard " + text + ": a class has at least 1 shard");
    if (shard.index >= shard.count)
        throw std::invalid_argument("--shard " + text + ": shards are numbered from 0, so the last of " + std::to_string(shard.count) +
                                    " is " + std::to_string(shard.count - 1) + "/" + std::to_string(shard.count));
    return shard;
}

std::vector<BatchEntry> select_shard(const std::vector<BatchEntry>& entries, Shard shard) {
    std::vector<BatchEntry> sorted = entries, mine;
    std::stable_sort(sorted.begin(), sorted.end(), [](const BatchEntry& a, const BatchEntry& b) { return a.student < b.student; });
    for (std::size_t k = 0; k < sorted.size(); ++k)
        if (k % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index)) mine.push_back(sorted[k]);
    return mine;
}

std::string shard_out_dir(const std::string& out, Shard shard) {
    if (shard.count == 1) return out;
    return (fs::path(out) / ("shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count))).string();
}

namespace {

// One shard's folder as its batch left it.
struct ShardBook {
    std::string dir;
    std::string name;      // "DIR (shard I/N)"
    nlohmann::json shard;  // batch.json's "shard": index, count, class_students
    nlohmann::json book;   // its gradebook.json
};

// The shards' folders that hold a finished gradebook; a problem for each that does not.
std::vector<ShardBook> read_shards(const std::vector<std::string>& shard_dirs, std::vector<std::string>& problems) {
    std::vector<ShardBook> books;
    for (const std::string& d : shard_dirs) {
        const fs::path dir = fs::absolute(d).lexically_normal();
        const auto batch = read_json(dir / "batch.json");
        const auto book = read_json(dir / "gradebook.json");
        if (!batch || !batch->contains("shard")) {
            problems.push_back(dir.string() + " is no folder a grader batch wrote (no batch.json with its shard)");
            continue;
        }
        const nlohmann::json& shard = (*batch)["shard"];
        const std::string name = dir.string() + " (shard " + std::to_string(shard.value("index", -1)) + "/" +
                                 std::to_string(shard.value("count", 0)) + ")";
        if (!book) {
            problems.push_back(name + " has no gradebook: its batch has not finished (run it again with --resume)");
            continue;
        }
        books.push_back({dir.string(), name, shard, *book});
    }
    return books;
}

// The shards are one grading of one class: the same seeds, settings, grader and labs, split from the same class
// into the same number of shards, each shard once.
void check_one_grading(const std::vector<ShardBook>& books, std::vector<std::string>& problems) {
    std::map<int, std::string> shard_of;  // index -> folder
    for (const ShardBook& b : books) {
        const ShardBook& first = books.front();
        if (const auto [it, fresh] = shard_of.emplace(b.shard.value("index", -1), b.dir); !fresh)
            problems.push_back("shard " + std::to_string(it->first) + " is given twice: " + it->second + " and " + b.dir);
        if (&b == &first) continue;
        for (const char* key : {"seed", "course_seed", "only", "grader_version"})
            if (b.book[key] != first.book[key])
                problems.push_back(b.name + " was graded with " + key + " " + b.book[key].dump() + ", " + first.dir + " with " +
                                   first.book[key].dump() + ": not one grading of the class");
        nlohmann::json ids = nlohmann::json::array(), first_ids = nlohmann::json::array();
        for (const nlohmann::json& l : b.book["labs"]) ids.push_back(l["id"]);
        for (const nlohmann::json& l : first.book["labs"]) first_ids.push_back(l["id"]);
        if (ids != first_ids) problems.push_back(b.name + " graded labs " + ids.dump() + ", " + first.dir + " labs " + first_ids.dump());
        if (b.shard.value("count", 0) != first.shard.value("count", 0))
            problems.push_back(b.name + " is one of " + std::to_string(b.shard.value("count", 0)) + " shards, " + first.dir +
                               " one of " + std::to_string(first.shard.value("count", 0)));
        else if (b.shard["class_students"] != first.shard["class_students"])
            problems.push_back(b.name + " was split from another class than " + first.dir + " (its submissions differ)");
    }
    if (books.empty()) return;
    const int count = books.front().shard.value("count", 0);
    for (int i = 0; i < count; ++i)
        if (!shard_of.count(i)) problems.push_back("shard " + std::to_string(i) + "/" + std::to_string(count) + " is missing");
}

// A shard's path as the merged gradebook (in @p out) names it.
std::string rebased(const ShardBook& b, const nlohmann::json& rel, const fs::path& out) {
    return rel.is_string() ? (fs::path(b.dir) / rel.get<std::string>()).lexically_relative(out).string() : std::string();
}

// Every student's row of every shard, their files' paths rebased; every student of the class in exactly one shard.
std::vector<BatchResult> class_rows(const std::vector<ShardBook>& books, const fs::path& out, std::vector<std::string>& problems) {
    std::vector<BatchResult> results;
    std::map<std::string, std::vector<std::string>> rows_of;  // student -> folders with a row
    for (const ShardBook& b : books)
        for (const nlohmann::json& row : b.book["students"]) {
            BatchResult r;
            r.entry = {row.at("student").get<std::string>(), row.at("submission").get<std::string>()};
            rows_of[r.entry.student].push_back(b.dir);
            r.outcome = row.at("outcome").get<std::string>();
            r.error = row.at("error").get<std::string>();
            r.content_hash = row.at("content_hash").get<std::string>();
            r.seconds = row.at("seconds").get<double>();
            r.worker = row.at("worker").get<int>();
            r.gpu = row.at("cuda_visible_devices").get<std::string>();
            r.report_file = rebased(b, row.at("report"), out);
            r.junit_file = rebased(b, row.at("junit"), out);
            r.log_file = rebased(b, row.at("log"), out);
            if (r.outcome == "graded") {
                const auto report = row.at("report").is_string() ? read_json(fs::path(b.dir) / row["report"].get<std::string>())
                                                                 : std::nullopt;
                if (!report) {
                    problems.push_back(b.name + ": the report of " + r.entry.student + " cannot be read");
                    continue;
                }
                r.report = *report;
            }
            results.push_back(std::move(r));
        }
    if (!books.empty())
        for (const nlohmann::json& s : books.front().shard["class_students"])
            if (!rows_of.count(s.get<std::string>())) problems.push_back("student " + s.get<std::string>() + " is in no shard's gradebook");
    for (const auto& [student, dirs] : rows_of)
        if (dirs.size() > 1) {
            std::string where;
            for (const std::string& d : dirs) where += " " + d;
            problems.push_back("student " + student + " is in " + std::to_string(dirs.size()) + " shards:" + where);
        }
    std::stable_sort(results.begin(), results.end(),
                     [](const BatchResult& a, const BatchResult& b) { return a.entry.student < b.entry.student; });
    return results;
}

// Every shard's calibration (one per node and GPU that graded), its files' paths rebased: by shard, then host and GPU.
std::vector<nlohmann::json> class_calibrations(const std::vector<ShardBook>& books, const fs::path& out) {
    std::vector<nlohmann::json> calibrations;
    for (const ShardBook& b : books)
        for (nlohmann::json e : b.book.value("calibration", nlohmann::json::array())) {
            for (const char* key : {"report", "log"})
                if (e.contains(key) && e[key].is_string()) e[key] = rebased(b, e[key], out);
            calibrations.push_back(std::move(e));
        }
    std::stable_sort(calibrations.begin(), calibrations.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return std::make_tuple(a["shard"].value("index", 0), a.value("host", ""), a.value("cuda_visible_devices", "")) <
               std::make_tuple(b["shard"].value("index", 0), b.value("host", ""), b.value("cuda_visible_devices", ""));
    });
    return calibrations;
}

}  // namespace

int merge_gradebooks(const std::string& out_dir, const std::vector<std::string>& shard_dirs, const std::string& registry_path) {
    const auto say = [](const std::string& s) { std::cerr << "grader gradebook merge: " << s << "\n"; };
    if (shard_dirs.empty()) {
        say("no shard folder given");
        return kExitUsage;
    }
    const fs::path out = fs::absolute(out_dir).lexically_normal();
    std::vector<std::string> problems;
    const std::vector<ShardBook> books = read_shards(shard_dirs, problems);
    check_one_grading(books, problems);
    const std::vector<BatchResult> results = class_rows(books, out, problems);
    if (!problems.empty()) {
        for (const std::string& p : problems) say(p);
        say("nothing written");
        return 1;
    }
    const nlohmann::json& first = books.front().book;
    GradebookInfo info;
    info.seed = first.at("seed").get<std::uint64_t>();
    info.course_seed = first.at("course_seed").get<std::uint64_t>();
    info.only = first.at("only").get<std::string>();
    for (const nlohmann::json& l : first.at("labs")) {
        LabEntry e;
        e.id = l.at("id").get<std::string>();
        e.name = l.at("name").get<std::string>();
        e.title = l.at("title").get<std::string>();
        info.labs.push_back(e);
    }
    info.calibration = class_calibrations(books, out);
    nlohmann::json gradebook = gradebook_json(info, results);
    gradebook["grader_version"] = first.at("grader_version");  // the shards' grader, not this one
    fs::create_directories(out);
    // Copying noticed, over the whole class as one batch would compare it (a shard compares nothing).
    SimilarityRun sim;
    try {
        SimilarityOptions so;
        so.registry = load_registry(registry_path);
        std::vector<std::string> ids;
        for (const LabEntry& l : info.labs) ids.push_back(l.id);
        so.labs = select_labs(so.registry, ids);
        for (const BatchResult& r : results) so.entries.push_back(r.entry);
        so.out_dir = out.string();
        const nlohmann::json flag_share = first.contains("similarity") ? first["similarity"].value("flag_share", nlohmann::json()) : nlohmann::json();
        if (flag_share.is_number()) so.flag_share = flag_share.get<double>();
        const nlohmann::json flag_run = first.contains("similarity") ? first["similarity"].value("flag_run", nlohmann::json()) : nlohmann::json();
        if (flag_run.is_number_integer()) so.flag_run = flag_run.get<int>();
        say("comparing the class's code (copying noticed: grader similarity)");
        sim = run_similarity(so);
    } catch (const std::exception& e) {
        sim.why_not = std::string("the course could not be read: ") + e.what();
    }
    apply_similarity(gradebook, sim);
    report_similarity(sim, "grader gradebook merge");
    write_atomically(out / "gradebook.json", gradebook.dump(2) + "\n");
    write_atomically(out / "gradebook.csv", gradebook_csv(gradebook));
    write_atomically(out / "class.html", class_html(gradebook, out.string()));
    std::error_code ec;
    const std::size_t n_calibrations = gradebook["calibration"].size();
    if (n_calibrations > 0) write_atomically(out / "calibration.csv", calibration_csv(gradebook));
    else fs::remove(out / "calibration.csv", ec);
    for (const std::string& line : calibration_spread(gradebook["calibration"])) say(line);
    say(std::to_string(results.size()) + " students from " + std::to_string(books.size()) + " shard(s): " +
        (out / "gradebook.csv").string() + " and " + (out / "gradebook.json").string() +
        (n_calibrations == 0 ? "" : "; " + std::to_string(n_calibrations) + " calibration(s) in " + (out / "calibration.csv").string()));
    return 0;
}

}  // namespace gpulab::grader
