// Integration: the workspace bootstrap on the real server — a definition's
// workspace.git served by `git daemon` on 127.0.0.1 is cloned (shallow, at
// its ref) before the first turn and the agent sees the files; the next turn
// reuses the checkout (one of another URL is refused); the token is never
// on a git child's argv, in .git, the state dir or the server's log; a
// commit id is fetched by id; a clone that fails fails the turn with a
// clear, redacted message and leaves the workspace empty.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/agents_server.h"
#include "support/proc_file.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "workspace-git-token-1234";
constexpr const char* kGitToken = "git-token-canary-8d1e5c0b7a";
constexpr const char* kUrlPassword = "url-password-canary-41f0";

// Any file, whole ("" when absent): the /proc reader serves as well.
std::string readFile(const std::string& path) { return readProcFile(path); }

// Every file below @p dir, concatenated.
std::string readTree(const std::string& dir) {
  std::string all;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file()) all += readFile(e.path().string());
  return all;
}

void git(const std::string& cwd, std::vector<std::string> args) {
  sdk::SpawnOptions spawn;
  spawn.argv = {"git",
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "init.defaultBranch=main"};
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  spawn.env = {"PATH=/usr/bin:/bin", "HOME=" + cwd, "GIT_CONFIG_NOSYSTEM=1"};
  spawn.cwd = cwd;
  auto done = sdk::Subprocess::run(spawn);
  ASSERT_TRUE(done.isOk()) << done.status().message();
  ASSERT_EQ(done->exit_code, 0) << done->err;
}

int freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A bare repository `repo.git` (main: README.md; feature: two more commits
// adding feature.txt) served read-only by git daemon on 127.0.0.1.
class GitDaemon {
 public:
  GitDaemon() {
    char pattern[] = "/tmp/abx-gitd-XXXXXX";
    root_ = ::mkdtemp(pattern);
    const auto src = root_ + "/src";
    fs::create_directories(src);
    git(src, {"init", "-q"});
    std::ofstream(src + "/README.md") << "hello from the repository\n";
    git(src, {"add", "."});
    git(src, {"commit", "-qm", "one"});
    main_sha_ = readFile(src + "/.git/refs/heads/main");
    main_sha_.resize(40);
    git(src, {"checkout", "-qb", "feature"});
    std::ofstream(src + "/feature.txt") << "1\n";
    git(src, {"add", "."});
    git(src, {"commit", "-qm", "two"});
    std::ofstream(src + "/feature.txt") << "2\n";
    git(src, {"commit", "-qam", "three"});
    git(root_, {"clone", "-q", "--bare", "src", "repo.git"});
    for (int attempt = 0; attempt < 5 && !daemon_; ++attempt) start();
  }
  ~GitDaemon() {
    if (daemon_) daemon_->terminate({100ms, 100ms});
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string url() const { return "git://127.0.0.1:" + std::to_string(port_) + "/repo.git"; }
  bool ready() const { return daemon_.has_value(); }
  const std::string& mainSha() const { return main_sha_; }

 private:
  void start() {
    port_ = freeLoopbackPort();
    sdk::SpawnOptions spawn;
    spawn.argv = {
        "git",          "daemon",      "--listen=127.0.0.1",   "--port=" + std::to_string(port_),
        "--export-all", "--reuseaddr", "--base-path=" + root_, root_};
    spawn.env = {"PATH=/usr/bin:/bin", "HOME=" + root_};
    spawn.stdin_pipe = false;
    auto child = sdk::Subprocess::spawn(spawn);
    if (!child) return;
    for (int i = 0; i < 100; ++i) {
      if (int fd = connectLoopback(port_); fd >= 0) {
        ::close(fd);
        daemon_ = std::move(*child);
        return;
      }
      if (child->poll()) return;  // the port was taken meanwhile: try another
      std::this_thread::sleep_for(20ms);
    }
  }

  std::string root_;
  std::string main_sha_;
  int port_ = 0;
  std::optional<sdk::Subprocess> daemon_;
};

// The server with agents cloning from @p url; a `git` first on PATH records
// the argv of every git child (and whether it got an extraHeader) in
// {dir}/git-argv.log, then runs the real one.
ServerOptions gitServer(const std::string& url, const std::string& sha = "main") {
  const std::string agents = R"(agents:
  - name: lister
    runtime: command
    command: {argv: ["sh", "-c", "ls -A"], parser: text}
    workspace:
      path: "{dir}/work"
      git: {url: ")" + url + R"(", ref: feature, token: ")" +
                             kGitToken + R"("}
  - name: pinned
    runtime: command
    command: {argv: ["sh", "-c", "ls -A"], parser: text}
    workspace:
      path: "{dir}/pinned"
      git: {url: ")" + url + R"(", ref: ")" +
                             sha + R"(", depth: 2}
  - name: broken
    runtime: command
    command: {argv: ["sh", "-c", "ls -A"], parser: text}
    workspace:
      path: "{dir}/broken"
      git: {url: "https://someone:)" +
                             kUrlPassword + R"(@127.0.0.1:1/none.git"}
)";
  auto o = fakeAgentsServer(agents, kToken);
  o.files["git"] =
      "#!/bin/sh\n"
      "printf '%s\\n' \"$*\" >> {dir}/git-argv.log\n"
      "env | grep -q '^GIT_CONFIG_KEY_[0-9]*=http\\..*\\.extraHeader$' && echo header >> "
      "{dir}/git-argv.log\n"
      "exec /usr/bin/git \"$@\"\n";
  o.env["PATH"] = "{dir}:" + o.env["PATH"];
  return o;
}

Poco::JSON::Object::Ptr respond(const ServerProcess& s, const std::string& model) {
  auto r = http(s.port(), "POST", "/v1/responses",
                R"({"model":")" + model + R"(","input":"list your files"})", bearerJson(kToken));
  EXPECT_EQ(r.status, 200) << r.body;
  Poco::JSON::Parser parser;
  return parser.parse(r.body).extract<Poco::JSON::Object::Ptr>();
}

std::string stringify(const Poco::JSON::Object::Ptr& o) {
  std::ostringstream out;
  o->stringify(out);
  return out.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(WorkspaceGit, ClonesShallowAtTheRefBeforeTheFirstTurnAndReusesTheCheckout) {
  GitDaemon daemon;
  ASSERT_TRUE(daemon.ready());
  ServerProcess server(gitServer(daemon.url()));
  fs::permissions(server.dir() + "/git", fs::perms::owner_all);

  auto first = respond(server, "lister");
  const auto first_text = stringify(first);
  EXPECT_EQ(first->getValue<std::string>("status"), "completed") << first_text;
  EXPECT_THAT(first_text, HasSubstr("README.md"));
  EXPECT_THAT(first_text, HasSubstr("feature.txt"));
  const auto work = server.dir() + "/work";
  EXPECT_EQ(readFile(work + "/feature.txt"), "2\n");
  ASSERT_TRUE(fs::exists(work + "/.git/shallow")) << "the clone is not shallow";
  EXPECT_EQ(count(readFile(work + "/.git/shallow"), "\n"), 1u);

  auto second = respond(server, "lister");
  EXPECT_EQ(second->getValue<std::string>("status"), "completed") << stringify(second);
  EXPECT_THAT(stringify(second), HasSubstr("feature.txt"));

  const auto argv = readFile(server.dir() + "/git-argv.log");
  EXPECT_EQ(count(argv, "clone --depth=1 --single-branch --branch=feature -- " + daemon.url()), 1u)
      << argv;
  EXPECT_THAT(argv, Not(HasSubstr("header")));  // git:// is no HTTP: no header for it
  for (const auto& secret : {std::string(kGitToken)}) {
    EXPECT_THAT(argv, Not(HasSubstr(secret)));
    EXPECT_THAT(readTree(work + "/.git"), Not(HasSubstr(secret)));
    EXPECT_THAT(readTree(server.dir() + "/state"), Not(HasSubstr(secret)));
    EXPECT_THAT(first_text + stringify(second), Not(HasSubstr(secret)));
  }
  // A checkout of another repository is refused, not replaced.
  git(work, {"remote", "set-url", "origin", "git://127.0.0.1:1/other.git"});
  auto third = respond(server, "lister");
  EXPECT_EQ(third->getValue<std::string>("status"), "failed");
  EXPECT_THAT(third->getObject("error")->getValue<std::string>("message"),
              HasSubstr("holds a checkout of another repository (git://127.0.0.1:1/other.git)"));
  EXPECT_EQ(readFile(work + "/feature.txt"), "2\n");
  server.stop();
  EXPECT_THAT(server.stderrText(), Not(HasSubstr(kGitToken)));
}

TEST(WorkspaceGit, ACommitIdIsFetchedByIdAndCheckedOutDetached) {
  GitDaemon daemon;
  ASSERT_TRUE(daemon.ready());
  ServerProcess server(gitServer(daemon.url(), daemon.mainSha()));
  fs::permissions(server.dir() + "/git", fs::perms::owner_all);
  auto r = respond(server, "pinned");
  const auto text = stringify(r);
  EXPECT_EQ(r->getValue<std::string>("status"), "completed") << text;
  EXPECT_THAT(text, HasSubstr("README.md"));
  EXPECT_THAT(text, Not(HasSubstr("feature.txt")));
  EXPECT_EQ(readFile(server.dir() + "/pinned/.git/HEAD"), daemon.mainSha() + "\n");
  // workspace.git.depth: 2 is the depth fetched (and the Agent shows it).
  EXPECT_THAT(readFile(server.dir() + "/git-argv.log"),
              HasSubstr("fetch --depth=2 origin " + daemon.mainSha()));
  EXPECT_THAT(http(server.port(), "GET", "/v1/agents/pinned", "", bearerJson(kToken)).body,
              HasSubstr(R"("ref":")" + daemon.mainSha() + R"(","depth":2,)"));
}

TEST(WorkspaceGit, AFailedCloneFailsTheTurnClearlyAndRedactedAndLeavesNothingBehind) {
  GitDaemon daemon;
  ASSERT_TRUE(daemon.ready());
  ServerProcess server(gitServer(daemon.url()));
  fs::permissions(server.dir() + "/git", fs::perms::owner_all);

  for (int turn = 0; turn < 2; ++turn) {
    auto r = respond(server, "broken");
    const auto text = stringify(r);
    EXPECT_EQ(r->getValue<std::string>("status"), "failed") << text;
    const auto message = r->getObject("error")->getValue<std::string>("message");
    // The same clear failure both times: the first left no half checkout.
    EXPECT_THAT(message, HasSubstr("workspace bootstrap: cloning https://127.0.0.1:1/none.git"));
    EXPECT_THAT(message, HasSubstr("git clone exited with 128"));
    EXPECT_THAT(text, Not(HasSubstr(kUrlPassword)));
    EXPECT_TRUE(fs::is_empty(server.dir() + "/broken"));
  }
  const auto argv = readFile(server.dir() + "/git-argv.log");
  EXPECT_THAT(argv, HasSubstr("clone --depth=1 --single-branch -- https://127.0.0.1:1/none.git"));
  EXPECT_THAT(argv, HasSubstr("header"));  // the URL's credential went to a header
  EXPECT_THAT(argv, Not(HasSubstr(kUrlPassword)));
  // The server still runs turns: the other agent's clone works.
  EXPECT_EQ(respond(server, "lister")->getValue<std::string>("status"), "completed");
  server.stop();
  EXPECT_THAT(server.stderrText(), Not(HasSubstr(kUrlPassword)));
  EXPECT_THAT(readTree(server.dir() + "/state"), Not(HasSubstr(kUrlPassword)));
}

TEST(WorkspaceGit, AWorkspaceWithOtherContentIsRefusedNotOverwritten) {
  GitDaemon daemon;
  ASSERT_TRUE(daemon.ready());
  auto options = gitServer(daemon.url());
  options.files["work"] = "a file where the workspace should be\n";
  ServerProcess server(options);
  auto r = respond(server, "lister");
  EXPECT_EQ(r->getValue<std::string>("status"), "failed");
  EXPECT_THAT(r->getObject("error")->getValue<std::string>("message"),
              HasSubstr("is not a directory"));
  EXPECT_EQ(readFile(server.dir() + "/work"), "a file where the workspace should be\n");
}

}  // namespace
}  // namespace abx::testing
