// abx_soak_bench: the soak (docs/reliability.md, "Soak"). One real server
// with the process, terminal, files and agents plugins (the fake agent) and
// a policy file takes, in four equal quarters, a mix of agent turns
// (POST /v1/responses, streamed and not), POST /shell calls, PTY sessions
// opened over REST and WebSocket and closed, uploads and downloads, and
// policy reloads (SIGHUP). The server's RSS, open file descriptors, threads
// and child processes are read from /proc at the end of the first quarter
// and at the end; each must be flat (within 10 %, or a small absolute slack
// for small counts) and no zombie child may remain.
// ABX_SOAK=full runs the full counts; otherwise a tenth of them (the CTest
// default). Exit status: 0 when flat, 1 when not or when an operation fails.
#include <dirent.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "abx/sdk/text_codecs.h"
#include "plugins/terminal/terminal_test_client.h"
#include "support/agents_server.h"
#include "support/proc_file.h"
#include "support/server_process.h"

namespace {

using namespace abx::testing;
using Clock = std::chrono::steady_clock;

const std::string kToken = "soak-token-5e1d";
const auto kAuth = bearerJson(kToken);

struct Counts {
  int turns, shells, ptys, uploads, downloads, reloads;
};
constexpr Counts kFull{1000, 2000, 500, 200, 200, 100};
constexpr int kShortDivisor = 10;

// What /proc says about the server.
struct Sample {
  long rss_kib = 0;
  int fds = 0, threads = 0, children = 0, zombies = 0;
};

long statusField(const std::string& status, const std::string& name) {
  const auto at = status.find("\n" + name + ":");
  return at == std::string::npos ? -1 : std::stol(status.substr(at + name.size() + 2));
}

int countEntries(const std::string& dir) {
  int n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++n;
    ::closedir(d);
  }
  return n;
}

Sample sample(pid_t pid) {
  Sample s;
  const auto status = readProcFile("/proc/" + std::to_string(pid) + "/status");
  s.rss_kib = statusField(status, "VmRSS");
  s.threads = static_cast<int>(statusField(status, "Threads"));
  s.fds = countEntries("/proc/" + std::to_string(pid) + "/fd");
  DIR* proc = ::opendir("/proc");
  while (const dirent* e = proc ? ::readdir(proc) : nullptr) {
    const std::string name = e->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto stat = procStatText(std::stoi(name));
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != pid) continue;
    ++s.children;
    if (state == 'Z') ++s.zombies;
  }
  if (proc) ::closedir(proc);
  return s;
}

