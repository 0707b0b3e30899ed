// The policy's command params: allow_commands / deny_commands by basename or
// path glob, shells, env_deny; and how argv[0] is resolved for them (the
// launchers and shell strings behind argv[0]: command_chain_unit_test.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "command_chain.h"
#include "command_rules.h"

namespace abx::plugins::process {
namespace {

using Strings = std::vector<std::string>;

sdk::Params params(std::optional<Strings> allow, std::optional<Strings> deny,
                   std::optional<Strings> shells = std::nullopt) {
  sdk::Params p;
  if (allow) p.set("allow_commands", std::move(*allow));
  if (deny) p.set("deny_commands", std::move(*deny));
  if (shells) p.set("shells", std::move(*shells));
  return p;
}

std::optional<sdk::HttpError> check(const Strings& argv, const sdk::Params& p) {
  const Strings env = {"PATH=/usr/bin:/bin"};
  return judgeCommand(argv, env, "/tmp", p);
}

TEST(CommandRules, NoRulesAllowEverything) {
  EXPECT_FALSE(check({"ls"}, {}));
  EXPECT_FALSE(check({"/no/such/tool"}, {}));
  EXPECT_FALSE(check({"bash", "-c", "x"}, {}));
}

TEST(CommandRules, DenyByBasenameCatchesEveryPath) {
  auto p = params(std::nullopt, Strings{"rm", "curl*"});
  for (const Strings& argv : {Strings{"rm", "-rf", "x"}, Strings{"/bin/rm"}, Strings{"./rm"},
                              Strings{"/usr/bin/../bin/rm"}, Strings{"curl-config"}}) {
    auto refusal = check(argv, p);
    ASSERT_TRUE(refusal) << argv[0];
    EXPECT_EQ(refusal->status, 403);
    EXPECT_EQ(refusal->type, "PermissionError");
    EXPECT_EQ(refusal->code, "command_not_allowed");
    EXPECT_THAT(refusal->message, ::testing::HasSubstr("deny_commands"));
  }
  EXPECT_FALSE(check({"ls"}, p));
  EXPECT_FALSE(check({"rmdir"}, p));
}

TEST(CommandRules, DenyByPathMatchesTheResolvedProgram) {
  auto p = params(std::nullopt, Strings{"/usr/bin/*"});
  // `env` is found in /usr/bin through PATH; the pattern judges that path.
  auto refusal = check({"env"}, p);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->code, "command_not_allowed");
  EXPECT_TRUE(check({"/usr/bin/env"}, p));
  EXPECT_TRUE(check({"/usr/./bin/env"}, p));  // normalised before matching
  EXPECT_FALSE(check({"/usr/local/x"}, p));
  // FNM_PATHNAME: '*' does not cross a '/'.
  EXPECT_FALSE(check({"/usr/bin/sub/tool"}, p));
}

TEST(CommandRules, AllowListRefusesEverythingElse) {
  auto p = params(Strings{"echo", "/usr/bin/git", "py*"}, std::nullopt);
  EXPECT_FALSE(check({"echo", "hi"}, p));
  EXPECT_FALSE(check({"/bin/echo", "hi"}, p));  // a name matches wherever it lives
  EXPECT_FALSE(check({"python3"}, p));
  EXPECT_FALSE(check({"/usr/bin/git"}, p));
  auto refusal = check({"ls"}, p);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 403);
  EXPECT_THAT(refusal->message, ::testing::HasSubstr("allow_commands"));
  EXPECT_TRUE(check({"/tmp/evil/git"}, p));  // pinned by path, so elsewhere is refused
  EXPECT_TRUE(check({"/no/such/tool"}, p));
}

TEST(CommandRules, DenyWinsOverAllow) {
  auto p = params(Strings{"*"}, Strings{"sudo"});
  EXPECT_FALSE(check({"ls"}, p));
  EXPECT_TRUE(check({"sudo", "ls"}, p));
}

TEST(CommandRules, ShellsRestrictOnlyShells) {
  auto p = params(std::nullopt, std::nullopt, Strings{"bash"});
  EXPECT_FALSE(check({"bash", "-c", "true"}, p));
  EXPECT_FALSE(check({"/bin/bash", "-c", "true"}, p));
  EXPECT_FALSE(check({"ls"}, p));  // not a shell: not this rule's business
  for (const char* shell : {"sh", "/bin/sh", "dash", "zsh", "busybox"}) {
    auto refusal = check({shell, "-c", "x"}, p);
    ASSERT_TRUE(refusal) << shell;
    EXPECT_EQ(refusal->code, "command_not_allowed");
    EXPECT_THAT(refusal->message, ::testing::HasSubstr("params.shells"));
  }
  // An empty list: no shell at all.
  auto none = params(std::nullopt, std::nullopt, Strings{});
  EXPECT_TRUE(check({"sh", "-c", "x"}, none));
  EXPECT_FALSE(check({"echo"}, none));
  // Both rules apply: a shell must pass allow_commands too.
  auto both = params(Strings{"echo"}, std::nullopt, Strings{"bash"});
  EXPECT_TRUE(check({"bash"}, both));
}

TEST(CommandRules, EmptyArgvIsABadRequest) {
  auto refusal = judgeCommand({}, {}, "/", {});
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 400);
}

TEST(CommandRules, ResolveProgramFollowsTheChildPath) {
  EXPECT_EQ(resolveProgram("sh", {"PATH=/nonexistent:/bin"}, "/"), "/bin/sh");
  EXPECT_EQ(resolveProgram("no-such-tool-xyz", {"PATH=/bin"}, "/"), std::nullopt);
  EXPECT_EQ(resolveProgram("./x/../tool", {}, "/work/dir"), "/work/dir/tool");
  EXPECT_EQ(resolveProgram("/a/b/../c", {}, "/"), "/a/c");
  EXPECT_EQ(resolveProgram("", {}, "/"), std::nullopt);
}

TEST(CommandRules, PathHelpers) {
  EXPECT_EQ(baseName("/usr/bin/env"), "env");
  EXPECT_EQ(baseName("env"), "env");
  EXPECT_EQ(lexicallyNormal("/a/./b/../c//d/"), "/a/c/d");
  EXPECT_EQ(lexicallyNormal("/../x"), "/x");
  EXPECT_EQ(lexicallyNormal("a/../../b"), "../b");
  EXPECT_TRUE(isShell("/usr/bin/bash"));
  EXPECT_FALSE(isShell("bashful"));
}

TEST(CommandRules, EnvDenyRemovesMatchingNames) {
  const Strings env = {"PATH=/bin", "AWS_SECRET=x", "AWS_REGION=eu", "HOME=/root", "MY_TOKEN=t"};
  EXPECT_EQ(withoutDenied(env, std::nullopt), env);
  EXPECT_EQ(withoutDenied(env, Strings{"AWS_*", "*TOKEN"}), (Strings{"PATH=/bin", "HOME=/root"}));
  EXPECT_EQ(withoutDenied(env, Strings{"HOME"}),
            (Strings{"PATH=/bin", "AWS_SECRET=x", "AWS_REGION=eu", "MY_TOKEN=t"}));
}

}  // namespace
}  // namespace abx::plugins::process
