// Credential references ({vault, credential} in a definition's secret slots)
// and session-vault MCP bearer tokens: parsing, the public view, resolution
// at resolve time (rotation, deletion), and header placement.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "agent_catalog.h"
#include "catalog_test_support.h"
#include "definition/agent_definition.h"
#include "definition/public_view.h"
#include "runtime/mcp_bearer.h"

namespace abx::plugins::agents {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kReferencing = R"({
  "name": "ref-agent",
  "runtime": "codex",
  "provider": {"api_key": {"vault": "vlt_1", "credential": "cred_key"}},
  "workspace": {"path": "/tmp/ws", "git": {"url": "https://example.com/r.git",
                "token": {"vault": "vlt_1", "credential": "cred_git"}}},
  "secrets": {"API_TOKEN": {"vault": "vlt_1", "credential": "cred_env"}, "PLAIN": "plain-secret-1"},
  "mcp_servers": {"docs": {"url": "https://mcp.example.com/mcp",
                  "headers": {"Authorization": {"vault": "vlt_1", "credential": "cred_bearer"},
                              "X-Team": "blue"}}}
})";

TEST(CredentialRefs, EverySecretSlotAcceptsAReferenceAndKeepsItsValueEmpty) {
  auto parsed = parseAgentDefinitionBody(kReferencing);
  ASSERT_TRUE(parsed.ok()) << parsed.errorText();
  std::map<std::string, std::string> slots;
  for (const auto& ref : parsed.credential_refs) slots[ref.slot] = ref.vault + "/" + ref.credential;
  EXPECT_EQ(slots, (std::map<std::string, std::string>{
                       {"provider.api_key", "vlt_1/cred_key"},
                       {"workspace.git.token", "vlt_1/cred_git"},
                       {"secrets.API_TOKEN", "vlt_1/cred_env"},
                       {"mcp_servers.docs.headers.Authorization", "vlt_1/cred_bearer"}}));
  EXPECT_EQ(parsed.spec.provider.api_key, "");
  ASSERT_EQ(parsed.spec.secrets.size(), 2u);
  EXPECT_EQ(parsed.spec.secrets[0], (std::pair<std::string, std::string>{"API_TOKEN", ""}));
  ASSERT_EQ(parsed.spec.mcp_servers.size(), 1u);
  EXPECT_TRUE(parsed.spec.mcp_servers[0].headers[0].secret);
}

TEST(CredentialRefs, ConfigFileEntriesRecordSlotsRelativeToTheDefinition) {
  auto tree = configFromYaml(R"(
agents:
  - name: a
    runtime: codex
    provider: {api_key: {vault: v, credential: c}}
)");
  ASSERT_TRUE(tree);
  auto parsed = parseAgentDefinition(tree->find("agents")->items[0], {}, "agents[0]");
  ASSERT_TRUE(parsed.ok()) << parsed.errorText();
  ASSERT_EQ(parsed.credential_refs.size(), 1u);
  EXPECT_EQ(parsed.credential_refs[0].slot, "provider.api_key");
}

TEST(CredentialRefs, AnIncompleteOrUnknownReferenceIsAnErrorAtItsPath) {
  auto missing = parseAgentDefinitionBody(
      R"({"name":"a","runtime":"codex","provider":{"api_key":{"vault":"v"}}})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.errors[0].path, "provider.api_key.credential");
  auto extra = parseAgentDefinitionBody(
      R"({"name":"a","runtime":"codex","secrets":{"K":{"vault":"v","credential":"c","x":1}}})");
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.errors[0].path, "secrets.K.x");
  // env is not a secret slot: an object there stays an error.
  auto env = parseAgentDefinitionBody(
      R"({"name":"a","runtime":"codex","env":{"K":{"vault":"v","credential":"c"}}})");
  EXPECT_FALSE(env.ok());
}

TEST(CredentialRefs, ThePublicViewShowsReferencesNotValues) {
  auto parsed = parseAgentDefinitionBody(kReferencing);
  ASSERT_TRUE(parsed.ok());
  std::ostringstream text;
  text << publicDefinitionJson(parsed.spec, parsed.credential_refs);
  EXPECT_THAT(text.str(), HasSubstr(R"("api_key":{"vault":"vlt_1","credential":"cred_key"})"));
  EXPECT_THAT(text.str(), HasSubstr(R"("token":{"vault":"vlt_1","credential":"cred_git"})"));
  EXPECT_THAT(text.str(), HasSubstr(R"("API_TOKEN":{"vault":"vlt_1","credential":"cred_env"})"));
  EXPECT_THAT(text.str(),
              HasSubstr(R"("Authorization":{"vault":"vlt_1","credential":"cred_bearer"})"));
  EXPECT_THAT(text.str(), HasSubstr(R"("PLAIN":"***")"));
  EXPECT_THAT(text.str(), Not(HasSubstr("plain-secret-1")));
}

