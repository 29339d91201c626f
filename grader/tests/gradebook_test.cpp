// The gradebook's pieces: which submissions a folder holds and whose they are, the flags a report raises
// (from what the grader really writes for a hang or a forged channel), and the CSV.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "grader/batch.hpp"
#include "grader/similarity.hpp"
#include "grader/report.hpp"

using namespace gpulab::grader;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A report of one fake lab whose code runner behaves as @p behave (grader_fake_runner), as `grader --json` writes it.
nlohmann::json report_of(const std::string& behave) {
    LabEntry lab;
    lab.id = "07";
    lab.name = "fake";
    lab.student.runner = {FAKE_RUNNER, "--behave", behave};
    lab.code_points = 20;
    GradeOptions o;
    o.answers = false;
    o.build = false;
    o.timeout_s = 1;
    RunReport r;
    r.implementation = "submission";
    r.labs.push_back(grade_lab(lab, o));
    return to_json(r);
}

std::string names(const std::vector<Flag>& flags) {
    std::string s;
    for (const Flag& f : flags) {
        if (!s.empty()) s += ' ';
        s += f.name + "@" + f.lab;
    }
    return s;
}

}  // namespace

TEST_CASE("A student's id is the submission's folder or archive name", "[batch]") {
    CHECK(student_id_of("class/alice.tar.gz") == "alice");
    CHECK(student_id_of("class/bob/") == "bob");
    CHECK(student_id_of("class/carol.v2.zip") == "carol.v2");
    CHECK(student_id_of("/x/dave.tgz") == "dave");
    CHECK(student_id_of("erin") == "erin");
}