// The last operation's children (a PTY's shell, a turn's CLI) and
// descriptors (a PTY, a WebSocket waiting for its close frame) end
// asynchronously after its answer: both samples wait up to 5 s for no child
// and the same fd count 0.5 s apart.
Sample settledSample(pid_t pid) {
  auto s = sample(pid);
  for (auto until = Clock::now() + std::chrono::seconds(5); Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto next = sample(pid);
    const bool settled = next.children == 0 && next.fds == s.fds;
    s = next;
    if (settled) break;
  }
  return s;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

class Soak {
 public:
  explicit Soak(ServerProcess& server) : server_(server), port_(server.port()) {}

  void turn(int i) {
    // Streamed and waited-for answers alternate; store:false forgets each
    // turn at its end, so what stays is the sessions' retention.
    const bool stream = i % 2 == 0;
    auto r = http(port_, "POST", "/v1/responses",
                  std::string(R"({"model":"fake","input":"soak turn","store":false,"stream":)") +
                      (stream ? "true}" : "false}"),
                  kAuth);
    require(r.status == 200, "turn answered " + std::to_string(r.status) + ": " + r.body);
    require(r.body.find(stream ? "event: response.completed" : R"("status":"completed")") !=
                std::string::npos,
            "turn did not complete: " + r.body.substr(0, 300));
  }

  void shell(int) {
    auto r = http(port_, "POST", "/shell", R"({"command":"true"})", kAuth);
    require(r.status == 200 && r.body.find(R"("exit_code":0)") != std::string::npos,
            "/shell answered " + std::to_string(r.status) + ": " + r.body);
  }

  void pty(int i) {
    // Half the shells end by `exit` typed into the WebSocket, half by DELETE.
    auto created = pty_support::create(server_, R"({"shell":"/bin/sh"})", kAuth);
    auto ws = pty_support::attach(created, kAuth);
    // Quoted, so the terminal's echo of the line does not hold the needle.
    const std::string n = std::to_string(i);
    ws->input("echo \"soak\"\"" + n + "\"\n");
    require(ws->waitOutput("soak" + n + "\r\n"), "no PTY output");
    if (i % 2 == 0) {
      ws->input("exit\n");
    } else {
      auto r = http(port_, "DELETE", "/pty/sessions/" + created.id, "", kAuth);
      require(r.status == 200 || r.status == 204, "DELETE /pty answered " + r.body);
    }
    require(ws->waitClose() == 1000, "the PTY session did not end with a close 1000");
  }

  void upload(int i) {
    // Sizes from 1 KiB to 256 KiB over eight files rewritten in turn.
    std::string bytes(std::size_t{1024} << (i % 9), '\0');
    for (auto& b : bytes) b = static_cast<char>(rng_());
    auto r = http(port_, "POST", "/upload",
                  R"({"path":")" + path(i) + R"(","content_base64":")" +
                      abx::sdk::base64Encode(bytes) + "\"}",
                  kAuth);
    require(r.status == 200, "upload answered " + std::to_string(r.status) + ": " + r.body);
    files_[static_cast<std::size_t>(i % 8)] = abx::sdk::base64Encode(bytes);
  }

  void download(int i) {
    if (files_[static_cast<std::size_t>(i % 8)].empty()) upload(i);
    auto r = http(port_, "GET", "/download?path=" + path(i), "", kAuth);
    require(r.status == 200 &&
                r.body.find(files_[static_cast<std::size_t>(i % 8)]) != std::string::npos,
            "download answered " + std::to_string(r.status) + " without the file's bytes");
  }

  void reload(int i) {
    // Two valid policies in turn; each reload must raise the revision.
    std::ofstream(server_.dir() + "/policy.yaml") << policyText(i % 2 == 0);
    ::kill(server_.pid(), SIGHUP);
    const std::string want = R"("revision":)" + std::to_string(i + 2);
    for (auto until = Clock::now() + std::chrono::seconds(10); Clock::now() < until;) {
      if (http(port_, "GET", "/capabilities", "", kAuth).body.find(want) != std::string::npos)
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    throw std::runtime_error("reload " + std::to_string(i) + " did not take effect");
  }

  static std::string policyText(bool search_off) {
    return std::string("endpoints:\n  files_search: {enabled: ") + (search_off ? "false" : "true") +
           "}\n";
  }

 private:
  std::string path(int i) const {
    return server_.dir() + "/files/f" + std::to_string(i % 8) + ".bin";
  }

  ServerProcess& server_;
  const int port_;
  std::mt19937 rng_{42};
  std::array<std::string, 8> files_;
};

// One quarter: each kind's share, interleaved in 100 slices.
void runQuarter(Soak& soak, const Counts& total, int quarter) {
  using Op = void (Soak::*)(int);
  const std::array<std::pair<int, Op>, 6> kinds{{{total.turns, &Soak::turn},
                                                 {total.shells, &Soak::shell},
                                                 {total.ptys, &Soak::pty},
                                                 {total.uploads, &Soak::upload},
                                                 {total.downloads, &Soak::download},
                                                 {total.reloads, &Soak::reload}}};
  constexpr int kSlices = 100;
  for (int slice = 0; slice < kSlices; ++slice)
    for (const auto& [count, op] : kinds) {
      const int begin = count * quarter / 4, end = count * (quarter + 1) / 4;
      const int from = begin + (end - begin) * slice / kSlices;
      const int to = begin + (end - begin) * (slice + 1) / kSlices;
      for (int i = from; i < to; ++i) (soak.*op)(i);
    }
}

struct Check {
  const char* name;
  double first, last, slack;  // slack: the absolute growth allowed besides 10 %
  bool flat() const { return last <= first * 1.10 + slack; }
};

bool report(const Sample& q1, const Sample& end, const Counts& c, double seconds, bool full) {
  // Slack for small counts: the HTTP worker pool and the agents' save and
  // retention threads start on first use and may add a thread or two after
  // the first quarter; a sampled fd count may catch one connection the
  // loop has not closed yet. Children and zombies get none.
  const std::vector<Check> checks = {
      {"RSS (MiB)", static_cast<double>(q1.rss_kib) / 1024, static_cast<double>(end.rss_kib) / 1024,
       0},
      {"open fds", static_cast<double>(q1.fds), static_cast<double>(end.fds), 2},
      {"threads", static_cast<double>(q1.threads), static_cast<double>(end.threads), 2},
      {"child processes", static_cast<double>(q1.children), static_cast<double>(end.children), 0},
  };
  bool ok = end.zombies == 0;
  std::printf("\n%-16s %12s %12s %9s %s\n", "server", "after Q1", "at the end", "change", "");
  for (const auto& k : checks) {
    const double change = k.first > 0 ? (k.last - k.first) * 100 / k.first : 0;
    std::printf("%-16s %12.1f %12.1f %8.1f%% %s\n", k.name, k.first, k.last, change,
                k.flat() ? "flat" : "GREW");
    ok = ok && k.flat();
  }
  std::printf("%-16s %12d %12d\n", "zombie children", q1.zombies, end.zombies);
  std::printf(
      "\nsoak %s: %d turns, %d /shell, %d PTY sessions, %d uploads, %d downloads, %d reloads "
      "in %.1f s on %u CPUs: %s\n",
      full ? "full" : "short", c.turns, c.shells, c.ptys, c.uploads, c.downloads, c.reloads,
      seconds, std::thread::hardware_concurrency(), ok ? "flat" : "NOT FLAT");
  return ok;
}

ServerOptions soakServer() {
  ServerOptions o = fakeAgentsServer(R"(agents:
  - name: fake
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    workspace: {path: "{dir}/work"}
    env: {FAKE_SCENARIO: notool}
)",
                                     kToken);
  *o.manifest +=
      "  - name: process\n    file: abx_process.so\n    id: abx.process\n"
      "  - name: terminal\n    file: abx_terminal.so\n    id: abx.terminal\n"
      "  - name: files\n    file: abx_files.so\n";
  o.files["policy.yaml"] = Soak::policyText(false);
  o.args = {"--pty-port", "0", "--policy", "{dir}/policy.yaml"};
  o.env["FAKE_AGENT_STATE_DIR"] = "{dir}/fake-state";
  // Each response opens a session; retention keeps the newest 16, so the
  // sessions the server holds are at their steady count within the first
  // quarter even of the short run (at the default 200 they would still be
  // growing there, by design rather than by a leak).
  o.env["ABX_AGENTS_MAX_SESSIONS"] = "16";
  return o;
}

}  // namespace

