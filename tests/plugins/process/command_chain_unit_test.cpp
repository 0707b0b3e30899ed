// The command policy judged through launchers, shell strings, symbolic links
// and scripts (command_chain.h), with the real programs of this machine
// (env, nice, timeout, bash, dash, ...): what is refused, what is refused as
// unjudgeable, and what still runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "command_chain.h"

namespace abx::plugins::process {
namespace {

using Strings = std::vector<std::string>;
using ::testing::HasSubstr;

const Strings kEnv = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root", "SHELL=/bin/sh"};

sdk::Params denyBash() {
  sdk::Params p;
  p.set("deny_commands", Strings{"bash"});
  return p;
}

sdk::Params allow(Strings programs) {
  sdk::Params p;
  p.set("allow_commands", std::move(programs));
  return p;
}

std::optional<sdk::HttpError> judge(const Strings& argv, const sdk::Params& p,
                                    const std::string& cwd = "/tmp") {
  return judgeCommand(argv, kEnv, cwd, p);
}

std::string text(const Strings& argv) {
  std::string out;
  for (const auto& a : argv) out += "[" + a + "]";
  return out;
}

TEST(CommandChain, NoPolicyJudgesNothing) {
  EXPECT_FALSE(judge({"sh", "-c", "$(anything)"}, {}));
  EXPECT_FALSE(judge({"env", "bash"}, {}));
}

TEST(CommandChain, LaunchersAreSeenThrough) {
  const std::vector<Strings> refused = {
      {"env", "bash"},
      {"/usr/bin/env", "-i", "bash"},
      {"env", "-u", "HOME", "X=1", "bash", "-c", "id"},
      {"env", "-uHOME", "-i", "--", "bash"},
      {"env", "-", "bash"},
      {"env", "-iC", "/tmp", "bash"},
      {"env", "--ignore-environment", "bash"},
      {"env", "--ignore-e", "--unset=HOME", "bash"},
      {"env", "PATH=/usr/bin", "bash"},
      {"nice", "bash"},
      {"nice", "-n", "5", "bash"},
      {"nice", "-5", "bash"},
      {"nice", "--adjustment=3", "bash"},
      {"nohup", "bash"},
      {"timeout", "5", "bash"},
      {"timeout", "-s", "KILL", "-k", "1", "5", "bash"},
      {"timeout", "--signal=KILL", "--preserve-status", "5", "bash"},
      {"stdbuf", "-o0", "bash"},
      {"stdbuf", "-oL", "-e", "0", "bash"},
      {"setsid", "-f", "bash"},
      {"xargs", "bash"},
      {"xargs", "-0", "-n1", "bash"},
      {"flock", "/tmp", "bash"},
      {"flock", "-w", "1", "/tmp", "bash"},
      {"flock", "/tmp", "-c", "bash -c id"},
      {"ionice", "-c3", "bash"},
      {"taskset", "1", "bash"},
      {"taskset", "-c", "0", "bash"},
      {"time", "-p", "bash"},
      {"sudo", "bash"},
      {"sudo", "-u", "root", "-E", "LANG=C", "bash"},
      {"env", "nice", "timeout", "5", "bash"},
      {"rbash"},  // a system link to bash
      {"/usr/bin/../bin/bash"},
      {"busybox", "bash"},
      {"busybox", "env", "bash"},
      {"busybox", "sh", "-c", "bash"},
  };
  for (const auto& argv : refused) {
    auto refusal = judge(argv, denyBash());
    ASSERT_TRUE(refusal) << text(argv);
    EXPECT_EQ(refusal->status, 403) << text(argv);
    EXPECT_EQ(refusal->code, "command_not_allowed") << text(argv);
    EXPECT_THAT(refusal->message, HasSubstr("bash")) << text(argv);
    EXPECT_THAT(refusal->message, HasSubstr("denied by policy")) << text(argv);
  }
  auto env = judge({"env", "bash"}, denyBash());
  EXPECT_EQ(env->message,
            "Command 'bash' (run by 'env') is denied by policy (params.deny_commands)");
}

TEST(CommandChain, ShellStringsAreJudgedCommandByCommand) {
  const Strings refused = {
      "bash",
      "bash -c id",
      "exec bash",
      "command bash",
      "builtin exec bash",
      "echo x | bash",
      "true && env bash",
      "if true; then bash; fi",
      "while false; do bash; done",
      "for x in a b; do bash; done",
      "case x in x) bash;; esac",
      "case x in (y|x) true;; *) bash;; esac",
      "{ bash; }",
      "(bash)",
      "f() { bash; }; f",
      "function f { bash; }",
      "X=1 bash",
      "ls > /dev/null; b'a'sh",
      "b\\ash",
      "nice sh -c 'dash -c \"bash\"'",
      "time bash",
      "! bash",
      "ls 2>&1 | bash",
  };
  for (const auto& script : refused) {
    auto refusal = judge({"sh", "-c", script}, denyBash());
    ASSERT_TRUE(refusal) << script;
    EXPECT_THAT(refusal->message, HasSubstr("'bash'")) << script;
    EXPECT_THAT(refusal->message, HasSubstr("denied by policy")) << script;
  }
  const Strings fine = {
      "ls | wc -l > /dev/null",
      "echo \"$HOME\" ${X:-y} 'single $(quoted)'",
      "for f in *; do echo \"$f\"; done",
      "cd /tmp && ls",
      "x=1; echo $x",
      "test -n \"$x\" || echo no",
      "f() { ls; }; f",
      "command -v bash",
      "case $1 in a) ls;; esac",
      "# bash in a comment\nls",
      "export A=1 B=\"$HOME\"; unset A; read -r line; printf '%s' x",
  };
  for (const auto& script : fine) EXPECT_FALSE(judge({"sh", "-c", script}, denyBash())) << script;
  EXPECT_FALSE(
      judge({"bash", "-e", "-o", "pipefail", "--norc", "-c", "ls"}, allow({"bash", "ls"})));
  EXPECT_FALSE(judge({"dash", "-ec", "exit 0"}, denyBash()));
}

TEST(CommandChain, WhatCannotBeJudgedIsRefused) {
  const std::vector<Strings> unjudgeable = {
      {"sh", "-c", "echo $(id)"},
      {"sh", "-c", "echo `id`"},
      {"sh", "-c", "echo \"$(id)\""},
      {"sh", "-c", "echo $((1+2))"},
      {"sh", "-c", "((x=1))"},
      {"sh", "-c", "diff <(ls) /dev/null"},
      {"sh", "-c", "cat <<EOF\nx\nEOF"},
      {"sh", "-c", "eval ls"},
      {"sh", "-c", ". ./x"},
      {"sh", "-c", "source x"},
      {"sh", "-c", "trap ls EXIT"},
      {"sh", "-c", "alias ls=id"},
      {"sh", "-c", "hash -p /usr/bin/id ls"},
      {"sh", "-c", "b=id; $b"},
      {"sh", "-c", "\"$0\" x"},
      {"sh", "-c", "/usr/bin/l? x"},
      {"sh", "-c", "PATH=/tmp ls"},
      {"sh", "-c", "export PATH"},
      {"sh", "-c", "PS4='x'; set -x"},
      {"sh", "-c", "[[ $x -eq 1 ]]"},
      {"sh", "-c", "let x=1"},
      {"sh", "-c", "declare -i x=1"},
      {"sh", "-c", "declare -n r=x"},
      {"sh", "-c", "read a[0]"},
      {"sh", "-c", "a[0]=1"},
      {"sh", "-c", "echo ${!x}"},
      {"sh", "-c", "echo ${x[$i]}"},
      {"sh", "-c", "echo ${x:1}"},
      {"sh", "-c", "echo ${x@P}"},
      {"sh", "-c", "echo 'open"},
      {"sh", "-c", "no-such-program-xyz"},
      {"sh", "-c", "cd /tmp && ./x"},
      {"sh", "-c", "ls | sh"},
      {"sh", "/tmp/script.sh"},
      {"sh"},
      {"sh", "-l", "-c", "ls"},
      {"sh", "-i"},
      {"sh", "--login", "-c", "ls"},
      {"zsh", "-c", "ls"},
      {"env", "-S", "ls"},
      {"env", "BASH_ENV=/tmp/x", "sh", "-c", "ls"},
      {"env", "LD_PRELOAD=/tmp/x.so", "ls"},
      {"xargs", "-I{}", "sh", "-c", "{}"},
      {"xargs", "env"},
      {"xargs", "sh"},
      {"xargs", "timeout"},
      {"env", "--no-such-option", "ls"},
      {"su", "-c", "ls"},
      {"chroot", "/", "ls"},
      {"strace", "ls"},
      {"sudo", "-s"},
      {"sudo", "-e", "/etc/hosts"},
  };
  for (const auto& argv : unjudgeable) {
    auto refusal = judge(argv, denyBash());
    ASSERT_TRUE(refusal) << text(argv);
    EXPECT_EQ(refusal->status, 403) << text(argv);
    EXPECT_EQ(refusal->code, "command_not_allowed") << text(argv);
    EXPECT_THAT(refusal->message, HasSubstr("cannot be judged")) << text(argv);
  }
  auto env_hook = judge({"env", "BASH_ENV=/tmp/x", "sh", "-c", "ls"}, denyBash());
  EXPECT_THAT(env_hook->message, HasSubstr("BASH_ENV"));
}

TEST(CommandChain, PlainProgramsAndLaunchersThatRunNothingPass) {
  const std::vector<Strings> fine = {
      {"ls"},
      {"env"},
      {"env", "ls"},
      {"env", "-i", "PATH=/usr/bin", "ls"},
      {"nice", "-n", "1", "ls"},
      {"timeout", "5", "ls"},
      {"xargs", "ls"},
      {"xargs"},
      {"env", "--help"},
      {"ionice", "-p", "1"},
      {"taskset", "-p", "1"},
      {"nice"},
      {"busybox", "ls"},
      {"sudo", "-v"},
  };
  for (const auto& argv : fine) EXPECT_FALSE(judge(argv, denyBash())) << text(argv);
}

TEST(CommandChain, AllowListJudgesEveryProgram) {
  for (const Strings& argv :
       std::vector<Strings>{{"ls"}, {"/usr/bin/ls", "-l"}, {"/bin/../bin/ls"}})
    EXPECT_FALSE(judge(argv, allow({"ls"}))) << text(argv);
  for (const Strings& argv :
       std::vector<Strings>{{"env", "ls"}, {"sh", "-c", "ls"}, {"nice", "ls"}, {"xargs", "ls"}}) {
    auto refusal = judge(argv, allow({"ls"}));
    ASSERT_TRUE(refusal) << text(argv);
    EXPECT_THAT(refusal->message, HasSubstr("not allowed by policy (params.allow_commands)"));
  }
  auto launchers = allow({"ls", "env", "sh"});
  EXPECT_FALSE(judge({"env", "ls"}, launchers));
  EXPECT_FALSE(judge({"sh", "-c", "ls; echo done; true"}, launchers));  // builtins are no programs
  auto cat = judge({"sh", "-c", "ls; cat x"}, launchers);
  ASSERT_TRUE(cat);
  EXPECT_EQ(cat->message,
            "Command 'cat' (run by 'sh') is not allowed by policy (params.allow_commands)");
  EXPECT_TRUE(judge({"env", "bash"}, launchers));
}

TEST(CommandChain, ShellsJudgeEveryShellInTheChain) {
  sdk::Params p;
  p.set("shells", Strings{"sh"});
  EXPECT_FALSE(judge({"sh", "-c", "ls"}, p));  // sh -> dash is the system's link
  EXPECT_FALSE(judge({"ls"}, p));
  for (const Strings& argv : std::vector<Strings>{
           {"sh", "-c", "bash -c ls"}, {"dash", "-c", "ls"}, {"env", "bash"}, {"rbash"}}) {
    auto refusal = judge(argv, p);
    ASSERT_TRUE(refusal) << text(argv);
    EXPECT_THAT(refusal->message, HasSubstr("params.shells")) << text(argv);
  }
}

class CommandChainFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-chain-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void script(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    ::chmod((dir_ + "/" + name).c_str(), 0755);
  }
  std::string dir_;
};

TEST_F(CommandChainFiles, LinksAreJudgedByWhatTheyPointTo) {
  std::filesystem::create_symlink("/usr/bin/bash", dir_ + "/ls");
  std::filesystem::create_symlink("/usr/bin/bash", dir_ + "/innocent");
  auto named_ls = judge({"./ls", "-c", "id"}, allow({"ls"}), dir_);
  ASSERT_TRUE(named_ls);
  EXPECT_THAT(named_ls->message, HasSubstr("not allowed by policy (params.allow_commands)"));
  EXPECT_TRUE(judge({"./innocent"}, denyBash(), dir_));
  EXPECT_TRUE(judge({dir_ + "/innocent", "-c", "id"}, denyBash()));
  EXPECT_TRUE(judge({"env", "PATH=" + dir_, "innocent"}, denyBash()));
}

TEST_F(CommandChainFiles, ScriptsAreJudgedWithTheirInterpreter) {
  script("env-bash", "#!/usr/bin/env bash\necho hi\n");
  script("direct", "#!/usr/bin/bash -e\necho hi\n");
  script("sh-script", "#!/bin/sh\necho hi\n");
  script("plain", "echo hi\n");
  script("ok", "#!/usr/bin/env ls\n");
  for (const char* name : {"./env-bash", "./direct"}) {
    auto refusal = judge({name}, denyBash(), dir_);
    ASSERT_TRUE(refusal) << name;
    EXPECT_THAT(refusal->message, HasSubstr("bash' (run by '")) << name;
  }
  for (const char* name : {"./sh-script", "./plain"}) {
    auto refusal = judge({name}, denyBash(), dir_);
    ASSERT_TRUE(refusal) << name;
    EXPECT_THAT(refusal->message, HasSubstr("cannot be judged")) << name;
  }
  EXPECT_FALSE(judge({"./ok"}, denyBash(), dir_));
}

}  // namespace
}  // namespace abx::plugins::process