TEST_CASE("A folder of submissions gives one entry each; two of one student are refused", "[batch]") {
    const auto dir = std::filesystem::temp_directory_path() / ("grader-class-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "class" / "alice" / "labs");
    std::filesystem::create_directories(dir / "class" / ".hidden");
    std::ofstream(dir / "class" / "bob.tar.gz") << "x";
    std::ofstream(dir / "class" / "notes.txt") << "x";
    std::vector<std::string> passed_over;
    const std::vector<BatchEntry> e = find_submissions({(dir / "class").string()}, passed_over);
    REQUIRE(e.size() == 2);
    CHECK(e[0].student == "alice");
    CHECK(e[1].student == "bob");
    CHECK(std::filesystem::path(e[1].path).is_absolute());
    REQUIRE(passed_over.size() == 1);
    CHECK(contains(passed_over[0], "notes.txt"));
    // A submission given by itself is one, even with a labs/ folder inside.
    CHECK(find_submissions({(dir / "class" / "alice").string()}, passed_over).size() == 1);
    std::ofstream(dir / "class" / "alice.zip") << "x";
    try {
        (void)find_submissions({(dir / "class").string()}, passed_over);
        FAIL("two submissions of alice were accepted");
    } catch (const std::invalid_argument& ex) {
        CHECK(contains(ex.what(), "two submissions of student 'alice'"));
    }
    CHECK_THROWS_AS(find_submissions({(dir / "nothing-here").string()}, passed_over), std::invalid_argument);
    std::filesystem::remove_all(dir);
}

TEST_CASE("A lab process killed at its time limit raises HUNG, a forged channel TAMPERED, a fairness note UNSTABLE", "[batch]") {
    const std::vector<Flag> hung = report_flags(report_of("hang"));
    REQUIRE(names(hung) == "HUNG@07");
    CHECK(contains(hung[0].why, "hung: no result within"));
    const std::vector<Flag> forged = report_flags(report_of("forged"));
    REQUIRE(names(forged) == "TAMPERED@07");  // once per lab, however many checks it voids
    CHECK(contains(forged[0].why, "TAMPERED"));
    // A fairness note, from the runner's line to the report: UNSTABLE, with the check and its note.
    const nlohmann::json unfair = report_of("unfair");
    CHECK(unfair["labs"][0]["checks"][1]["fairness"][0]["kind"] == "clock_throttled");
    CHECK(names(report_flags(unfair)) == "UNSTABLE@07");
    CHECK(report_flags(unfair)[0].why == "c2: GPU clock throttled (power cap) when its timing ended");
    CHECK(report_flags(report_of("ok")).empty());
    CHECK(report_flags(report_of("segv")).empty());  // a crash costs points; nothing to flag
}

TEST_CASE("Suspicious checks and edited frozen files are flagged; handouts and class.toml are not", "[batch]") {
    nlohmann::json r = {
        {"labs", {{{"id", "03"},
                   {"failures", nlohmann::json::array()},
                   {"warnings", nlohmann::json::array()},
                   {"checks", {{{"id", "perf.v3"}, {"status", "suspicious"}, {"message", "faster than DRAM allows"}},
                               {{"id", "perf.v2"}, {"status", "pass"}, {"message", ""}}}}}}},
        {"submission", {{"ignored", {"labs/03_tiling/README.md", "class.toml", "grader/src/lab.cpp", "notes/todo.txt"}}}}};
    const std::vector<Flag> flags = report_flags(r);
    REQUIRE(names(flags) == "TAMPERED@ SUSPICIOUS@03");
    CHECK(flags[0].why == "frozen files of the course edited (not used: graded on the course's own): grader/src/lab.cpp");
    CHECK(contains(flags[1].why, "perf.v3: faster than DRAM allows"));
    r["submission"]["ignored"] = {"labs/03_tiling/README.md", "class.toml"};
    CHECK(names(report_flags(r)) == "SUSPICIOUS@03");
}

TEST_CASE("The gradebook CSV has a column per lab and quotes what needs it", "[batch]") {
    const nlohmann::json g = {
        {"seed", 7},
        {"grader_version", "0.1.0"},
        {"labs", {{{"id", "00"}}, {{"id", "05"}}}},
        {"students",
         {{{"student", "smith, j"},
           {"labs", {{"00", {{"points", 18.5}}}, {"05", {{"points", 0}}}}},
           {"total_points", 18.5},
           {"max_points", 200},
           {"pending_points", 80},
           {"flags", {"COMPILE_ERROR", "HUNG", "SIMILAR"}},
           {"similar", {{{"lab", "05"}, {"partner", "reference"}, {"share", 0.92}, {"partner_share", 0.884}},
                        {{"lab", "00"}, {"partner", "jones"}, {"share", 0.7}, {"partner_share", 0.65}},
                        {{"lab", "02"}, {"partner", "course: x.cpp"}, {"share", 0.35}, {"partner_share", 0.6}, {"longest", 149},
                         {"flagged_by", {"longest"}}}}},
           {"gpu_fingerprint", "none"}}}}};
    CHECK(gradebook_csv(g) ==
          "student,lab00_points,lab05_points,total_points,max_points,pending_points,flags,similar,seed,grader_version,"
          "gpu_fingerprint\n"
          "\"smith, j\",18.5,0,18.5,200,80,COMPILE_ERROR HUNG SIMILAR,05 reference 92%/88%; 00 jones 70%/65%; 02 course: x.cpp 35%/60% run 149,7,0.1.0,"
          "none\n");
}

TEST_CASE("A comparison's pairs become SIMILAR flags on both students' rows, replacing an earlier comparison's", "[batch]") {
    nlohmann::json g = {{"students",
                         {{{"student", "ann"}, {"flags", {"HUNG", "SIMILAR"}},
                           {"flag_details", {{{"flag", "HUNG"}, {"lab", ""}, {"why", "t"}}, {{"flag", "SIMILAR"}, {"lab", "03"}, {"why", "old"}}}}},
                          {{"student", "ben"}, {"flags", nlohmann::json::array()}, {"flag_details", nlohmann::json::array()}},
                          {{"student", "cat"}, {"flags", nlohmann::json::array()}, {"flag_details", nlohmann::json::array()}}}}};
    SimilarityRun run;
    run.ran = true;
    run.tool = {{"name", "dolos"}, {"version", "3"}};
    run.report = "similarity/similarity.json";
    run.flagged = {{"07", "ann", "ben", 0.9, 0.8, 40, {"share"}, "similarity/07/ann--ben.html"},
                   {"07", "ben", "ann", 0.8, 0.9, 40, {"share"}, "similarity/07/ann--ben.html"},
                   {"02", "ben", "course: common/src/models/occupancy.cpp", 0.35, 0.3, 149, {"longest"}, ""}};
    apply_similarity(g, run);
    const nlohmann::json& ann = g["students"][0];
    CHECK(ann["flags"] == nlohmann::json({"HUNG", "SIMILAR"}));
    REQUIRE(ann["flag_details"].size() == 2);  // the earlier comparison's entry replaced
    CHECK(ann["flag_details"][1]["lab"] == "07");
    CHECK(contains(ann["flag_details"][1]["why"].get<std::string>(), "90% of this code is in ben's code"));
    CHECK(ann["similar"] == nlohmann::json::array({{{"lab", "07"}, {"partner", "ben"}, {"share", 0.9}, {"partner_share", 0.8},
                                                    {"longest", 40}, {"flagged_by", {"share"}},
                                                    {"report", "similarity/07/ann--ben.html"}}}));
    CHECK(!contains(ann["flag_details"][1]["why"].get<std::string>(), "unbroken"));
    const nlohmann::json& ben = g["students"][1];
    CHECK(ben["flags"] == nlohmann::json({"SIMILAR"}));
    REQUIRE(ben["similar"].size() == 2);
    CHECK(ben["similar"][1]["report"].is_null());
    CHECK(contains(ben["flag_details"][1]["why"].get<std::string>(), "the course's common/src/models/occupancy.cpp"));
    CHECK(contains(ben["flag_details"][1]["why"].get<std::string>(), "one unbroken stretch of 149 fingerprints"));
    CHECK(g["students"][2]["flags"].empty());
    CHECK(g["students"][2]["similar"].empty());
    CHECK(g["similarity"]["ran"] == true);
    CHECK(g["similarity"]["report"] == "similarity/similarity.json");
    // Not compared: the reason, and no flag left over.
    SimilarityRun none;
    none.why_not = "Node.js (node) is not installed";
    apply_similarity(g, none);
    CHECK(g["students"][0]["flags"] == nlohmann::json({"HUNG"}));
    CHECK(g["similarity"]["ran"] == false);
    CHECK(g["similarity"]["why_not"] == "Node.js (node) is not installed");
    CHECK(g["similarity"]["tool"].is_null());
}

TEST_CASE("A reason quoting a build slot's path reads the same whichever worker graded it", "[batch]") {
    const nlohmann::json report = {
        {"labs", {{{"id", "00"},
                   {"failures", {"code: the submission's code did not compile: /b/batch-slots/12/labs/00_warmup/v.cu(53): error: x"}}}}}};
    const std::vector<Flag> flags = report_flags(report);
    REQUIRE(flags.size() == 1);
    CHECK(flags[0].name == "COMPILE_ERROR");
    CHECK(contains(flags[0].why, "/b/batch-slots/K/labs/00_warmup/v.cu(53)"));
}

TEST_CASE("--shard I/N is 0-based and refuses I >= N and what is not two whole numbers", "[batch]") {
    const Shard s = parse_shard("2/3");
    CHECK(s.index == 2);
    CHECK(s.count == 3);
    CHECK(parse_shard("0/1").count == 1);
    for (const char* bad : {"3/3", "0/0", "1", "/3", "1/", "-1/3", "a/3", "1/3/4", "1 /3", ""}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_shard(bad), std::invalid_argument);
    }
}

