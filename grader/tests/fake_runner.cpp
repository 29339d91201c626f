// A stand-in for a lab runner that misbehaves on purpose, for the grader's robustness tests.
//   grader_fake_runner --behave <ok|segv|abort|hang|hang_group|exit4|no_output|garbage|sticky|no_done|noisy|
//                                bad_plan|forged|replayed|unstarted|cut_short|invalid_once|invalid_always|progress|
//                                unfair|timed>
// Other arguments (--report-fd, --seed, --answers, --ceilings) are accepted like a real runner's. It
// speaks the real protocol through the grader's Emitter (authenticated lines); the behaviours that
// write on the channel behind the Emitter's back are what a student's code might try.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "grader/protocol.hpp"

namespace {

using gpulab::grader::Emitter;

std::FILE* out = stdout;

void hello_plan(Emitter& e, double points_each = 10) {
    e.send({{"type", "hello"}, {"protocol", gpulab::grader::kProtocolVersion}, {"mode", "code"}, {"seed", 1}});
    nlohmann::json checks = nlohmann::json::array();
    for (const char* id : {"c1", "c2"})
        checks.push_back({{"id", id}, {"title", id}, {"kind", "correctness"}, {"max_points", points_each}, {"needs_gpu", true}});
    e.send({{"type", "plan"}, {"checks", checks}});
}

nlohmann::json result(const char* id, const char* status, double points) {
    return {{"type", "result"},
            {"result",
             {{"id", id}, {"title", id}, {"kind", "correctness"}, {"status", status}, {"points", points},
              {"max_points", 10}, {"message", "fake"}}}};
}

// What code beside the runner could write: well-formed messages, without the channel's authentication.
void raw(const std::string& line) {
    std::fputs((line + "\n").c_str(), out);
    std::fflush(out);
}

// The options, like a real runner's, on its command line and (from the grader) in the parameters on the key pipe.
struct Options {
    std::string behave = "ok", only;
    bool profile = false;  // --profile: the timed behaviour sends profiler evidence
    nlohmann::json params = nlohmann::json::object();
};

Options parse(int argc, char** argv) {
    Options o;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (const auto text = gpulab::grader::received_run_params(); text && !text->empty()) {
        o.params = nlohmann::json::parse(*text);
        for (const std::string& a : o.params.value("args", std::vector<std::string>{})) args.push_back(a);
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--behave" && i + 1 < args.size()) o.behave = args[++i];
        if (args[i] == "--profile") o.profile = true;
        else if (args[i] == "--only" && i + 1 < args.size()) o.only = args[++i];
        else if (args[i] == "--report-fd" && i + 1 < args.size()) out = fdopen(std::atoi(args[++i].c_str()), "w");
    }
    return o;
}

// Both checks started and passed, then done.
int pass_both(Emitter& e) {
    for (const char* id : {"c1", "c2"}) {
        e.send({{"type", "start"}, {"id", id}});
        e.send(result(id, "pass", 10));
    }
    e.send({{"type", "done"}});
    return 0;
}

// What graded code could see of its run: its command line, its environment, and what came on the pipe.
int face(Emitter& e, int argc, char** argv, const nlohmann::json& params) {
    std::string cmdline;
    for (int i = 0; i < argc; ++i) cmdline += std::string(i ? " " : "") + argv[i];
    std::string env;
    for (char** v = environ; *v != nullptr; ++v) env += std::string(*v) + "\n";
    std::string seed;
    const std::vector<std::string> a = params.value("args", std::vector<std::string>{});
    for (std::size_t i = 0; i + 1 < a.size(); ++i)
        if (a[i] == "--seed") seed = a[i + 1];
    hello_plan(e);
    e.send({{"type", "warning"}, {"message", "cmdline=" + cmdline}});
    e.send({{"type", "warning"}, {"message", "environ=" + env}});
    e.send({{"type", "warning"}, {"message", "params_seed=" + seed}});
    return pass_both(e);
}

// c2's measurement is INVALID (on a retry too, with invalid_always).
int invalid(Emitter& e, const Options& o) {
    const bool retry = !o.only.empty();
    e.send({{"type", "hello"}, {"protocol", gpulab::grader::kProtocolVersion}, {"mode", "code"}, {"seed", 1}});
    nlohmann::json checks = nlohmann::json::array();
    for (const char* id : {"c1", "c2"})
        if (!retry || o.only.find(id) != std::string::npos)
            checks.push_back({{"id", id}, {"title", id}, {"kind", "correctness"}, {"max_points", 10}, {"needs_gpu", true}});
    e.send({{"type", "plan"}, {"checks", checks}});
    if (!retry) {
        e.send({{"type", "start"}, {"id", "c1"}});
        e.send(result("c1", "pass", 10));
    }
    e.send({{"type", "start"}, {"id", "c2"}});
    const bool invalid = o.behave == "invalid_always" || !retry;
    e.send(result("c2", invalid ? "invalid" : "pass", invalid ? 0 : 10));
    e.send({{"type", "done"}});
    return 0;
}

// c2 passes with a fairness note, as the runner writes one.
int unfair(Emitter& e) {
    hello_plan(e);
    e.send({{"type", "start"}, {"id", "c1"}});
    e.send(result("c1", "pass", 10));
    e.send({{"type", "start"}, {"id", "c2"}});
    nlohmann::json r = result("c2", "pass", 10);
    r["result"]["fairness"] = {{{"kind", "clock_throttled"},
                                {"note", "GPU clock throttled (power cap) when its timing ended"},
                                {"about", {"sw_power_cap"}}}};
    e.send(r);
    e.send({{"type", "done"}});
    return 0;
}

// Two timed performance checks as a lab's runner reports them (the report page's pictures, without a GPU): one
// whose work has FLOPs and bytes (a roofline), one with bytes alone (a bandwidth gauge), and a correctness check.
int timed(Emitter& e, bool profile) {
    e.send({{"type", "hello"}, {"protocol", gpulab::grader::kProtocolVersion}, {"mode", "code"}, {"seed", 1}});
    e.send({{"type", "plan"},
            {"checks",
             {{{"id", "c1"}, {"title", "c1"}, {"kind", "correctness"}, {"max_points", 10}, {"needs_gpu", true}},
              {{"id", "perf.gemm"}, {"title", "a GEMM against cuBLAS"}, {"kind", "performance"}, {"max_points", 10}, {"needs_gpu", true}},
              {{"id", "perf.copy"}, {"title", "a copy-bound kernel"}, {"kind", "performance"}, {"max_points", 10}, {"needs_gpu", true}}}}});
    e.send({{"type", "start"}, {"id", "c1"}});
    e.send(result("c1", "pass", 10));
    const auto timing = [](double ms) {
        return nlohmann::json{{"median_ms", ms}, {"q1_ms", ms * 0.99}, {"q3_ms", ms * 1.02}, {"min_ms", ms * 0.98},
                              {"count", 16}, {"rel_ci", 0.004}, {"converged", true}};
    };
    const auto perf = [&](const char* id, const char* status, double points, double ratio, double work_ms, double base_ms,
                          nlohmann::json work_model) {
        e.send({{"type", "start"}, {"id", id}});
        return nlohmann::json{
            {"type", "result"},
            {"result",
             {{"id", id}, {"title", id}, {"kind", "performance"}, {"status", status}, {"points", points}, {"max_points", 10},
              {"measured", std::to_string(ratio) + " x"}, {"target", "pass 0.5, full 0.9"}, {"message", "fake timing"},
              {"details",
               {{"ratio", ratio}, {"time_ms", work_ms}, {"pass_bar", 0.5}, {"full_bar", 0.9}, {"work", timing(work_ms)},
                {"baseline", timing(base_ms)}, {"work_model", work_model},
                {"baseline_alone", {{"id", "yardstick"}, {"what", "the yardstick"}, {"median_ms", base_ms}, {"timing", timing(base_ms)}}}}}}}};
    };
    // As the runner records a floor's work: its rates in the check's time (1.1e11 FLOPs over 1e8 bytes in 0.2 ms).
    e.send(perf("perf.gemm", "partial", 7.5, 0.75, 0.2, 0.15,
                {{"tflops", 550.0}, {"gbps", 500.0}, {"flop_per_byte", 1100.0}, {"tensor", true}}));
    e.send(perf("perf.copy", "pass", 10, 0.95, 0.5, 0.475, {{"gbps", 3000.0}, {"tensor", false}}));
    if (profile) {
        e.send({{"type", "profile"},
                 {"evidence",
                  {{"target", "transposes"}, {"idea", "bank conflicts per shared-memory request"},
                   {"metrics", {{{"metric", "conflicts"}, {"label", "conflicts"}, {"per", ""}},
                                {{"metric", "wavefronts"}, {"label", "wavefronts per request"}, {"per", "requests"}}}},
                   {"kernels", {{{"name", "transpose_padded"}, {"metrics", {{"conflicts", 3042}, {"wavefronts", 262144}, {"requests", 131072}}}}}},
                   {"skipped", ""}, {"seconds", 4.2}}}});
        e.send({{"type", "profile"},
                 {"evidence", {{"target", "stages"}, {"idea", "stall reasons"}, {"metrics", {{{"metric", "stall"}, {"label", "stall"}, {"per", ""}}}},
                               {"kernels", nlohmann::json::array()}, {"skipped", "ncu is not installed"}}}});
    }
    e.send({{"type", "done"}});
    return 0;
}

// A plan of 7 points a check, results as planned.
int bad_plan(Emitter& e) {
    hello_plan(e, 7);
    for (const char* id : {"c1", "c2"}) {
        e.send({{"type", "start"}, {"id", id}});
        e.send(result(id, "pass", 7));
    }
    e.send({{"type", "done"}});
    return 0;
}

// What happens once c1 has started: a crash, a hang, a forgery, or the rest of an ordinary run.
int after_start(Emitter& e, const std::string& behave) {
    if (behave == "segv") raise(SIGSEGV);
    if (behave == "abort") std::abort();
    if (behave == "exit4") std::exit(4);
    if (behave == "hang") for (;;) pause();
    if (behave == "hang_group") {
        if (fork() == 0) for (;;) pause();  // a child that would outlive a plain kill of its parent
        for (;;) pause();
    }
    if (behave == "cut_short") {  // a crash in the middle of writing a line: not tampering
        std::fputs("0123456789abcdef {\"type\":\"res", out);
        std::fflush(out);
        raise(SIGSEGV);
    }
    if (behave == "garbage") raw("this is not a protocol message");
    if (behave == "forged") {  // full marks, written straight onto the channel, then stop
        raw(R"J({"type":"result","result":{"id":"c1","title":"c1","kind":"correctness","status":"pass","points":10,"max_points":10,"message":"forged"}})J");
        raw(R"J({"type":"start","id":"c2"})J");
        raw(R"J({"type":"result","result":{"id":"c2","title":"c2","kind":"correctness","status":"pass","points":10,"max_points":10,"message":"forged"}})J");
        raw(R"J({"type":"done"})J");
        return 0;
    }
    if (behave == "sticky") {
        e.send({{"type", "result"},
                {"result",
                 {{"id", "c1"}, {"title", "first"}, {"kind", "correctness"}, {"status", "error"}, {"points", 0},
                  {"max_points", 10}, {"message", "cudaErrorIllegalAddress (an illegal memory access was encountered)"}}}});
        e.send({{"type", "fatal"}, {"reason", "the CUDA context was lost in check 'c1': cudaErrorIllegalAddress"}});
        e.send(result("c2", "not_run", 0));
        e.send({{"type", "done"}});
        return 3;
    }
    if (behave == "unstarted") {  // authenticated, but a result for a check that never started
        e.send(result("c1", "pass", 10));
        e.send(result("c2", "pass", 10));
        e.send({{"type", "done"}});
        return 0;
    }
    if (behave == "device")  // the code runner found no CUDA device
        e.send({{"type", "device"}, {"available", false}, {"reason", "no CUDA device: a test"}});
    if (behave == "progress")  // a timing loop reporting as it goes
        for (int i = 1; i <= 3; ++i) e.send({{"type", "progress"}, {"text", "timing c1 (" + std::to_string(i) + "/3 samples)"}});
    e.send(result("c1", "pass", 10));
    if (behave == "replayed") e.send(result("c1", "pass", 10));  // the same result twice
    e.send({{"type", "start"}, {"id", "c2"}});
    e.send(result("c2", "pass", 10));
    if (behave != "no_done") e.send({{"type", "done"}});
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o = parse(argc, argv);
    Emitter e(out);
    if (o.behave == "face") return face(e, argc, argv, o.params);
    if (o.behave == "no_output") return 0;
    if (o.behave == "noisy") {
        const std::string junk(4096, 'x');
        for (int i = 0; i < 512; ++i) std::fprintf(i % 2 ? stderr : stdout, "%s\n", junk.c_str());
        o.behave = "ok";
    }
    if (o.behave == "invalid_once" || o.behave == "invalid_always") return invalid(e, o);
    if (o.behave == "unfair") return unfair(e);
    if (o.behave == "timed") return timed(e, o.profile);
    if (o.behave == "bad_plan") return bad_plan(e);
    hello_plan(e);
    e.send({{"type", "start"}, {"id", "c1"}});
    return after_start(e, o.behave);
}