int main() {
  const char* mode = std::getenv("ABX_SOAK");
  const bool full = mode && std::string(mode) == "full";
  Counts c = kFull;
  // ABX_SOAK_ONLY=turns,ptys,...: only those kinds (to tell which one grows).
  const char* only = std::getenv("ABX_SOAK_ONLY");
  const std::array<std::pair<const char*, int*>, 6> names{{{"turns", &c.turns},
                                                           {"shells", &c.shells},
                                                           {"ptys", &c.ptys},
                                                           {"uploads", &c.uploads},
                                                           {"downloads", &c.downloads},
                                                           {"reloads", &c.reloads}}};
  for (const auto& [name, n] : names) {
    if (!full) *n /= kShortDivisor;
    if (only && std::string(",").append(only).append(",").find(std::string(",") + name + ",") ==
                    std::string::npos)
      *n = 0;
  }
  try {
    ServerProcess server(soakServer());
    Soak soak(server);
    const auto began = Clock::now();
    Sample q1;
    for (int quarter = 0; quarter < 4; ++quarter) {
      runQuarter(soak, c, quarter);
      if (quarter == 0) q1 = settledSample(server.pid());
      const Sample now = quarter == 0 ? q1 : sample(server.pid());
      std::fprintf(stderr,
                   "[soak] quarter %d done after %.1f s: RSS %.1f MiB, %d fds, %d threads\n",
                   quarter + 1, std::chrono::duration<double>(Clock::now() - began).count(),
                   static_cast<double>(now.rss_kib) / 1024, now.fds, now.threads);
    }
    const Sample end = settledSample(server.pid());
    const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
    return report(q1, end, c, seconds, full) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[soak] FAILED: %s\n", e.what());
    return 1;
  }
}