TEST_CASE("Shards deal the students, sorted by id, round robin: each once, whatever the order given", "[batch]") {
    const std::vector<BatchEntry> entries = {{"erin", "/c/erin"}, {"alice", "/c/alice"}, {"dave", "/c/dave"},
                                             {"bob", "/c/bob"},   {"carol", "/c/carol"}};
    const auto ids = [](const std::vector<BatchEntry>& es) {
        std::vector<std::string> v;
        for (const BatchEntry& e : es) v.push_back(e.student);
        return v;
    };
    CHECK(ids(select_shard(entries, {0, 2})) == std::vector<std::string>{"alice", "carol", "erin"});
    CHECK(ids(select_shard(entries, {1, 2})) == std::vector<std::string>{"bob", "dave"});
    CHECK(ids(select_shard(entries, {0, 1})) == std::vector<std::string>{"alice", "bob", "carol", "dave", "erin"});
    CHECK(select_shard(entries, {4, 5}).size() == 1);
    CHECK(select_shard(entries, {5, 6}).empty());
    CHECK(shard_out_dir("/g/out", {1, 3}) == "/g/out/shard-1-of-3");
    CHECK(shard_out_dir("/g/out", {0, 1}) == "/g/out");
}

TEST_CASE("Points print as the handouts write them: up to three decimals, no trailing zeros", "[report]") {
    CHECK(format_points(5.0) == "5");
    CHECK(format_points(2.5) == "2.5");
    CHECK(format_points(1.25) == "1.25");
    CHECK(format_points(2.375) == "2.375");  // lab 09's case keys: not 2.38
    CHECK(format_points(0.0) == "0");
    CHECK(format_points(19.0004) == "19");
}

TEST_CASE("Without the comparison tool, similarity is not run and says why", "[batch]") {
    const std::filesystem::path course = std::filesystem::temp_directory_path() / ("similarity-none-" + std::to_string(getpid()));
    std::filesystem::create_directories(course / "grader" / "similarity");
    CHECK(contains(similarity_unavailable(course.string()), "no grader/similarity/similarity.mjs"));
    std::ofstream(course / "grader" / "similarity" / "similarity.mjs") << "// the tool, without its node_modules\n";
    const std::string why = similarity_unavailable(course.string());
    CHECK((contains(why, "Dolos is not installed") || contains(why, "Node.js")));
    SimilarityOptions o;
    o.registry.source_dir = course.string();
    o.out_dir = (course / "out").string();
    const SimilarityRun run = run_similarity(o);
    CHECK_FALSE(run.ran);
    CHECK(run.why_not == why);
    CHECK(run.flagged.empty());
    CHECK_FALSE(std::filesystem::exists(course / "out" / "similarity"));  // nothing written
    std::filesystem::remove_all(course);
}

