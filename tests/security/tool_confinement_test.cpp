// Attacks on the tools' policies (issue 15), each against the real binary:
// git leaving the allowed area or running what a repository (or POST /env)
// configures (SecurityGit*), a declared command's argument turned into an
// option (SecurityCommands*), and command policies bypassed through
// launchers, shells, path spellings, symlinks and scripts (SecurityLaunchers*).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "security/security_support.h"
#include "security/tool_confinement_support.h"

namespace abx::testing::security {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// ------------------------------------------------------------------- git

TEST(SecurityGit, ParentRepositoryOfTheBaseDirIsNotShown) {
  // base_dir is a subfolder of a repository: the parent's files are outside.
  TempRoot root;
  const std::string repo = root.path + "/repo";
  makeRepo(repo, "printf 'old\\n' > secret.txt && mkdir sub && echo in > sub/inside.txt");
  shell(repo, "echo TOPSECRET-CHANGE > secret.txt && echo more >> sub/inside.txt");
  ServerProcess server(devTools("base_dir: " + repo + "/sub\n"));
  EXPECT_EQ(http(server.port(), "GET", "/download?path=../secret.txt").status, 403);
  for (const char* target :
       {"/git/diff?path=.", "/git/status?path=.", "/git/diff", "/git/diff?path=inside.txt"}) {
    auto r = http(server.port(), "GET", target);
    EXPECT_EQ(r.status, 400) << target << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("not a git repository")) << target;
    EXPECT_THAT(r.body, Not(HasSubstr("TOPSECRET"))) << target;
    EXPECT_THAT(r.body, Not(HasSubstr("secret.txt"))) << target;
  }
}

TEST(SecurityGit, WorkTreeOrGitDirPointingOutsideIsRefused) {
  TempRoot root;
  const std::string outside = root.path + "/outside";
  makeRepo(outside, "echo TOPSECRET-CONTENT > secret.txt");
  const std::string base = root.path + "/base";
  // A work tree whose .git file names a git dir outside the base dir.
  makeRepo(base + "/linked", "echo x > x.txt");
  std::filesystem::remove_all(base + "/linked/.git");
  std::ofstream(base + "/linked/.git") << "gitdir: " << outside << "/.git\n";
  // A repository whose config moves its work tree outside.
  makeRepo(base + "/moved", "echo y > y.txt");
  shell(base + "/moved", "git config core.worktree " + outside);
  // A .git that is a link to a repository outside.
  std::filesystem::create_directories(base + "/symlinked");
  std::filesystem::create_directory_symlink(outside + "/.git", base + "/symlinked/.git");
  ServerProcess server(devTools("base_dir: " + base + "\n"));
  for (const char* target :
       {"/git/diff?path=linked", "/git/status?path=linked", "/git/diff?path=moved",
        "/git/status?path=moved", "/git/diff?path=symlinked", "/git/status?path=symlinked"}) {
    auto r = http(server.port(), "GET", target);
    EXPECT_EQ(r.status, 403) << target << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("path_not_allowed")) << target;
    EXPECT_THAT(r.body, Not(HasSubstr("TOPSECRET"))) << target;
    EXPECT_THAT(r.body, Not(HasSubstr("secret.txt"))) << target;
  }
}

TEST(SecurityGit, DeniedFilesAndOtherDirectoriesStayOutOfTheAnswer) {
  TempRoot root;
  const std::string base = root.path + "/base";
  makeRepo(base + "/repo",
           "echo KEY=old > .env && mkdir sub other && echo a > sub/a.txt && "
           "echo b > other/b.txt");
  shell(base + "/repo",
        "echo KEY=TOPSECRET > .env && echo more >> sub/a.txt && echo more >> other/b.txt && "
        "echo x > sub/.env");
  const std::string deny = "{paths: {deny: [\"**/.env\"]}}";
  ServerProcess server(devTools("base_dir: " + base + "\nendpoints:\n  git_diff: " + deny +
                                "\n  git_status: " + deny + "\n"));
  for (const char* target :
       {"/git/diff?path=repo", "/git/diff?path=repo&staged=false", "/git/status?path=repo"}) {
    auto r = http(server.port(), "GET", target);
    EXPECT_EQ(r.status, 200) << target << " " << r.body;
    EXPECT_THAT(r.body, Not(HasSubstr("TOPSECRET"))) << target;
    EXPECT_THAT(r.body, Not(HasSubstr(".env"))) << target;
    EXPECT_THAT(r.body, HasSubstr("sub/a.txt")) << target;
  }
  auto diff = parseObject(http(server.port(), "GET", "/git/diff?path=repo").body);
  EXPECT_EQ(diff->getObject("stats")->getValue<int>("files_changed"), 2);
  // A subdirectory: only its files.
  for (const char* target : {"/git/diff?path=repo/sub", "/git/status?path=repo/sub"}) {
    auto r = http(server.port(), "GET", target);
    EXPECT_EQ(r.status, 200) << target << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("sub/a.txt")) << target;
    EXPECT_THAT(r.body, Not(HasSubstr("other/b.txt"))) << target;
  }
}

