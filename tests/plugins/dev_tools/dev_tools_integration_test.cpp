// Integration: the dev_tools plugin in the real server over real HTTP, on a
// real temporary git repository holding a rename, untracked files, a name
// with a space and one with a newline: every route and error status (group
// off by default, 400 "..", 403 outside the boundary, 400 GitError, 408 at
// the timeout, 500 when git or a runtime is missing), the 1 MB diff cap, and
// the policy's `languages`.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

const std::string kManifest =
    "plugins:\n  - name: dev_tools\n    file: abx_dev_tools.so\n    id: abx.dev_tools\n";

ServerOptions options(const std::string& policy = {}, bool enabled = true) {
  ServerOptions o;
  o.manifest = kManifest;
  if (!policy.empty()) {
    o.files["policy.yaml"] = policy;
    o.args = {"--policy", "{dir}/policy.yaml"};
  }
  if (enabled) o.env["ABX_SERVER_ENABLED_GROUPS"] = "dev_tools";
  return o;
}

Poco::JSON::Object::Ptr object(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

/** Runs @p script with bash in @p dir; fails the test on a non-zero exit. */
void sh(const std::string& dir, const std::string& script) {
  sdk::SpawnOptions spawn;
  spawn.argv = {"bash", "-ec", script};
  spawn.env = sdk::Subprocess::inheritEnv({"PATH", "HOME"});
  for (const char* v : {"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
                        "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"})
    spawn.env.emplace_back(v);
  spawn.cwd = dir;
  spawn.stdin_pipe = false;
  auto done = sdk::Subprocess::run(spawn);
  ASSERT_TRUE(done) << done.status().message();
  ASSERT_EQ(done->exit_code, 0) << script << "\n" << done->out << done->err;
}

/**
 * <base>/repo: committed a.txt, old name.txt, gone.txt; then a.txt
 * modified, "old name.txt" renamed to "new name.txt" (staged), gone.txt
 * deleted, added.txt staged, and untracked "with space.txt" and
 * "line\nbreak.txt".
 */
std::string makeRepo(const ServerProcess& server) {
  const std::string repo = server.dir() + "/repo";
  std::filesystem::create_directory(repo);
  sh(repo,
     "git init -q -b main . && printf 'one\\ntwo\\n' > a.txt && echo old > 'old name.txt' && "
     "echo bye > gone.txt && git add -A && git commit -qm init && "
     "printf 'one\\ntwo\\nthree\\n' > a.txt && git mv 'old name.txt' 'new name.txt' && "
     "rm gone.txt && echo new > added.txt && git add added.txt && echo s > 'with space.txt' && "
     "echo n > $'line\\nbreak.txt'");
  return repo;
}

std::map<std::string, std::string> statuses(const Poco::JSON::Object::Ptr& body) {
  std::map<std::string, std::string> out;
  auto files = body->getArray("files");
  for (std::size_t i = 0; i < files->size(); ++i) {
    auto f = files->getObject(static_cast<unsigned>(i));
    out[f->getValue<std::string>("path")] = f->getValue<std::string>("status");
  }
  return out;
}

TEST(DevTools, OffUnlessTurnedOn) {
  ServerProcess server(options({}, false));
  for (auto [method, target] :
       {std::pair{"POST", "/code/run"}, {"GET", "/git/status"}, {"GET", "/git/diff"}}) {
    auto r = http(server.port(), method, target, method == std::string("POST") ? "{}" : "");
    EXPECT_EQ(r.status, 404) << target;
    EXPECT_THAT(r.body, HasSubstr("endpoint_disabled")) << target;
    EXPECT_THAT(r.body, HasSubstr("default:opt-in:dev_tools")) << target;
  }
  auto caps = object(http(server.port(), "GET", "/capabilities").body);
  EXPECT_FALSE(caps->getObject("groups")->getValue<bool>("dev_tools"));
}

TEST(DevToolsCode, RunsEachLanguage) {
  ServerProcess server(options());
  auto python = http(server.port(), "POST", "/code/run",
                     R"J({"language":"python","code":"import sys; print('hello'); sys.exit(2)"})J");
  ASSERT_EQ(python.status, 200) << python.body;
  auto p = object(python.body);
  EXPECT_EQ(p->getValue<std::string>("stdout"), "hello\n");
  EXPECT_EQ(p->getValue<int>("exit_code"), 2);
  EXPECT_EQ(p->getValue<std::string>("language"), "python");
  EXPECT_GT(p->getValue<double>("execution_time_ms"), 0.0);
  // The default language is python; cwd is the base directory.
  auto cwd = object(
      http(server.port(), "POST", "/code/run", R"J({"code":"import os; print(os.getcwd())"})J")
          .body);
  EXPECT_EQ(cwd->getValue<std::string>("stdout"), server.dir() + "\n");
  auto node = object(
      http(server.port(), "POST", "/code/run", R"J({"language":"node","code":"console.log(1+1)"})J")
          .body);
  EXPECT_EQ(node->getValue<std::string>("stdout"), "2\n");
  auto bash = object(http(server.port(), "POST", "/code/run",
                          R"J({"language":"bash","code":"echo out; echo err >&2"})J")
                         .body);
  EXPECT_EQ(bash->getValue<std::string>("stdout"), "out\n");
  EXPECT_EQ(bash->getValue<std::string>("stderr"), "err\n");
  // The server's own secrets never reach the code.
  auto secrets = object(http(server.port(), "POST", "/code/run",
                             R"J({"language":"bash","code":"env | grep -c ^ABX_SERVER_ || true"})J")
                            .body);
  EXPECT_EQ(secrets->getValue<std::string>("stdout"), "0\n");
}

TEST(DevToolsCode, ErrorsAndTimeout) {
  ServerProcess server(options());
  auto slow = http(server.port(), "POST", "/code/run",
                   R"J({"language":"bash","code":"sleep 10","timeout":0.5})J");
  EXPECT_EQ(slow.status, 408) << slow.body;
  EXPECT_EQ(object(slow.body)->getValue<std::string>("type"), "TimeoutError");
  auto ruby = http(server.port(), "POST", "/code/run", R"J({"language":"ruby","code":"1"})J");
  EXPECT_EQ(ruby.status, 400);
  EXPECT_EQ(http(server.port(), "POST", "/code/run", R"J({"language":"bash"})J").status, 400);
  auto outside = http(server.port(), "POST", "/code/run", R"J({"code":"1","cwd":"/etc"})J");
  EXPECT_EQ(outside.status, 403);
  EXPECT_THAT(outside.body, HasSubstr("path_not_allowed"));
}

TEST(DevToolsCode, PolicyLanguagesAndLimits) {
  ServerProcess server(
      options("endpoints:\n  code_run:\n    params: {languages: [bash]}\n"
              "    limits: {max_output_bytes: 64, timeout_seconds: 1}\n"));
  auto python = http(server.port(), "POST", "/code/run", R"J({"code":"print(1)"})J");
  EXPECT_EQ(python.status, 403) << python.body;
  EXPECT_THAT(python.body, HasSubstr("language_not_allowed"));
  auto capped = object(http(server.port(), "POST", "/code/run",
                            R"J({"language":"bash","code":"yes | head -c 100000"})J")
                           .body);
  EXPECT_TRUE(capped->getValue<bool>("truncated"));
  EXPECT_EQ(capped->getValue<std::string>("stdout").size(), 64u);
  // The body cannot ask for more time than the policy gives.
  auto slow = http(server.port(), "POST", "/code/run",
                   R"J({"language":"bash","code":"sleep 5","timeout":30})J");
  EXPECT_EQ(slow.status, 408);
}

TEST(DevToolsCode, MissingRuntimeAndGitAre500) {
  // A PATH with bash only: no python3, no git.
  char tmpl[] = "/tmp/abx-devtools-bin-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string bin = tmpl;
  std::filesystem::create_symlink("/bin/bash", bin + "/bash");
  ServerOptions o = options();
  o.env["PATH"] = bin;
  ServerProcess server(o);
  auto python = http(server.port(), "POST", "/code/run", R"J({"code":"print(1)"})J");
  EXPECT_EQ(python.status, 500) << python.body;
  EXPECT_EQ(object(python.body)->getValue<std::string>("type"), "FileNotFoundError");
  auto status = http(server.port(), "GET", "/git/status");
  EXPECT_EQ(status.status, 500) << status.body;
  EXPECT_EQ(object(status.body)->getValue<std::string>("type"), "FileNotFoundError");
  std::filesystem::remove_all(bin);
}

TEST(DevToolsGit, StatusOfARealRepository) {
  ServerProcess server(options());
  makeRepo(server);
  auto r = http(server.port(), "GET", "/git/status?path=repo");
  ASSERT_EQ(r.status, 200) << r.body;
  auto body = object(r.body);
  EXPECT_EQ(body->getValue<std::string>("branch"), "main");
  EXPECT_FALSE(body->getValue<bool>("clean"));
  const std::map<std::string, std::string> expected = {
      {"a.txt", "modified"},  {"new name.txt", "renamed"},     {"gone.txt", "deleted"},
      {"added.txt", "added"}, {"with space.txt", "untracked"}, {"line\nbreak.txt", "untracked"}};
  EXPECT_EQ(statuses(body), expected);
  auto files = body->getArray("files");
  for (std::size_t i = 0; i < files->size(); ++i) {
    auto f = files->getObject(static_cast<unsigned>(i));
    if (f->getValue<std::string>("path") == "new name.txt") {
      EXPECT_EQ(f->getValue<std::string>("original_path"), "old name.txt");
    }
  }
  // Clean after a commit of everything.
  sh(server.dir() + "/repo", "git add -A && git commit -qm all");
  auto clean = object(http(server.port(), "GET", "/git/status?path=repo").body);
  EXPECT_TRUE(clean->getValue<bool>("clean"));
  EXPECT_EQ(clean->getArray("files")->size(), 0u);
}

TEST(DevToolsGit, StatusErrors) {
  ServerProcess server(options("endpoints:\n  git_status:\n    limits: {timeout_seconds: 0.5}\n"));
  makeRepo(server);
  auto dotdot = http(server.port(), "GET", "/git/status?path=repo/../repo");
  EXPECT_EQ(dotdot.status, 400) << dotdot.body;
  auto outside = http(server.port(), "GET", "/git/status?path=/etc");
  EXPECT_EQ(outside.status, 403) << outside.body;
  std::filesystem::create_directory(server.dir() + "/plain");
  auto not_repo = http(server.port(), "GET", "/git/status?path=plain");
  EXPECT_EQ(not_repo.status, 400) << not_repo.body;
  EXPECT_EQ(object(not_repo.body)->getValue<std::string>("type"), "GitError");
  EXPECT_THAT(object(not_repo.body)->getValue<std::string>("error"), HasSubstr("not a git"));
  EXPECT_EQ(http(server.port(), "GET", "/git/status?path=missing").status, 400);
  // An index that never finishes reading (a FIFO) holds git status past the
  // policy's timeout (a slow fsmonitor hook would not: none ever runs).
  sh(server.dir() + "/repo", "rm .git/index && mkfifo .git/index");
  auto slow = http(server.port(), "GET", "/git/status?path=repo");
  EXPECT_EQ(slow.status, 408) << slow.body;
  EXPECT_EQ(object(slow.body)->getValue<std::string>("type"), "TimeoutError");
}

TEST(DevToolsGit, DiffTextStatsStagedAndOneFile) {
  ServerProcess server(options());
  const std::string repo = makeRepo(server);
  auto r = http(server.port(), "GET", "/git/diff?path=repo");
  ASSERT_EQ(r.status, 200) << r.body;
  auto body = object(r.body);
  const auto diff = body->getValue<std::string>("diff");
  EXPECT_THAT(diff, HasSubstr("diff --git a/a.txt b/a.txt"));
  EXPECT_THAT(diff, HasSubstr("+three"));
  EXPECT_FALSE(body->getValue<bool>("truncated"));
  auto stats = body->getObject("stats");
  EXPECT_EQ(stats->getValue<int>("files_changed"), 2);  // a.txt, gone.txt (work tree)
  EXPECT_EQ(stats->getValue<int>("insertions"), 1);
  EXPECT_EQ(stats->getValue<int>("deletions"), 1);

  auto staged = object(http(server.port(), "GET", "/git/diff?path=repo&staged=true").body);
  auto sstats = staged->getObject("stats");
  EXPECT_EQ(sstats->getValue<int>("files_changed"), 2);  // added.txt, the rename
  EXPECT_EQ(sstats->getValue<int>("insertions"), 1);
  bool saw_rename = false;
  auto files = staged->getArray("files");
  for (std::size_t i = 0; i < files->size(); ++i) {
    auto f = files->getObject(static_cast<unsigned>(i));
    if (f->getValue<std::string>("path") == "new name.txt") {
      saw_rename = true;
      EXPECT_EQ(f->getValue<std::string>("original_path"), "old name.txt");
    }
  }
  EXPECT_TRUE(saw_rename);

  // A file as `path`: only that file.
  auto one = object(http(server.port(), "GET", "/git/diff?path=repo/a.txt").body);
  EXPECT_EQ(one->getObject("stats")->getValue<int>("files_changed"), 1);
  EXPECT_THAT(one->getValue<std::string>("diff"), ::testing::Not(HasSubstr("gone.txt")));

  EXPECT_EQ(http(server.port(), "GET", "/git/diff?path=..").status, 400);
  EXPECT_EQ(http(server.port(), "GET", "/git/diff?path=repo&staged=maybe").status, 400);
  std::filesystem::create_directory(server.dir() + "/plain");
  auto not_repo = http(server.port(), "GET", "/git/diff?path=plain");
  EXPECT_EQ(not_repo.status, 400);
  EXPECT_EQ(object(not_repo.body)->getValue<std::string>("type"), "GitError");
}

TEST(DevToolsGit, DiffIsCutAtOneMegabyte) {
  ServerProcess server(options());
  const std::string repo = makeRepo(server);
  sh(repo,
     "for i in $(seq 1 40000); do echo \"line $i of a long file that changes\"; done "
     "> big.txt && git add big.txt && git commit -qm big && sed -i 's/line/LINE/' big.txt");
  auto r = http(server.port(), "GET", "/git/diff?path=repo");
  ASSERT_EQ(r.status, 200);
  auto body = object(r.body);
  const auto diff = body->getValue<std::string>("diff");
  EXPECT_TRUE(body->getValue<bool>("truncated"));
  EXPECT_THAT(diff, ::testing::EndsWith("\n... (truncated at 1MB)"));
  EXPECT_EQ(diff.size(), (1u << 20) + std::string("\n... (truncated at 1MB)").size());
  // The stats still count the whole diff.
  EXPECT_EQ(body->getObject("stats")->getValue<int>("insertions"), 40001);
}

}  // namespace
}  // namespace abx::testing
