// The runner's tool launcher: forked before the sandbox, it starts tool runs on the sandboxed runner's behalf.
#include "grader/launcher.hpp"
#include "grader/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "grader/process.hpp"
#include "grader/protocol.hpp"

namespace gpulab::grader {
namespace {

int g_socket = -1;                // the runner's end
pid_t g_launcher = -1;            // the launcher's pid (in the runner)
char g_remove_at_end[4096] = {};  // the launcher's copy of the folder to remove once the runner has ended

// The runner died while the launcher was busy (SIGTERM, from PR_SET_PDEATHSIG): what rmdir can remove of the
// folder (it is empty when the runner ended on its own, having emptied it), then out.
extern "C" void launcher_parent_gone(int) {
    if (g_remove_at_end[0] != '\0') (void)rmdir(g_remove_at_end);
    _exit(0);
}
std::mutex g_mu;                  // one request at a time

bool read_all(int fd, char* out, std::size_t n) {
    for (std::size_t got = 0; got < n;) {
        const ssize_t k = read(fd, out + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        got += static_cast<std::size_t>(k);
    }
    return true;
}

bool send_message(int fd, const std::string& text) {
    const auto n = static_cast<std::uint32_t>(text.size());
    std::string framed(4, '\0');
    for (int i = 0; i < 4; ++i) framed[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
    return write_all(fd, framed + text);
}

bool receive_message(int fd, std::string& text) {
    unsigned char len[4];
    if (!read_all(fd, reinterpret_cast<char*>(len), 4)) return false;
    const std::size_t n = std::size_t(len[0]) | std::size_t(len[1]) << 8 | std::size_t(len[2]) << 16 | std::size_t(len[3]) << 24;
    text.assign(n, '\0');
    return read_all(fd, text.data(), n);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
    return s;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// In the launcher: starts one run (its own process group, its parameters on the key pipe, output to a file), as
// the grader starts every child (spawn_process). -1 when it could not be started.
pid_t start_run(const std::vector<std::string>& argv, const std::string& handover, const std::map<std::string, std::string>& env,
                const std::string& output_file) {
    const int out = open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) return -1;
    SpawnSpec spec;
    spec.argv = argv;
    spec.env = env;
    spec.output_fd = out;
    spec.handover = handover;
    const Spawned run = spawn_process(spec);
    close(out);
    return run.pid;  // (a failed exec ends the run with status 127)
}

nlohmann::json serve(const nlohmann::json& request, const std::string& runner) {
    struct Live {
        pid_t pid = -1;
        ChannelKey key{};
        std::string dir;
        std::vector<std::string> read;
        int status = -1;
        bool running = false;
    };
    std::vector<Live> live;
    for (const nlohmann::json& r : request.at("runs")) {
        Live l;
        char dir_template[] = "/tmp/labs-tool-XXXXXX";
        if (const char* d = mkdtemp(dir_template)) l.dir = d;
        std::vector<std::string> argv;
        for (const std::string& a : r.value("tool", std::vector<std::string>{})) argv.push_back(replace_all(a, "{dir}", l.dir));
        argv.push_back(runner);
        for (const std::string& f : r.value("read", std::vector<std::string>{})) l.read.push_back(replace_all(f, "{dir}", l.dir));
        l.key = fresh_channel_key();
        const std::map<std::string, std::string> env = r.value("env", std::map<std::string, std::string>{});
        l.pid = l.dir.empty() ? -1 : start_run(argv, channel_handover(l.key, r.at("params").dump()), env, l.dir + "/output.txt");
        l.running = l.pid > 0;
        live.push_back(std::move(l));
    }
    // The runs go on together; each is waited for in turn, all against the one deadline.
    const auto deadline = deadline_in(request.value("timeout_s", 60.0));
    for (Live& l : live) {
        if (!l.running) continue;
        const Exited e = wait_process(l.pid, deadline);
        l.running = false;
        l.status = e.timed_out ? -2 : e.signal != 0 ? 128 + e.signal : e.exit_code;
    }
    nlohmann::json reply = {{"runs", nlohmann::json::array()}};
    for (const Live& l : live) {
        // The run's own record of its launches: its last "LABS-LAUNCHES <mac> <json>" line, if the MAC is the key's
        // (anything else on its stdout could be the graded code's).
        std::string output = l.dir.empty() ? "" : slurp(l.dir + "/output.txt"), kept;
        nlohmann::json launches;
        bool forged = false;
        std::istringstream lines(output);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("LABS-LAUNCHES ", 0) != 0) {
                kept += line + "\n";
                continue;
            }
            const std::string rest = line.substr(14);
            const std::string mac = rest.substr(0, 16), json = rest.size() > 17 ? rest.substr(17) : "";
            if (mac == line_mac(l.key, 0, json)) {
                try {
                    launches = nlohmann::json::parse(json);
                } catch (const std::exception&) {
                    forged = true;
                }
            } else {
                forged = true;
            }
        }
        nlohmann::json one = {{"status", l.status}, {"output", kept}};
        if (!launches.is_null()) one["launches"] = launches;
        if (forged) one["launches_forged"] = true;
        nlohmann::json files = nlohmann::json::array();
        for (const std::string& f : l.read) files.push_back(slurp(f));
        one["files"] = files;
        std::error_code ec;
        if (!l.dir.empty()) std::filesystem::remove_all(l.dir, ec);
        reply["runs"].push_back(one);
    }
    return reply;
}

}  // namespace

void ToolLauncher::start(const std::string& remove_at_end) {
    if (g_socket >= 0) return;
    if (remove_at_end.size() < sizeof g_remove_at_end)
        std::memcpy(g_remove_at_end, remove_at_end.c_str(), remove_at_end.size() + 1);
    std::error_code ec;
    const std::string runner = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) return;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        close(pair[0]);
        close(pair[1]);
        return;
    }
    if (pid == 0) {
        // The launcher: nothing of the runner's but the socket (not its report channel, which must close when the
        // runner ends); it ends with the runner: when the runner's end of the socket closes, or on SIGTERM when
        // the runner is gone while a request is served.
        struct sigaction gone {};
        gone.sa_handler = launcher_parent_gone;
        sigaction(SIGTERM, &gone, nullptr);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) launcher_parent_gone(0);
        const int devnull = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; ++fd) dup2(devnull, fd);
        for (int fd = 3; fd < 1024; ++fd)
            if (fd != pair[1]) close(fd);
        signal(SIGPIPE, SIG_IGN);
        for (std::string request; receive_message(pair[1], request);) {
            nlohmann::json reply;
            try {
                reply = serve(nlohmann::json::parse(request), runner);
            } catch (const std::exception& e) {
                reply = {{"error", e.what()}};
            }
            if (!send_message(pair[1], reply.dump())) break;
        }
        // The runner has ended: its scratch folder, whatever is left in it, with SIGTERM held off meanwhile.
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        sigprocmask(SIG_BLOCK, &term, nullptr);
        if (g_remove_at_end[0] != '\0') {
            std::error_code gone_ec;
            std::filesystem::remove_all(g_remove_at_end, gone_ec);
        }
        _exit(0);
    }
    close(pair[1]);
    g_socket = pair[0];
    g_launcher = pid;
}

