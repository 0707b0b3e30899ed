// --child-user against the real binary (the tests run as root): every kind
// of child the server starts runs as the unprivileged user with its own
// HOME, and from there cannot read the server's environment, memory or
// state.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "security/security_support.h"

namespace abx::testing::security {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kToken = "child-user-token-0b9e77";
const Headers kAuth = {{"X-Access-Token", kToken}};

class SecurityChildUser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "--child-user needs a root server";
    nobody_ = ::getpwnam("nobody");
    ASSERT_NE(nobody_, nullptr);
    auto options = allPlugins({},
                              {{"ABX_SERVER_TOKEN", kToken},
                               {"ABX_SERVER_ENABLED_GROUPS", "dev_tools,agents"},
                               {"ABX_SERVER_STATE_DIR", "{dir}/state"},
                               {"ABX_AGENTS_CONFIG", "{dir}/agents.yaml"},
                               // Nothing under /root, which the child user cannot enter.
                               {"PATH", "/usr/local/bin:/usr/bin:/bin"}},
                              {"--child-user", "nobody", "--pty-port", "0"});
    options.files["agents.yaml"] =
        "agents:\n  - name: whoami\n    runtime: command\n    command:\n"
        "      argv: ['/bin/sh', '-c', 'cat >/dev/null; id -u; echo home=$HOME']\n"
        "      parser: text\n";
    server_.emplace(options);
    // The base dir is the children's working directory.
    std::filesystem::permissions(server_->dir(), std::filesystem::perms::all);
  }

  std::string shell(const std::string& command) {
    auto r = http(server_->port(), "POST", "/shell",
                  R"({"command":["/bin/sh","-c",)" + sdk::jsonQuote(command) + "]}", kAuth);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? parseObject(r.body)->getValue<std::string>("stdout") +
                                 parseObject(r.body)->getValue<std::string>("stderr")
                           : std::string();
  }

  passwd* nobody_ = nullptr;
  std::optional<ServerProcess> server_;
};

TEST_F(SecurityChildUser, ShellRunsAsTheChildUserWithItsHome) {
  auto out = shell("id -u; echo home=$HOME user=$USER");
  EXPECT_THAT(out, HasSubstr(std::to_string(nobody_->pw_uid) + "\n"));
  EXPECT_THAT(out, HasSubstr("home=" + std::string(nobody_->pw_dir) + " user=nobody"));
}

TEST_F(SecurityChildUser, ChildCannotReadTheServersProcessOrState) {
  auto out = shell(
      "cat /proc/$PPID/environ >/dev/null 2>&1 && echo ENVIRON-READ; "
      "head -c1 /proc/$PPID/maps >/dev/null 2>&1 && echo MAPS-READ; "
      "ls " +
      server_->dir() +
      "/state >/dev/null 2>&1 && echo STATE-LISTED; "
      "kill -0 $PPID 2>/dev/null && echo SIGNALLED; true");
  EXPECT_THAT(out, Not(HasSubstr("ENVIRON-READ")));
  EXPECT_THAT(out, Not(HasSubstr("MAPS-READ")));
  EXPECT_THAT(out, Not(HasSubstr("STATE-LISTED")));
  EXPECT_THAT(out, Not(HasSubstr("SIGNALLED")));
}

TEST_F(SecurityChildUser, BackgroundProcessesCodeRunsAndAgentsToo) {
  auto started = http(server_->port(), "POST", "/process/start",
                      R"({"command":["/bin/sh","-c","id -u; sleep 0.2"]})", kAuth);
  ASSERT_EQ(started.status, 200) << started.body;
  auto pid = parseObject(started.body)->getValue<int>("pid");
  std::string output;
  for (int i = 0; i < 50 && output.find('\n') == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    auto o = http(server_->port(), "GET", "/process/" + std::to_string(pid) + "/output", "", kAuth);
    if (o.status == 200) output = o.body;
  }
  EXPECT_THAT(output, HasSubstr(std::to_string(nobody_->pw_uid)));

  auto code =
      http(server_->port(), "POST", "/code/run",
           R"json({"language":"python","code":"import os; print(os.getuid())"})json", kAuth);
  ASSERT_EQ(code.status, 200) << code.body;
  EXPECT_THAT(code.body, HasSubstr(std::to_string(nobody_->pw_uid)));

  auto turn = http(server_->port(), "POST", "/v1/responses", R"({"model":"whoami","input":"x"})",
                   {{"Authorization", "Bearer " + kToken}, {"Content-Type", "application/json"}});
  ASSERT_EQ(turn.status, 200) << turn.body;
  EXPECT_THAT(turn.body, HasSubstr(std::to_string(nobody_->pw_uid)));
  EXPECT_THAT(turn.body, HasSubstr("home=" + std::string(nobody_->pw_dir)));
}

