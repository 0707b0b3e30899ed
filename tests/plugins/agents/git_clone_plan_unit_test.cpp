// The workspace bootstrap's git plan: URLs split so no credential reaches
// argv or .git/config, the credential as an origin-scoped extraHeader in the
// environment only, the hardening variables, and the steps for a branch and
// for a commit id.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/workspace_bootstrap.h"

namespace abx::plugins::agents {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string joined(const GitPlan& plan) {
  std::string all;
  for (const auto& step : plan.steps)
    for (const auto& arg : step) all += arg + " ";
  return all;
}

std::string envValue(const GitPlan& plan, const std::string& name) {
  for (const auto& entry : plan.env)
    if (entry.starts_with(name + "=")) return entry.substr(name.size() + 1);
  return "<unset>";
}

TEST(GitRemote, HttpsUserInfoLeavesTheUrlForAHeader) {
  auto r = splitGitRemote("https://bob:s3cret@git.example:8443/o/r.git");
  EXPECT_EQ(r.url, "https://git.example:8443/o/r.git");
  EXPECT_EQ(r.origin, "https://git.example:8443/");
  EXPECT_EQ(r.user, "bob");
  EXPECT_EQ(r.password, "s3cret");
  EXPECT_TRUE(r.has_credential);
  auto lone = splitGitRemote("https://TOKEN123@github.com/o/r");
  EXPECT_EQ(lone.url, "https://github.com/o/r");
  EXPECT_EQ(lone.user, "TOKEN123");
  // ssh keeps its user name, drops a password; scp-like is left alone.
  EXPECT_EQ(splitGitRemote("ssh://git:pw@host/o/r").url, "ssh://git@host/o/r");
  EXPECT_EQ(splitGitRemote("ssh://git:pw@host/o/r").origin, "");
  EXPECT_EQ(splitGitRemote("git@host:o/r.git").url, "git@host:o/r.git");
  EXPECT_FALSE(splitGitRemote("git://host/r").has_credential);
}

TEST(GitRemote, CommitIdsAreFullHex) {
  EXPECT_TRUE(isCommitId(std::string(40, 'a')));
  EXPECT_TRUE(isCommitId(std::string(64, '0')));
  EXPECT_FALSE(isCommitId("abc1234"));
  EXPECT_FALSE(isCommitId(std::string(40, 'A')));
  EXPECT_FALSE(isCommitId("main"));
}

TEST(GitClonePlan, TheTokenIsAScopedHeaderInTheEnvironmentOnly) {
  sdk::agents::GitSpec git{"https://git.example/o/r.git", "release", "tok-123"};
  const std::vector<std::string> base = {"PATH=/usr/bin", "HOME=/home/u", "ABX_SERVER_TOKEN=x",
                                         "GIT_CONFIG_GLOBAL=/etc/evil", "SECRET_THING=y"};
  auto plan = gitClonePlan(git, "/ws", 1, base, {});
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_THAT(plan.steps[0], ElementsAre("git", "clone", "--depth=1", "--single-branch",
                                         "--branch=release", "--", git.url, "/ws"));
  EXPECT_THAT(joined(plan) + plan.display, Not(HasSubstr("tok-123")));
  // base64("x-access-token:tok-123")
  EXPECT_THAT(plan.env, Contains("GIT_CONFIG_VALUE_6=Authorization: Basic "
                                 "eC1hY2Nlc3MtdG9rZW46dG9rLTEyMw=="));
  EXPECT_THAT(plan.env, Contains("GIT_CONFIG_KEY_6=http.https://git.example/.extraHeader"));
  EXPECT_EQ(envValue(plan, "GIT_CONFIG_COUNT"), "7");
  EXPECT_EQ(envValue(plan, "GIT_ALLOW_PROTOCOL"), "https:ssh:git");
  EXPECT_EQ(envValue(plan, "GIT_TERMINAL_PROMPT"), "0");
  EXPECT_EQ(envValue(plan, "GIT_CONFIG_NOSYSTEM"), "1");
  EXPECT_EQ(envValue(plan, "GIT_CONFIG_GLOBAL"), "/dev/null");
  EXPECT_THAT(plan.env, Contains("GIT_CONFIG_KEY_0=core.hooksPath"));
  EXPECT_EQ(envValue(plan, "HOME"), "/home/u");
  EXPECT_EQ(envValue(plan, "ABX_SERVER_TOKEN"), "<unset>");
  EXPECT_EQ(envValue(plan, "SECRET_THING"), "<unset>");
}

TEST(GitClonePlan, AUrlCredentialBecomesTheHeaderAndLeavesTheUrl) {
  sdk::agents::GitSpec git{"https://bob:pw@git.example/o/r.git", "", ""};
  auto plan = gitClonePlan(git, "/ws", 0, {}, {});
  EXPECT_THAT(plan.steps[0], ElementsAre("git", "clone", "--single-branch", "--",
                                         "https://git.example/o/r.git", "/ws"));
  EXPECT_THAT(plan.env, Contains("GIT_CONFIG_VALUE_6=Authorization: Basic Ym9iOnB3"));
  EXPECT_THAT(joined(plan), Not(HasSubstr("pw@")));
}

TEST(GitClonePlan, NoHeaderWithoutHttpsOrCredential) {
  auto plan = gitClonePlan({"git://host/r.git", "", "tok"}, "/ws", 1, {}, {});
  EXPECT_EQ(envValue(plan, "GIT_CONFIG_COUNT"), "6");
  plan = gitClonePlan({"https://host/r.git", "", ""}, "/ws", 1, {}, {});
  EXPECT_EQ(envValue(plan, "GIT_CONFIG_COUNT"), "6");
}

TEST(GitClonePlan, ACommitIdIsInitFetchAndCheckout) {
  const std::string sha(40, 'c');
  auto plan = gitClonePlan({"git://host/r.git", sha, ""}, "/ws", 2, {}, {});
  ASSERT_EQ(plan.steps.size(), 4u);
  EXPECT_THAT(plan.steps[0], ElementsAre("git", "init", "--quiet", "--", "/ws"));
  EXPECT_THAT(plan.steps[1],
              ElementsAre("git", "-C", "/ws", "remote", "add", "origin", "--", "git://host/r.git"));
  EXPECT_THAT(plan.steps[2], ElementsAre("git", "-C", "/ws", "fetch", "--depth=2", "origin", sha));
  EXPECT_THAT(plan.steps[3],
              ElementsAre("git", "-C", "/ws", "checkout", "--quiet", "--detach", "FETCH_HEAD"));
  EXPECT_THAT(plan.display, HasSubstr(" && "));
}

TEST(GitClonePlan, TheHostsProtectionFiltersItsEnvironmentNotTheHardening) {
  auto is_protected = [](std::string_view name) {
    return name == "HTTPS_PROXY" || name == "GIT_ALLOW_PROTOCOL";
  };
  auto plan = gitClonePlan({"https://h/r", "", "t"}, "/ws", 1,
                           {"PATH=/bin", "HTTPS_PROXY=http://p"}, is_protected);
  EXPECT_EQ(envValue(plan, "HTTPS_PROXY"), "<unset>");
  EXPECT_EQ(envValue(plan, "PATH"), "/bin");
  EXPECT_EQ(envValue(plan, "GIT_ALLOW_PROTOCOL"), "https:ssh:git");
}

}  // namespace
}  // namespace abx::plugins::agents