void ToolLauncher::finish() {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_socket >= 0) close(g_socket);
    g_socket = -1;
    if (g_launcher <= 0) return;
    // The launcher removes the scratch folder once it sees the socket close; wait for that (bounded: a copy of the
    // socket kept open elsewhere leaves it waiting, and then it is stopped when this process ends).
    for (int i = 0; i < 500; ++i) {
        int status = 0;
        const pid_t done = waitpid(g_launcher, &status, WNOHANG);
        if (done == g_launcher || (done < 0 && errno != EINTR)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    g_launcher = -1;
}

bool ToolLauncher::available() { return g_socket >= 0; }

std::vector<ToolRunResult> ToolLauncher::run(const std::vector<ToolRun>& runs, int timeout_s) {
    std::vector<ToolRunResult> out(runs.size());
    if (g_socket < 0) return out;
    nlohmann::json request = {{"timeout_s", timeout_s}, {"runs", nlohmann::json::array()}};
    for (const ToolRun& r : runs)
        request["runs"].push_back({{"tool", r.tool}, {"params", r.params}, {"env", r.env}, {"read", r.read}});
    std::lock_guard<std::mutex> lock(g_mu);
    std::string reply_text;
    if (!send_message(g_socket, request.dump()) || !receive_message(g_socket, reply_text)) return out;
    try {
        const nlohmann::json reply = nlohmann::json::parse(reply_text);
        if (!reply.contains("runs")) return out;
        for (std::size_t i = 0; i < runs.size() && i < reply["runs"].size(); ++i) {
            const nlohmann::json& r = reply["runs"][i];
            out[i].status = r.value("status", -1);
            out[i].output = r.value("output", "");
            out[i].files = r.value("files", std::vector<std::string>{});
            if (r.contains("launches")) out[i].launches = r["launches"];
            out[i].launches_forged = r.value("launches_forged", false);
        }
    } catch (const std::exception&) {
    }
    return out;
}

}  // namespace gpulab::grader