TEST_F(SecurityChildUser, TerminalsToo) {
  auto r = http(server_->port(), "POST", "/pty/sessions", R"({"shell":"/bin/sh"})", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  auto pid = parseObject(r.body)->getValue<int>("pid");
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line, uid_line;
  while (std::getline(status, line))
    if (line.starts_with("Uid:")) uid_line = line;
  EXPECT_THAT(uid_line, HasSubstr("\t" + std::to_string(nobody_->pw_uid) + "\t"));
}

TEST_F(SecurityChildUser, UploadsAndNewDirectoriesAreTheChildUsers) {
  auto up = http(server_->port(), "POST", "/upload",
                 R"({"path":"made/by/api.txt","content_base64":"aGk="})", kAuth);
  ASSERT_EQ(up.status, 200) << up.body;
  for (const char* path : {"/made", "/made/by", "/made/by/api.txt"}) {
    struct stat st {};
    ASSERT_EQ(::stat((server_->dir() + path).c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_uid, nobody_->pw_uid) << path;
  }
  // So a child can change what the API wrote.
  EXPECT_THAT(shell("echo more >> made/by/api.txt && echo APPENDED"), HasSubstr("APPENDED"));
}

/** The uids of the server's direct children whose command line mentions @p what. */
std::vector<std::string> childUids(pid_t server, const std::string& what) {
  std::vector<std::string> uids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream status(entry.path() / "status");
    std::string line, ppid, uid;
    while (std::getline(status, line)) {
      if (line.starts_with("PPid:")) ppid = line.substr(6);
      if (line.starts_with("Uid:")) uid = line.substr(5, line.find('\t', 5) - 5);
    }
    std::ifstream cmd(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), {});
    if (ppid == std::to_string(server) && cmdline.find(what) != std::string::npos)
      uids.push_back(uid);
  }
  return uids;
}

TEST_F(SecurityChildUser, ChromiumToo) {
  server_.reset();
  auto options = allPlugins({},
                            {{"ABX_SERVER_TOKEN", kToken},
                             {"ABX_SERVER_ENABLED_GROUPS", "browser"},
                             {"PATH", "/usr/local/bin:/usr/bin:/bin"}},
                            {"--child-user", "nobody"});
  server_.emplace(options);
  auto r = http(server_->port(), "POST", "/browser/navigate", R"({"url":"about:blank"})", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  auto uids = childUids(server_->pid(), "chromium");
  ASSERT_FALSE(uids.empty());
  for (const auto& uid : uids) EXPECT_EQ(uid, std::to_string(nobody_->pw_uid));
}

TEST(SecurityChildUserStart, RefusesRootUnknownUsersAndNonRootServers) {
  auto root = allPlugins({}, {}, {"--child-user", "root"});
  root.expect_ready = false;
  ServerProcess as_root(root);
  EXPECT_EQ(as_root.waitExit(10s), 2);
  EXPECT_THAT(as_root.stderrText(), HasSubstr("--child-user"));

  auto unknown = allPlugins({}, {}, {"--child-user", "no-such-user-71"});
  unknown.expect_ready = false;
  ServerProcess as_unknown(unknown);
  EXPECT_EQ(as_unknown.waitExit(10s), 2);
  EXPECT_THAT(as_unknown.stderrText(), HasSubstr("does not exist"));
}

}  // namespace
}  // namespace abx::testing::security