TEST(CredentialRefs, ApplyFillsEverySlotAndMakesBearerTokensAnAuthorizationValue) {
  auto parsed = parseAgentDefinitionBody(kReferencing);
  ASSERT_TRUE(parsed.ok());
  std::map<std::string, CredentialValue> vault{
      {"cred_key", {"environment_variable", "key-value-1"}},
      {"cred_git", {"environment_variable", "git-value-1"}},
      {"cred_env", {"environment_variable", "env-value-1"}},
      {"cred_bearer", {"static_bearer", "bearer-value-1"}}};
  auto spec = parsed.spec;
  auto error = applyCredentialRefs(
      spec, parsed.credential_refs,
      [&](const std::string& v, const std::string& c) -> std::optional<CredentialValue> {
        if (v != "vlt_1" || !vault.count(c)) return std::nullopt;
        return vault.at(c);
      });
  ASSERT_FALSE(error) << *error;
  EXPECT_EQ(spec.provider.api_key, "key-value-1");
  EXPECT_EQ(spec.workspace.git->token, "git-value-1");
  EXPECT_EQ(spec.secrets[0].second, "env-value-1");
  EXPECT_EQ(spec.mcp_servers[0].headers[0].value, "Bearer bearer-value-1");

  vault.erase("cred_git");
  auto again = parsed.spec;
  auto gone = applyCredentialRefs(
      again, parsed.credential_refs,
      [&](const std::string&, const std::string& c) -> std::optional<CredentialValue> {
        if (!vault.count(c)) return std::nullopt;
        return vault.at(c);
      });
  ASSERT_TRUE(gone);
  EXPECT_THAT(*gone, HasSubstr("'cred_git'"));
  EXPECT_THAT(*gone, HasSubstr("workspace.git.token"));
}

TEST(CredentialRefs, TheCatalogResolvesThemOnEveryResolveSoRotationAndDeletionShow) {
  auto parsed = parseAgentDefinitionBody(
      R"({"name":"r","runtime":"fake","secrets":{"TOKEN":{"vault":"v","credential":"c"}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.errorText();
  std::optional<std::string> current = "first-value-1";
  OneAdapterRegistry services;
  AgentCatalog catalog(
      services, true,
      [&](const std::string&, const std::string&) -> std::optional<CredentialValue> {
        if (!current) return std::nullopt;
        return CredentialValue{"environment_variable", *current};
      });
  catalog.put(parsed.spec, 1, parsed.credential_refs);
  EXPECT_EQ(catalog.definition("r")->credential_refs.size(), 1u);
  EXPECT_EQ(catalog.definition("r")->spec.secrets[0].second, "");  // never stored
  std::string why;
  auto first = catalog.resolve("r", why);
  ASSERT_NE(first, nullptr) << why;
  EXPECT_EQ(first->spec.secrets[0].second, "first-value-1");
  EXPECT_EQ(first->redaction->redact("x first-value-1 y"), "x [REDACTED] y");
  current = "second-value-2";  // rotated: the next turn sees the new value
  auto second = catalog.resolve("r", why);
  ASSERT_NE(second, nullptr) << why;
  EXPECT_EQ(second->spec.secrets[0].second, "second-value-2");
  current.reset();  // deleted: the next turn fails with a message naming it
  EXPECT_EQ(catalog.resolve("r", why), nullptr);
  EXPECT_THAT(why, HasSubstr("'c' of vault 'v'"));
}

TEST(McpBearer, ATokenReplacesTheAuthorizationOfTheServerItsUrlNames) {
  std::vector<sdk::agents::McpServerSpec> servers(3);
  servers[0].name = "a";
  servers[0].url = "https://mcp.example.com/mcp/";
  servers[0].headers = {{"authorization", "Bearer old", true}, {"X-Team", "blue", false}};
  servers[1].name = "b";
  servers[1].url = "https://other.example.com/mcp";
  servers[2].name = "local";
  servers[2].command = "mcp-server";
  auto applied = applyMcpBearers(servers, {{"https://mcp.example.com/mcp", "tok-123456"}});
  EXPECT_EQ(applied, 1u);
  ASSERT_EQ(servers[0].headers.size(), 2u);
  EXPECT_EQ(servers[0].headers[0].name, "X-Team");
  EXPECT_EQ(servers[0].headers[1].name, "Authorization");
  EXPECT_EQ(servers[0].headers[1].value, "Bearer tok-123456");
  EXPECT_TRUE(servers[0].headers[1].secret);
  EXPECT_TRUE(servers[1].headers.empty());
  EXPECT_TRUE(servers[2].headers.empty());
}

}  // namespace
}  // namespace abx::plugins::agents
