// A stand-in for a lab runner that misbehaves on purpose, for the grader's robustness tests.
//   grader_fake_runner --behave <ok|segv|abort|hang|hang_group|exit4|no_output|garbage|sticky|no_done|noisy|bad_plan>
// Other arguments (--report-fd, --seed, --answers, --ceilings) are accepted like a real runner's.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::FILE* out = stdout;

void line(const std::string& s) {
    std::fputs((s + "\n").c_str(), out);
    std::fflush(out);
}

void hello_plan(double points_each = 10) {
    line(R"J({"type":"hello","protocol":1,"mode":"code","seed":1})J");
    line(std::string(R"J({"type":"plan","checks":[{"id":"c1","title":"first","kind":"correctness","max_points":)J") +
         std::to_string(points_each) + R"J(,"needs_gpu":true},{"id":"c2","title":"second","kind":"correctness","max_points":)J" +
         std::to_string(points_each) + R"J(,"needs_gpu":true}]})J");
}

void result(const char* id, const char* status, double points) {
    line(std::string(R"J({"type":"result","result":{"id":")J") + id + R"J(","title":")J" + id +
         R"J(","kind":"correctness","status":")J" + status + R"J(","points":)J" + std::to_string(points) +
         R"J(,"max_points":10,"message":"fake"}})J");
}

}  // namespace

int main(int argc, char** argv) {
    std::string behave = "ok";
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--behave") && i + 1 < argc) behave = argv[++i];
        else if (!std::strcmp(argv[i], "--report-fd") && i + 1 < argc) out = fdopen(std::atoi(argv[++i]), "w");
    }
    if (behave == "no_output") return 0;
    if (behave == "noisy") {
        std::string junk(4096, 'x');
        for (int i = 0; i < 512; ++i) std::fprintf(i % 2 ? stderr : stdout, "%s\n", junk.c_str());
        behave = "ok";
    }
    if (behave == "bad_plan") {
        hello_plan(7);
        line(R"J({"type":"start","id":"c1"})J");
        result("c1", "pass", 7);
        result("c2", "pass", 7);
        line(R"J({"type":"done"})J");
        return 0;
    }
    hello_plan();
    line(R"J({"type":"start","id":"c1"})J");
    if (behave == "segv") raise(SIGSEGV);
    if (behave == "abort") std::abort();
    if (behave == "exit4") std::exit(4);
    if (behave == "hang") for (;;) pause();
    if (behave == "hang_group") {
        if (fork() == 0) for (;;) pause();  // a child that would outlive a plain kill of its parent
        for (;;) pause();
    }
    if (behave == "garbage") line("this is not a protocol message");
    if (behave == "sticky") {
        line(R"J({"type":"result","result":{"id":"c1","title":"first","kind":"correctness","status":"error","points":0,"max_points":10,"message":"cudaErrorIllegalAddress (an illegal memory access was encountered)"}})J");
        line(R"J({"type":"fatal","reason":"the CUDA context was lost in check 'c1': cudaErrorIllegalAddress"})J");
        line(R"J({"type":"result","result":{"id":"c2","title":"second","kind":"correctness","status":"not_run","points":0,"max_points":10,"message":"not run"}})J");
        line(R"J({"type":"done"})J");
        return 3;
    }
    result("c1", "pass", 10);
    line(R"J({"type":"start","id":"c2"})J");
    result("c2", "pass", 10);
    if (behave != "no_done") line(R"J({"type":"done"})J");
    return 0;
}
