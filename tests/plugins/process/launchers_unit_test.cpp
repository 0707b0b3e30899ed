// Launcher grammars (launchers.h): where the launched program starts, what
// the launcher changes for it (env -i / -u / NAME=value / -C, sudo -D,
// xargs), what runs nothing, and what is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "launchers.h"

namespace abx::plugins::process {
namespace {

using Strings = std::vector<std::string>;
using Kind = Launched::Kind;

struct Unwrapped {
  Kind kind = Kind::nothing;
  Strings argv;
  std::string reason;
  LaunchScope scope;
};

Unwrapped unwrap(const Strings& argv, Strings env = {"PATH=/bin", "HOME=/root"}) {
  Unwrapped out;
  out.scope.env = std::move(env);
  out.scope.cwd = "/work";
  auto launched = unwrapLauncher(argv[0], fixedWords(argv), out.scope);
  EXPECT_TRUE(launched) << argv[0];
  if (!launched) return out;
  out.kind = launched->kind;
  out.reason = launched->reason;
  for (const auto& w : launched->argv) out.argv.push_back(w.text);
  return out;
}

Strings program(const Strings& argv) {
  auto u = unwrap(argv);
  EXPECT_EQ(u.kind, Kind::program) << argv[0] << " " << u.reason;
  return u.argv;
}

TEST(Launchers, OtherProgramsAreNoLaunchers) {
  LaunchScope scope;
  EXPECT_FALSE(unwrapLauncher("ls", fixedWords({"ls", "-l"}), scope));
  EXPECT_FALSE(unwrapLauncher("bash", fixedWords({"bash"}), scope));
}

TEST(Launchers, EnvOptionsAssignmentsAndCommand) {
  EXPECT_EQ(program({"env", "a", "b"}), (Strings{"a", "b"}));
  EXPECT_EQ(program({"env", "-i", "--", "X=1", "a"}), (Strings{"a"}));
  // After the first operand, "--" is the command's name (GNU getopt stops there).
  EXPECT_EQ(program({"env", "X=1", "--", "a"}), (Strings{"--", "a"}));
  auto cleared = unwrap({"env", "-i", "PATH=/opt", "a"});
  EXPECT_EQ(cleared.scope.env, Strings{"PATH=/opt"});
  auto dash = unwrap({"env", "-", "a"});
  EXPECT_TRUE(dash.scope.env.empty());
  auto unset = unwrap({"env", "-u", "HOME", "--unset=PATH", "a"});
  EXPECT_TRUE(unset.scope.env.empty());
  auto cd = unwrap({"env", "-C", "sub", "a"});
  EXPECT_EQ(cd.scope.cwd, "/work/sub");
  EXPECT_EQ(unwrap({"env", "--chdir=/x", "a"}).scope.cwd, "/x");
  EXPECT_EQ(unwrap({"env"}).kind, Kind::nothing);
  EXPECT_EQ(unwrap({"env", "X=1"}).kind, Kind::nothing);
  EXPECT_EQ(unwrap({"env", "--version", "a"}).kind, Kind::nothing);
  EXPECT_EQ(unwrap({"env", "-S", "a b"}).kind, Kind::refused);
  EXPECT_EQ(unwrap({"env", "--split-string=a"}).kind, Kind::refused);
  EXPECT_EQ(unwrap({"env", "--ign", "a"}).kind, Kind::refused);  // ambiguous, as for env
  EXPECT_EQ(unwrap({"env", "LD_PRELOAD=x", "a"}).kind, Kind::refused);
  EXPECT_EQ(unwrap({"env", "BASH_FUNC_ls%%=() { x; }", "a"}).kind, Kind::refused);
  EXPECT_EQ(unwrap({"env", "-u"}).kind, Kind::refused);  // a missing value
}

TEST(Launchers, OptionGrammarsOfTheCommonLaunchers) {
  EXPECT_EQ(program({"nice", "-n", "5", "a"}), Strings{"a"});
  EXPECT_EQ(program({"nice", "-n5", "a"}), Strings{"a"});
  EXPECT_EQ(program({"nice", "-5", "a"}), Strings{"a"});
  EXPECT_EQ(program({"nice", "--10", "a"}), Strings{"a"});
  EXPECT_EQ(program({"nohup", "--", "a"}), Strings{"a"});
  EXPECT_EQ(program({"timeout", "-k", "1", "-s", "TERM", "10", "a", "-x"}), (Strings{"a", "-x"}));
  EXPECT_EQ(program({"timeout", "--kill-after=1", "--foreground", "10", "a"}), Strings{"a"});
  EXPECT_EQ(program({"stdbuf", "-i0", "-o", "L", "--error=0", "a"}), Strings{"a"});
  EXPECT_EQ(program({"setsid", "-cfw", "a"}), Strings{"a"});
  EXPECT_EQ(program({"ionice", "-c", "2", "-n", "7", "-t", "a"}), Strings{"a"});
  EXPECT_EQ(program({"taskset", "-a", "0x3", "a"}), Strings{"a"});
  EXPECT_EQ(program({"taskset", "-c", "0-1", "a"}), Strings{"a"});
  EXPECT_EQ(program({"time", "-f", "%e", "-o", "out", "a"}), Strings{"a"});
  EXPECT_EQ(program({"flock", "-n", "-w", "3", "/tmp/lock", "a", "b"}), (Strings{"a", "b"}));
  EXPECT_EQ(program({"sudo", "-u", "root", "-D", "/tmp", "-E", "A=1", "a"}), Strings{"a"});
  EXPECT_EQ(unwrap({"sudo", "-D", "/tmp", "a"}).scope.cwd, "/tmp");
  EXPECT_EQ(program({"xargs", "-0", "-n", "1", "-P4", "a"}), Strings{"a"});
  EXPECT_EQ(program({"xargs", "-e", "a"}), Strings{"a"});  // -e takes only an attached value
  EXPECT_EQ(program({"xargs"}), Strings{"echo"});
  EXPECT_TRUE(unwrap({"xargs", "a"}).scope.appended_args);
}

TEST(Launchers, FlockCommandStringRunsTheShell) {
  EXPECT_EQ(program({"flock", "/tmp/l", "-c", "a b"}), (Strings{"/bin/sh", "-c", "a b"}));
  LaunchScope scope{{"SHELL=/usr/bin/zsh"}, "/", false};
  auto launched = unwrapLauncher("flock", fixedWords({"flock", "/l", "--command", "x"}), scope);
  ASSERT_TRUE(launched);
  EXPECT_EQ(launched->argv.at(0).text, "/usr/bin/zsh");
}

TEST(Launchers, WhatRunsNothing) {
  for (const Strings& argv : std::vector<Strings>{{"nice"},
                                                  {"nohup"},
                                                  {"ionice", "-p", "1"},
                                                  {"ionice", "-P", "1", "2"},
                                                  {"taskset", "-p", "1"},
                                                  {"taskset", "-p", "0x1", "1"},
                                                  {"sudo", "-v"},
                                                  {"sudo", "-l"},
                                                  {"sudo", "-k"},
                                                  {"timeout", "--help"},
                                                  {"flock", "3"}})
    EXPECT_EQ(unwrap(argv).kind, Kind::nothing) << argv[0];
}

TEST(Launchers, WhatIsRefused) {
  for (const Strings& argv : std::vector<Strings>{{"sudo", "-s"},
                                                  {"sudo", "-i"},
                                                  {"sudo", "--login"},
                                                  {"sudo", "-e", "f"},
                                                  {"sudo", "-R", "/x", "a"},
                                                  {"xargs", "-I{}", "a", "{}"},
                                                  {"xargs", "-i", "a"},
                                                  {"xargs", "--replace", "a"},
                                                  {"su"},
                                                  {"su", "-c", "a"},
                                                  {"chroot", "/x", "a"},
                                                  {"unshare", "a"},
                                                  {"strace", "a"},
                                                  {"watch", "a"},
                                                  {"capsh", "--", "-c", "a"},
                                                  {"nice", "-x", "a"},
                                                  {"timeout", "--bogus", "1", "a"}})
    EXPECT_EQ(unwrap(argv).kind, Kind::refused) << argv[0] << " " << argv.back();
  // A word a shell would expand cannot be an option or an assignment.
  LaunchScope scope;
  auto expanded = unwrapLauncher("env", {Word{"env"}, Word{"$OPTS", false}, Word{"a"}}, scope);
  ASSERT_TRUE(expanded);
  EXPECT_EQ(expanded->kind, Kind::refused);
}

TEST(Launchers, XargsSuppliesWhatALauncherLacks) {
  LaunchScope scope{{}, "/", true};
  for (const Strings& argv :
       std::vector<Strings>{{"env"}, {"nice"}, {"timeout", "5"}, {"sudo"}, {"setsid"}}) {
    auto launched = unwrapLauncher(argv[0], fixedWords(argv), scope);
    ASSERT_TRUE(launched) << argv[0];
    EXPECT_EQ(launched->kind, Kind::refused) << argv[0];
  }
}

TEST(Launchers, HookVariables) {
  for (const char* name : {"BASH_ENV", "ENV", "SHELLOPTS", "PS4", "LD_PRELOAD", "LD_AUDIT",
                           "BASH_FUNC_ls%%", "GCONV_PATH"})
    EXPECT_TRUE(isHookVariable(name)) << name;
  for (const char* name : {"PATH", "HOME", "ENVIRONMENT", "MY_ENV", "LANG", "NODE_OPTIONS"})
    EXPECT_FALSE(isHookVariable(name)) << name;
  EXPECT_TRUE(isShellHookVariable("BASH_ENV"));
  EXPECT_FALSE(isShellHookVariable("LD_LIBRARY_PATH"));  // an operator's setting: shells still run
}

}  // namespace
}  // namespace abx::plugins::process
