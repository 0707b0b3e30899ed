// Secret classification: exactly which values of a definition are secrets.
#include <gtest/gtest.h>

#include "definition/agent_definition.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

sdk::agents::AgentSpec specWithEverySecret() {
  auto r = parseAgentDefinitionBody(R"({
    "name": "a", "runtime": "codex",
    "provider": {"base_url": "https://user:base-pass-1@llm.example", "api_key": "api-key-value"},
    "workspace": {"git": {"url": "https://x-access-token:git-url-token@github.com/o/r",
                          "token": "git-token-value"}},
    "env": {"PUBLIC": "not-a-secret"},
    "secrets": {"A": "secret-a-value", "B": "secret-b-value"},
    "mcp_servers": {
      "m": {"url": "https://mcp-url-token@mcp.example/x",
            "headers": {"Authorization": "Bearer mcp-bearer-token", "X-Plain": "plain-value",
                        "X-Marked": {"value": "marked-value", "secret": true}}}}
  })");
  EXPECT_TRUE(r.ok()) << r.errorText();
  return r.spec;
}

TEST(SecretBag, CollectsEverySecretAndNothingElse) {
  const auto bag = SecretBag::of(specWithEverySecret());
  for (const char* secret : {"api-key-value", "git-token-value", "secret-a-value", "secret-b-value",
                             "Bearer mcp-bearer-token", "mcp-bearer-token", "marked-value",
                             "base-pass-1", "git-url-token", "mcp-url-token"})
    EXPECT_TRUE(bag.contains(secret)) << secret;
  EXPECT_FALSE(bag.contains("not-a-secret"));
  EXPECT_FALSE(bag.contains("plain-value"));
  EXPECT_FALSE(bag.contains("a"));
  EXPECT_EQ(bag.size(), 10u);
}

TEST(SecretBag, IgnoresEmptyAndDuplicates) {
  SecretBag bag;
  bag.add("");
  bag.add("x1");
  bag.add("x1");
  EXPECT_EQ(bag.size(), 1u);
  SecretBag other;
  other.add("x1");
  other.add("y2");
  bag.addAll(other);
  EXPECT_EQ(bag.values(), (std::vector<std::string>{"x1", "y2"}));
}

TEST(SecretBag, CredentialHeaderNames) {
  for (const char* name : {"Authorization", "authorization", "PROXY-AUTHORIZATION", "X-Api-Key",
                           "x-api-key", "api-key"})
    EXPECT_TRUE(isCredentialHeaderName(name)) << name;
  for (const char* name : {"X-Trace", "Authorization2", "Api-Keys"})
    EXPECT_FALSE(isCredentialHeaderName(name)) << name;
}

TEST(SecretBag, UrlCredential) {
  EXPECT_EQ(urlCredential("https://user:pass@host/x"), "pass");
  EXPECT_EQ(urlCredential("https://tokenonly@host/x"), "tokenonly");
  EXPECT_EQ(urlCredential("ssh://git@github.com/o/r"), "") << "an ssh user name is not a secret";
  EXPECT_EQ(urlCredential("ssh://git:pw@github.com/o/r"), "pw");
  EXPECT_EQ(urlCredential("https://host/path@notuserinfo"), "");
  EXPECT_EQ(urlCredential("git@github.com:o/r.git"), "");
}

}  // namespace
}  // namespace abx::plugins::agents
