// The public "***" view: every secret is masked, nothing secret survives
// anywhere in the serialised text, and non-secret fields are shown as given.
#include <gtest/gtest.h>

#include <sstream>

#include "definition/agent_definition.h"
#include "definition/config_tree.h"
#include "definition/public_view.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

TEST(PublicView, MasksEverySecretValue) {
  auto r = parseAgentDefinitionBody(R"({
    "name": "rev", "runtime": "codex", "model": "m1",
    "provider": {"base_url": "https://u:base-pass-1@llm.example/v1", "api_key": "api-key-value"},
    "workspace": {"git": {"url": "https://tok-in-url-1@github.com/o/r", "ref": "main",
                          "token": "git-token-value"}},
    "env": {"PUBLIC": "shown"},
    "secrets": {"NPM_TOKEN": "npm-token-value"},
    "mcp_servers": {
      "docs": {"url": "https://mcp.example/x",
               "headers": {"Authorization": "Bearer mcp-bearer-token", "X-Plain": "plain"}},
      "fs": {"command": "npx", "args": ["-y", "server"]}},
    "limits": {"cpu_seconds": 10, "turn_timeout_s": null}
  })");
  ASSERT_TRUE(r.ok()) << r.errorText();
  const std::string json = publicDefinitionJson(r.spec);
  const SecretBag bag = SecretBag::of(r.spec);
  ASSERT_EQ(bag.size(), 7u);
  for (const auto& secret : bag.values())
    EXPECT_EQ(json.find(secret), std::string::npos) << secret << " leaked: " << json;

  auto view = configFromJson(json);
  ASSERT_TRUE(view) << json;
  EXPECT_EQ(view->find("name")->text, "rev");
  EXPECT_EQ(view->find("provider")->find("api_key")->text, "***");
  EXPECT_EQ(view->find("provider")->find("base_url")->text, "https://u:***@llm.example/v1");
  EXPECT_EQ(view->find("workspace")->find("git")->find("token")->text, "***");
  EXPECT_EQ(view->find("workspace")->find("git")->find("url")->text, "https://***@github.com/o/r");
  EXPECT_EQ(view->find("env")->find("PUBLIC")->text, "shown");
  EXPECT_EQ(view->find("secrets")->find("NPM_TOKEN")->text, "***");
  const auto* docs = view->find("mcp_servers")->find("docs");
  EXPECT_EQ(docs->find("headers")->find("Authorization")->text, "***");
  EXPECT_EQ(docs->find("headers")->find("X-Plain")->text, "plain");
  EXPECT_EQ(view->find("mcp_servers")->find("fs")->find("args")->items.size(), 2u);
  EXPECT_EQ(view->find("permissions")->text, "full_access");
  EXPECT_EQ(view->find("limits")->find("cpu_seconds")->integer, 10);
  EXPECT_EQ(view->find("limits")->find("turn_timeout_s")->kind, ConfigValue::Kind::null);
  EXPECT_EQ(view->find("command"), nullptr);
}

TEST(PublicView, AbsentSecretsAreNull) {
  auto r = parseAgentDefinitionBody(R"({"name": "a", "runtime": "codex"})");
  ASSERT_TRUE(r.ok());
  auto view = configFromJson(publicDefinitionJson(r.spec));
  ASSERT_TRUE(view);
  EXPECT_EQ(view->find("provider")->find("api_key")->kind, ConfigValue::Kind::null);
  EXPECT_EQ(view->find("workspace")->find("git")->kind, ConfigValue::Kind::null);
  EXPECT_EQ(view->find("workspace")->find("path")->text, "/workspace");
}

TEST(PublicView, ShowsTheCommandOfACommandRuntime) {
  auto r = parseAgentDefinitionBody(
      R"({"name": "a", "runtime": "command", "command": {"argv": ["x", "--json"]}})");
  ASSERT_TRUE(r.ok()) << r.errorText();
  auto view = configFromJson(publicDefinitionJson(r.spec));
  ASSERT_TRUE(view);
  EXPECT_EQ(view->find("command")->find("parser")->text, "text");
  EXPECT_EQ(view->find("command")->find("argv")->items.size(), 2u);
}

TEST(PublicView, MaskUrlCredential) {
  EXPECT_EQ(maskUrlCredential("https://a:b@h/p"), "https://a:***@h/p");
  EXPECT_EQ(maskUrlCredential("https://h/p"), "https://h/p");
  EXPECT_EQ(maskUrlCredential("ssh://git@h/p"), "ssh://git@h/p");
}

TEST(PublicView, McpServersAsAgentsApiTools) {
  auto r = parseAgentDefinitionBody(R"({"name": "a", "runtime": "codex",
    "mcp_servers": {
      "docs": {"url": "https://mcp.example/x", "allowed_tools": ["search"],
               "headers": {"Authorization": "Bearer tok-12345678", "X-Plain": "plain-value"}},
      "fs": {"command": "npx", "args": ["server"]}}})");
  ASSERT_TRUE(r.ok()) << r.errorText();
  std::ostringstream text;
  text << publicMcpToolsJson(r.spec);
  EXPECT_EQ(text.str().find("tok-12345678"), std::string::npos);
  EXPECT_EQ(text.str().find("plain-value"), std::string::npos) << "header names only";
  auto tools = configFromJson(text.str());
  ASSERT_TRUE(tools) << text.str();
  ASSERT_EQ(tools->items.size(), 2u);
  const auto& docs = tools->items[0];
  EXPECT_EQ(docs.find("type")->text, "mcp");
  EXPECT_EQ(docs.find("server_label")->text, "docs");
  EXPECT_EQ(docs.find("transport")->find("type")->text, "http");
  EXPECT_EQ(docs.find("transport")->find("headers")->find("Authorization")->text, "***");
  EXPECT_EQ(docs.find("allowed_tools")->items.at(0).text, "search");
  EXPECT_EQ(docs.find("credential_id")->kind, ConfigValue::Kind::null);
  const auto& fs = tools->items[1];
  EXPECT_EQ(fs.find("transport")->find("type")->text, "stdio");
  EXPECT_EQ(fs.find("transport")->find("command")->text, "npx");
  EXPECT_EQ(fs.find("transport")->find("cwd")->text, "/workspace");
  EXPECT_EQ(fs.find("allowed_tools")->kind, ConfigValue::Kind::null);
}

}  // namespace
}  // namespace abx::plugins::agents