TEST(SecurityGit, RepositoryConfigRunsNoProgram) {
  TempRoot root;
  const std::string base = root.path + "/base";
  makeRepo(base + "/repo", "echo a > a.txt && echo b > b.bin");
  ServerProcess server(devTools("base_dir: " + base + "\n"));
  const std::string marks = root.path + "/marks";
  std::filesystem::create_directory(marks);
  const std::string hooks = root.path + "/hooks";
  std::filesystem::create_directory(hooks);
  for (const char* hook : {"post-index-change", "reference-transaction", "post-checkout"})
    executable(hooks + "/" + hook, "#!/bin/sh\ntouch " + marks + "/hook-" + hook + "\n");
  // What a caller with files:write plants: a config that runs programs.
  std::string config = readText(base + "/repo/.git/config");
  config += "[core]\n\tfsmonitor = touch " + marks + "/fsmonitor; false\n";
  config += "\thooksPath = " + hooks + "\n\tpager = touch " + marks + "/pager; cat\n";
  config += "[filter \"evil\"]\n\tclean = touch " + marks + "/clean; cat\n";
  config += "\tsmudge = touch " + marks + "/smudge; cat\n";
  config += "[diff \"evil\"]\n\ttextconv = touch " + marks + "/textconv; cat\n";
  config += "\tcommand = touch " + marks + "/diffcommand\n";
  config += "[diff]\n\texternal = touch " + marks + "/external\n";
  config += "[include]\n\tpath = " + root.path + "/included\n";
  std::ofstream(root.path + "/included")
      << "[status]\n\tshowUntrackedFiles = all\n[core]\n\tfsmonitor = touch " << marks
      << "/included; false\n";
  ASSERT_EQ(upload(server, "repo/.git/config", config), 200);
  ASSERT_EQ(upload(server, "repo/.gitattributes", "*.txt filter=evil diff=evil\n"), 200);
  // Stale stat data makes git re-read (clean) the files and rewrite the index.
  shell(base + "/repo", "sleep 1; echo changed >> a.txt; touch b.bin");
  for (const char* target : {"/git/status?path=repo", "/git/diff?path=repo",
                             "/git/diff?path=repo&staged=true", "/git/status?path=repo/a.txt"}) {
    auto r = http(server.port(), "GET", target);
    EXPECT_EQ(r.status, 200) << target << " " << r.body;
  }
  EXPECT_THAT(listDir(marks), ::testing::IsEmpty());
  // The repository still reads as git shows it.
  auto diff = parseObject(http(server.port(), "GET", "/git/diff?path=repo").body);
  EXPECT_THAT(diff->getValue<std::string>("diff"), HasSubstr("+changed"));
}

