// `grader calc` end to end: an occupancy case, graded answers hidden, the listing, and parameter errors.
#include <array>
#include <cstdio>
#include <memory>
#include <string>
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

TEST_CASE("grader calc hides lab 02's graded answers for section 5.1.5's kernel", "[calc][e2e]") {
    const Run r = grader("calc occupancy --device H100 --threads 256 --regs 128 --smem-bytes 98304 --json");
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["resident_blocks"].get<std::string>().find("graded: lab 02 section_5_1_5.resident_blocks") != std::string::npos);
    CHECK(j["occupancy"].get<std::string>().find("graded: lab 02") != std::string::npos);
    CHECK(j["blocks_by_limit"] == 32);  // a device constant, not a question
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

TEST_CASE("grader calc hides a number only from a question in the same unit", "[calc][e2e]") {
    // 20 resident warps here; lab 01 asks for a time of 20 µs (Example 5-2): a count of warps is not that answer.
    const Run r = grader("calc occupancy --device H100 --threads 128 --regs 96 --smem-bytes 20480 --json");
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["resident_warps"] == 20);
}
