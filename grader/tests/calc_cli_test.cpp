// `grader calc` end to end: an occupancy case, the method without the numbers at a graded case's inputs and every
// number elsewhere, the listing, and parameter errors.
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"

namespace {

struct Run {
    int status = -1;
    std::string out;
};

Run grader(const std::string& args) {
    Run r;
    const std::string cmd = std::string(GRADER_EXE) + " " + args + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), p.get())) r.out += buf.data();
    r.status = WEXITSTATUS(pclose(p.release()));
    return r;
}

}  // namespace

TEST_CASE("grader calc answers an occupancy case (lab 02's handout example)", "[calc][e2e]") {
    // Not section 5.1.5's kernel: lab 02 grades that one, and the calculator hides graded answers.
    const Run r = grader("calc occupancy --device H100 --threads 128 --regs 40 --smem-bytes 40960 --json");
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["blocks_by_threads"] == 16);
    CHECK(j["blocks_by_regs"] == 12);
    CHECK(j["blocks_by_smem"] == 5);
    CHECK(j["blocks_by_limit"] == 32);
    CHECK(j["resident_blocks"] == 5);
    CHECK(j["occupancy"].get<double>() == gpulab::testing::Approx(0.3125));
    CHECK(j["limiter"] == "smem");
}

TEST_CASE("At a graded question's inputs grader calc shows the method and no derived number", "[calc][e2e]") {
    // Section 5.1.5's kernel, which lab 02 grades: defaults written out or left to the model, the same inputs.
    for (const char* args : {"calc occupancy --device H100 --threads 256 --regs 128 --smem-bytes 98304 --json",
                             "calc occupancy --threads 256 --regs 128 --smem-bytes 98304 --json"}) {
        INFO(args);
        const Run r = grader(args);
        REQUIRE(r.status == 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        CHECK(j["note"].get<std::string>().find("lab 02") != std::string::npos);
        CHECK(j["resident_blocks"] == "(graded)");
        CHECK(j["occupancy"] == "(graded)");
        CHECK(j["limiter"] == "(graded)");
        CHECK(j["threads"] == 256);  // the inputs stay
        CHECK(j["regs_per_sm"] == 65536);
    }
    const Run text = grader("calc occupancy --threads 256 --regs 128 --smem-bytes 98304");
    CHECK(text.out.find("note: these are the inputs of a graded question") != std::string::npos);
    CHECK(text.out.find("= ceil(") != std::string::npos);  // the formulas stay
}

TEST_CASE("Away from every graded case grader calc shows every number", "[calc][e2e]") {
    // 256 threads a block answers nothing by itself: the old calculator hid blocks_by_threads = 8 here because it
    // equals a graded number; hiding by inputs shows it.
    const Run r = grader("calc occupancy --device H100 --threads 256 --regs 32 --smem-bytes 1024 --json");
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK_FALSE(j.contains("note"));
    CHECK(j["blocks_by_threads"] == 8);
    CHECK(j["resident_blocks"] == 8);
    CHECK(r.out.find("graded") == std::string::npos);
}

TEST_CASE("Every graded calculator run of every lab hides, and one input changed shows", "[calc][e2e]") {
    const Run list = grader("calc --graded");
    REQUIRE(list.status == 0);
    int runs = 0;
    for (std::size_t at = 0, end; (end = list.out.find('\n', at)) != std::string::npos; at = end + 1) {
        const std::string line = list.out.substr(at, end - at);
        const auto colon = line.find(": grader calc ");
        REQUIRE(colon != std::string::npos);
        const std::string args = line.substr(colon + std::string(": grader ").size());
        INFO(line);
        ++runs;
        const Run hidden = grader(args + " --json");
        REQUIRE(hidden.status == 0);
        const nlohmann::json h = nlohmann::json::parse(hidden.out);
        CHECK(h["note"].get<std::string>().find(line.substr(0, colon)) != std::string::npos);
        // What it derives is hidden (at least one quantity: the question's).
        int derived_hidden = 0;
        for (const auto& [name, value] : h.items())
            if (value == "(graded)") ++derived_hidden;
        CHECK(derived_hidden > 0);
        // One parameter changed (its first whole-number value, plus one): the same model shows everything.
        const auto dashes = args.find(" --");
        std::string changed;
        for (std::size_t p = dashes; p != std::string::npos && changed.empty(); p = args.find(" --", p + 3)) {
            const auto value_at = args.find(' ', p + 3);
            if (value_at == std::string::npos) break;
            const auto value_end = std::min(args.find(' ', value_at + 1), args.size());
            const std::string value = args.substr(value_at + 1, value_end - value_at - 1);
            if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || args.compare(p, 9, " --device") == 0)
                continue;
            const std::string candidate =
                args.substr(0, value_at + 1) + std::to_string(std::stoll(value) + 1) + args.substr(value_end);
            if (grader(candidate + " --json").status == 0) changed = candidate;
        }
        if (changed.empty()) continue;  // no whole-number parameter that may move by one
        const Run moved = grader(changed + " --json");
        INFO(changed);
        CHECK(moved.out.find("(graded)") == std::string::npos);
    }
    CHECK(runs >= 10);  // the labs declare their graded runs (lab 02 alone has several)
}

TEST_CASE("grader calc prints a derivation, a list and per-model help", "[calc][e2e]") {
    const Run text = grader("calc occupancy --threads 256 --regs 128 --smem-bytes 98304");
    CHECK(text.status == 0);
    CHECK(text.out.find("resident_blocks") != std::string::npos);
    const Run list = grader("calc --list");
    CHECK(list.status == 0);
    CHECK(list.out.find("occupancy") != std::string::npos);
    CHECK(list.out.find("tile-traffic") != std::string::npos);
    const Run help = grader("calc occupancy --help");
    CHECK(help.status == 0);
    CHECK(help.out.find("smem-bytes") != std::string::npos);
}

TEST_CASE("grader calc rejects bad parameters with one line and a non-zero exit", "[calc][e2e]") {
    for (const char* args : {"calc occupancy --threads 256 --regs 128 --smem-bytes 98304 --bogus 1",
                             "calc occupancy --threads --regs 128 --smem-bytes 98304",
                             "calc occupancy --threads -256 --regs 128 --smem-bytes 98304",
                             "calc occupancy --regs 128 --smem-bytes 98304",
                             "calc nosuchmodel",
                             "calc occupancy --threads 256 --regs 128 --smem-bytes 98304 --device Z80"}) {
        INFO(args);
        const Run r = grader(args);
        CHECK(r.status != 0);
        CHECK(r.out.rfind("grader calc: ", 0) == 0);
        CHECK(r.out.find('\n') == r.out.size() - 1);  // one line
    }
}