TEST(SecurityGit, GlobalConfigFromTheCallerIsIgnored) {
  TempRoot root;
  const std::string base = root.path + "/base";
  makeRepo(base + "/repo", "echo a > a.txt");
  // XDG_CONFIG_HOME names a global git config. POST /env refuses it; the
  // server's own environment may still carry one (a shared image, say).
  ServerProcess server(devTools("base_dir: " + base + "\n", {{"XDG_CONFIG_HOME", base + "/xdg"}}));
  const std::string marks = root.path + "/marks";
  std::filesystem::create_directory(marks);
  ASSERT_EQ(
      upload(server, "xdg/git/config", "[core]\n\tfsmonitor = touch " + marks + "/global; false\n"),
      200);
  EXPECT_EQ(setEnv(server, {{"XDG_CONFIG_HOME", base + "/xdg"}}), 403);
  shell(base + "/repo", "sleep 1; touch a.txt");
  EXPECT_EQ(http(server.port(), "GET", "/git/status?path=repo").status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/git/diff?path=repo").status, 200);
  EXPECT_THAT(listDir(marks), ::testing::IsEmpty());
}

TEST(SecurityGit, GitVariablesOfTheEnvironmentDoNotReachGit) {
  TempRoot root;
  const std::string outside = root.path + "/outside";
  makeRepo(outside, "echo old > secret.txt");
  shell(outside, "echo TOPSECRET-CHANGE > secret.txt");
  const std::string base = root.path + "/base";
  makeRepo(base + "/repo", "echo a > a.txt");
  const std::string marks = root.path + "/marks";
  std::filesystem::create_directory(marks);
  // POST /env refuses GIT_* (see SecurityEnv); the server's own environment
  // may still carry them, and git must not see them either way.
  const std::map<std::string, std::string> git_vars = {
      {"GIT_CONFIG_COUNT", "1"},
      {"GIT_CONFIG_KEY_0", "core.fsmonitor"},
      {"GIT_CONFIG_VALUE_0", "touch " + marks + "/count; false"},
      {"GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch " + marks + "/parameters; false'"},
      {"GIT_EXTERNAL_DIFF", "touch " + marks + "/external"},
      // GIT_DIR / GIT_WORK_TREE would point git at a repository outside.
      {"GIT_DIR", outside + "/.git"},
      {"GIT_WORK_TREE", outside}};
  ServerProcess server(devTools("base_dir: " + base + "\n", git_vars));
  EXPECT_EQ(setEnv(server, git_vars), 403);
  shell(base + "/repo", "sleep 1; echo changed >> a.txt");
  EXPECT_EQ(http(server.port(), "GET", "/git/status?path=repo").status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/git/diff?path=repo").status, 200);
  EXPECT_THAT(listDir(marks), ::testing::IsEmpty());
  for (const char* target : {"/git/diff?path=repo", "/git/status?path=repo"}) {
    auto r = http(server.port(), "GET", target);
    EXPECT_EQ(r.status, 200) << target << " " << r.body;
    EXPECT_THAT(r.body, Not(HasSubstr("TOPSECRET"))) << target;
    EXPECT_THAT(r.body, Not(HasSubstr("secret.txt"))) << target;
    EXPECT_THAT(r.body, HasSubstr("a.txt")) << target;
  }
}

// -------------------------------------------------------------- commands

TEST(SecurityCommands, DashArgumentIsRefusedUnlessDeclared) {
  TempRoot root;
  makeRepo(root.path + "/repo", "echo a > a.txt");
  const std::string target = root.path + "/written-by-git-log";
  ServerOptions o = allPlugins({}, {}, {"--pty-port", "0"});
  o.files["commands.yaml"] =
      "commands:\n"
      "  - name: log\n"
      "    argv: [git, -C, '" +
      root.path +
      "/repo', log, --oneline, '{rev}']\n"
      "    args: [{name: rev, required: true}]\n"
      "  - name: joined\n"
      "    argv: [echo, '{a}{b}']\n"
      "    args: [{name: a}, {name: b}]\n"
      "  - name: grep\n"
      "    argv: [grep, -c, --, '{pattern}', '" +
      root.path +
      "/repo/a.txt']\n"
      "    args: [{name: pattern, required: true, allow_dash: true}]\n";
  ServerProcess server(o);
  auto r = http(server.port(), "POST", "/commands/log", R"({"rev":"--output=)" + target + R"("})");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("argument_is_option"));
  EXPECT_THAT(r.body, HasSubstr("'rev'"));
  EXPECT_FALSE(std::filesystem::exists(target));
  auto joined = http(server.port(), "POST", "/commands/joined", R"({"a":"","b":"-n"})");
  EXPECT_EQ(joined.status, 400) << joined.body;
  EXPECT_THAT(joined.body, HasSubstr("argument_is_option"));
  EXPECT_EQ(http(server.port(), "POST", "/commands/log", R"({"rev":"HEAD"})").status, 200);
  // Declared allow_dash (and placed after "--"): the value is data.
  auto grep = http(server.port(), "POST", "/commands/grep", R"({"pattern":"-a"})");
  EXPECT_EQ(grep.status, 500) << grep.body;  // grep found nothing: exit 1, not an option error
  EXPECT_THAT(grep.body, HasSubstr("exited with code 1"));
}

// ------------------------------------------------------------- launchers

const std::vector<std::vector<std::string>> kBashLaunches = {
    {"env", "bash", "-c", "echo PWNED"},
    {"/usr/bin/env", "-i", "bash", "-c", "echo PWNED"},
    {"env", "-u", "HOME", "X=1", "bash", "-c", "echo PWNED"},
    {"nice", "-n", "1", "bash", "-c", "echo PWNED"},
    {"timeout", "5", "bash", "-c", "echo PWNED"},
    {"nohup", "bash", "-c", "echo PWNED"},
    {"setsid", "bash", "-c", "echo PWNED"},
    {"stdbuf", "-o0", "bash", "-c", "echo PWNED"},
    {"xargs", "bash", "-c", "echo PWNED"},
    {"flock", "/tmp", "bash", "-c", "echo PWNED"},
    {"ionice", "-c", "3", "bash", "-c", "echo PWNED"},
    {"taskset", "1", "bash", "-c", "echo PWNED"},
    {"sh", "-c", "bash -c 'echo PWNED'"},
    {"sh", "-c", "true && exec bash -c 'echo PWNED'"},
    {"dash", "-c", "command bash -c 'echo PWNED'"},
    {"sh", "-c", "echo x | bash"},
    {"sh", "-c", "b=bash; $b -c 'echo PWNED'"},
    {"sh", "-c", "echo $(bash -c 'echo PWNED')"},
    {"sh", "-c", "eval 'bash -c \"echo PWNED\"'"},
    {"/bin/../bin/bash", "-c", "echo PWNED"},
    {"busybox", "sh", "-c", "bash -c 'echo PWNED'"},
    {"sudo", "bash", "-c", "echo PWNED"},
};

TEST(SecurityLaunchers, DenyBashSeesThroughLaunchers) {
  TempRoot root;
  const std::string base = root.path + "/base";
  std::filesystem::create_directories(base);
  std::filesystem::create_symlink("/usr/bin/bash", base + "/innocent");
  executable(base + "/script", "#!/usr/bin/env bash\necho PWNED\n");
  ServerProcess server(allPlugins("base_dir: " + base +
                                      "\nendpoints:\n"
                                      "  shell: {params: {deny_commands: [bash]}}\n"
                                      "  process_start: {params: {deny_commands: [bash]}}\n",
                                  {}, {"--pty-port", "0"}));
  auto launches = kBashLaunches;
  launches.push_back({"./innocent", "-c", "echo PWNED"});
  launches.push_back({"./script"});
  for (const auto& argv : launches) expectRefused(server, "/shell", argv, "bash");
  expectRefused(server, "/process/start", {"env", "bash", "-c", "sleep 5"}, "bash");
  // Plain programs, and shells running judgeable strings, still run.
  EXPECT_THAT(runShell(server, {"env", "echo", "fine"}), "fine\n");
  EXPECT_THAT(runShell(server, {"sh", "-c", "echo one | tr o O && ls -d . > /dev/null"}), "One\n");
}

TEST(SecurityLaunchers, AllowListJudgesThePrograms) {
  TempRoot root;
  const std::string base = root.path + "/base";
  std::filesystem::create_directories(base);
  std::filesystem::create_symlink("/usr/bin/bash", base + "/ls");
  ServerProcess only_ls(
      allPlugins("base_dir: " + base + "\nendpoints:\n  shell: {params: {allow_commands: [ls]}}\n",
                 {}, {"--pty-port", "0"}));
  auto launches = kBashLaunches;
  launches.push_back({"./ls", "-c", "echo PWNED"});  // named ls, runs bash
  for (const auto& argv : launches) expectRefused(only_ls, "/shell", argv, "");
  EXPECT_EQ(runShell(only_ls, {"ls", "-d", "/"}), "/\n");
  // Launchers on the allow list: what they launch must be allowed too.
  ServerProcess with_launchers(
      allPlugins("base_dir: " + base +
                     "\nendpoints:\n  shell: {params: {allow_commands: [ls, env, nice, sh]}}\n",
                 {}, {"--pty-port", "0"}));
  for (const auto& argv : kBashLaunches) {
    if (argv[0] != "env" && argv[0] != "nice" && argv[0] != "sh") continue;
    expectRefused(with_launchers, "/shell", argv, "bash");
  }
  EXPECT_EQ(runShell(with_launchers, {"env", "nice", "ls", "-d", "/"}), "/\n");
  EXPECT_EQ(runShell(with_launchers, {"sh", "-c", "ls -d / && ls -d /"}), "/\n/\n");
}

TEST(SecurityLaunchers, TerminalShellsJudgeTheRealProgram) {
  TempRoot root;
  const std::string base = root.path + "/base";
  std::filesystem::create_directories(base);
  std::filesystem::create_symlink("/usr/bin/dash", base + "/bash");
  ServerProcess server(
      allPlugins("base_dir: " + base + "\nendpoints:\n  pty_create: {params: {shells: [bash]}}\n",
                 {}, {"--pty-port", "0"}));
  auto r = http(server.port(), "POST", "/pty/sessions", R"({"shell":")" + base + R"(/bash"})");
  if (r.status == 200) {
    auto id = parseObject(r.body)->getValue<std::string>("session_id");
    http(server.port(), "DELETE", "/pty/sessions/" + id);
  }
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, HasSubstr("shell_not_allowed"));
  auto real = http(server.port(), "POST", "/pty/sessions", R"({"shell":"/usr/bin/bash"})");
  EXPECT_EQ(real.status, 200) << real.body;
  if (real.status == 200)
    http(server.port(), "DELETE",
         "/pty/sessions/" + parseObject(real.body)->getValue<std::string>("session_id"));
}

}  // namespace
}  // namespace abx::testing::security
