// Integration: an idle server with every plugin and the opt-in groups on
// maps no library and holds no thread or child that only a request needs —
// libarchive (archives), ICU (IDN hosts), the agents' turn workers and
// sessions writer, the terminal's idle sweeper, Chromium — and each of them
// appears with its first use (docs/performance.md, "Idle footprint").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "security/security_support.h"
#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/** The server's mappings (/proc/<pid>/maps). */
std::string maps(pid_t pid) { return readFile("/proc/" + std::to_string(pid) + "/maps"); }

/** Threads of @p pid named @p name (pthread_setname_np; /proc/<pid>/task/<tid>/comm). */
int threadsNamed(pid_t pid, const std::string& name) {
  int n = 0;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task"))
    if (readFile(task.path().string() + "/comm") == name + "\n") ++n;
  return n;
}

/** The commands (comm) of the processes whose parent is @p pid. */
std::vector<std::string> children(pid_t pid) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string stat = readFile(entry.path().string() + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == pid) out.push_back(readFile(entry.path().string() + "/comm"));
  }
  return out;
}

ServerOptions everyPluginAllGroupsOn() {
  auto o = security::allPlugins(
      "endpoints:\n  browser_navigate:\n    params: {url_allow: [\"127.0.0.1\"]}\n",
      {{"ABX_SERVER_ENABLED_GROUPS", "dev_tools,browser,agents"},
       {"ABX_AGENTS_CONFIG", "{dir}/agents.yaml"},
       {"ABX_AGENTS_STATE_DIR", "{dir}/state"},
       {"ABX_AGENTS_MAX_CONCURRENT_TURNS", "3"},
       {"PATH", sourceDir() + "/fake_agents:/usr/bin:/bin"}});
  o.files["agents.yaml"] = kFakeAgentYaml;
  o.files["note.txt"] = "archived\n";
  return o;
}

TEST(IdleFootprint, LibrariesThreadsAndChildrenWaitForTheirFirstUse) {
  ServerProcess server(everyPluginAllGroupsOn());
  const pid_t pid = server.pid();
  ASSERT_EQ(http(server.port(), "GET", "/ready").status, 200);

  const std::string idle = maps(pid);
  EXPECT_THAT(idle, HasSubstr("abx_browser.so"));      // every plugin is loaded...
  EXPECT_THAT(idle, Not(HasSubstr("libarchive.so")));  // ...but not what they use later
  EXPECT_THAT(idle, Not(HasSubstr("libicuuc.so")));
  EXPECT_THAT(idle, Not(HasSubstr("libboost_filesystem")));
  EXPECT_EQ(threadsNamed(pid, "abx-agents-turn"), 0);
  EXPECT_EQ(threadsNamed(pid, "abx-agents-save"), 0);
  EXPECT_EQ(threadsNamed(pid, "abx-agents-ttl"), 0);
  EXPECT_EQ(threadsNamed(pid, "abx-pty-sweep"), 0);
  EXPECT_EQ(threadsNamed(pid, "abx-http-stream"), 0);
  EXPECT_THAT(children(pid), ::testing::IsEmpty());

  auto archive = http(server.port(), "POST", "/files/archive", R"({"paths":["note.txt"]})");
  EXPECT_EQ(archive.status, 200) << archive.body;
  EXPECT_THAT(maps(pid), HasSubstr("libarchive.so"));

  // An IDN host is mapped by ICU (UTS #46) before the URL policy refuses it.
  auto idn = http(server.port(), "POST", "/browser/navigate",
                  "{\"url\":\"http://b\xC3\xBC"
                  "cher.example/\"}");
  EXPECT_EQ(idn.status, 403) << idn.body;
  EXPECT_THAT(idn.body, HasSubstr("xn--bcher-kva.example"));
  EXPECT_THAT(maps(pid), HasSubstr("libicuuc.so"));

  auto turn = http(server.port(), "POST", "/v1/responses", R"({"model":"fake","input":"hi"})",
                   {{"Content-Type", "application/json"}});
  EXPECT_EQ(turn.status, 200) << turn.body;
  EXPECT_EQ(threadsNamed(pid, "abx-agents-turn"), 3);
  EXPECT_EQ(threadsNamed(pid, "abx-agents-save"), 1);
  EXPECT_EQ(threadsNamed(pid, "abx-agents-ttl"), 1);   // the response's session
  EXPECT_EQ(threadsNamed(pid, "abx-http-stream"), 1);  // where the answer waited
  EXPECT_THAT(children(pid), Not(::testing::Contains(HasSubstr("chrom"))));

  auto pty = http(server.port(), "POST", "/pty/sessions", "{}");
  EXPECT_EQ(pty.status, 200) << pty.body;
  EXPECT_EQ(threadsNamed(pid, "abx-pty-sweep"), 1);
}

}  // namespace
}  // namespace abx::testing
