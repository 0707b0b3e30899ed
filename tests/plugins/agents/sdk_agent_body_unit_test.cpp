// The SDK's agent bodies in definition terms: the model → runtime rule, the
// translation of name, model, tools and metadata, the default-only settings
// (each refusal names its field), and the merge of an update.
#include <gtest/gtest.h>

#include <variant>

#include "definition/sdk_agent_body.h"

namespace abx::plugins::agents {
namespace {

// codex (alias "openai-codex"), claude-code (alias "claude"), command.
std::optional<std::string> runtimes(std::string_view name) {
  if (name == "codex" || name == "openai-codex") return "codex";
  if (name == "claude-code" || name == "claude") return "claude-code";
  if (name == "command") return "command";
  return std::nullopt;
}

ConfigValue json(std::string_view text) {
  auto tree = configFromJson(text);
  EXPECT_TRUE(tree) << tree.status().message();
  return tree ? *tree : ConfigValue{};
}

std::string member(const ConfigValue& v, std::string_view key) {
  const auto* m = v.find(key);
  return m ? m->text : "<absent>";
}

AgentBody translated(std::string_view body) {
  auto r = translateAgentBody(json(body), "agent_0123", &runtimes);
  if (auto* e = std::get_if<DefinitionError>(&r)) {
    ADD_FAILURE() << e->text();
    return {};
  }
  return std::get<AgentBody>(r);
}

std::string refusedAt(std::string_view body) {
  auto r = translateAgentBody(json(body), "agent_0123", &runtimes);
  auto* e = std::get_if<DefinitionError>(&r);
  return e ? e->path : "<accepted>";
}

TEST(SdkAgentModelRule, ExplicitRuntimeWins) {
  auto c = chooseRuntime("gpt-5", "claude-code", &runtimes, "codex");
  EXPECT_EQ(c.runtime, "claude-code");
  EXPECT_EQ(c.model, "gpt-5");
  // A model that names a runtime means that runtime's default model.
  c = chooseRuntime("codex", "command", &runtimes, "codex");
  EXPECT_EQ(c.runtime, "command");
  EXPECT_EQ(c.model, "");
}

TEST(SdkAgentModelRule, ARuntimeOrAliasIsThatRuntimeWithItsDefaultModel) {
  for (auto [model, runtime] : {std::pair{"codex", "codex"}, {"claude", "claude-code"}}) {
    auto c = chooseRuntime(model, "", &runtimes, "codex");
    EXPECT_EQ(c.runtime, runtime) << model;
    EXPECT_EQ(c.model, "") << model;
  }
}

TEST(SdkAgentModelRule, RuntimeSlashModelSplits) {
  auto c = chooseRuntime("claude-code/claude-sonnet-4-5", "", &runtimes, "codex");
  EXPECT_EQ(c.runtime, "claude-code");
  EXPECT_EQ(c.model, "claude-sonnet-4-5");
}

TEST(SdkAgentModelRule, AnythingElseGoesToTheDefaultRuntime) {
  for (const char* model : {"gpt-5-codex", "openai/gpt-5", "/x"}) {
    auto c = chooseRuntime(model, "", &runtimes, "codex");
    EXPECT_EQ(c.runtime, "codex") << model;
    EXPECT_EQ(c.model, model);
  }
}

TEST(SdkAgentBody, UnnamedGetsTheIdAndKeepsTheRequestedModel) {
  auto a = translated(R"({"model":"claude-code/claude-sonnet-4-5","instructions":"Be brief.",
                          "metadata":{"team":"a"}})");
  EXPECT_FALSE(a.named);
  EXPECT_EQ(a.model, "claude-code/claude-sonnet-4-5");
  EXPECT_EQ(member(a.definition, "name"), "agent_0123");
  EXPECT_EQ(member(a.definition, "runtime"), "claude-code");
  EXPECT_EQ(member(a.definition, "model"), "claude-sonnet-4-5");
  EXPECT_EQ(member(a.definition, "instructions"), "Be brief.");
  EXPECT_EQ(member(a.definition, "metadata"), "<absent>");
  EXPECT_EQ(a.metadata.at("team"), "a");
}

TEST(SdkAgentBody, NamedKeepsItsNameAndExtensionsPassThrough) {
  auto a = translated(R"({"name":"rev","runtime":"command","model":"any",
                          "command":{"argv":["x"]},"permissions":"read_only"})");
  EXPECT_TRUE(a.named);
  EXPECT_EQ(member(a.definition, "name"), "rev");
  EXPECT_EQ(member(a.definition, "runtime"), "command");
  EXPECT_EQ(member(a.definition, "model"), "any");
  EXPECT_EQ(member(a.definition, "permissions"), "read_only");
  ASSERT_NE(a.definition.find("command"), nullptr);
}

TEST(SdkAgentBody, McpToolsBecomeMcpServers) {
  auto a = translated(R"({"model":"codex","tools":[
      {"type":"mcp","server_label":"docs","transport":{"type":"http",
       "server_url":"https://mcp.example.com/mcp","headers":{"X-Team":"a"}},
       "allowed_tools":["search"],"connection_origin":"environment","required":false},
      {"type":"mcp","server_label":"fs","transport":{"type":"stdio","command":"npx",
       "args":["-y","server"],"cwd":"/workspace"}}]})");
  const auto* servers = a.definition.find("mcp_servers");
  ASSERT_NE(servers, nullptr);
  ASSERT_NE(servers->find("docs"), nullptr);
  EXPECT_EQ(member(*servers->find("docs"), "url"), "https://mcp.example.com/mcp");
  EXPECT_EQ(member(*servers->find("docs")->find("headers"), "X-Team"), "a");
  EXPECT_EQ(member(*servers->find("fs"), "command"), "npx");
}

TEST(SdkAgentBody, RefusalsNameTheField) {
  EXPECT_EQ(refusedAt(R"({"instructions":"x"})"), "model");
  EXPECT_EQ(refusedAt(R"({"model":""})"), "model");
  EXPECT_EQ(refusedAt(R"({"model":"codex","tools":[{"type":"web_search"}]})"), "tools[0].type");
  EXPECT_EQ(refusedAt(R"({"model":"codex","tools":[{"type":"mcp","server_label":"a",
                          "transport":{"type":"http","server_url":"ftp://x"}}]})"),
            "tools[0].transport.server_url");
  EXPECT_EQ(refusedAt(R"({"model":"codex","tools":[{"type":"mcp","server_label":"a",
                          "transport":{"type":"http","server_url":"http://x"},
                          "credential_id":"c"}]})"),
            "tools[0].credential_id");
  EXPECT_EQ(refusedAt(R"({"model":"codex","text":{"format":{"type":"json_schema","schema":{}}}})"),
            "text.format");
  EXPECT_EQ(refusedAt(R"({"model":"codex","text":{"verbosity":"high"}})"), "text.verbosity");
  EXPECT_EQ(refusedAt(R"({"model":"codex","service_tier":"flex"})"), "service_tier");
  EXPECT_EQ(refusedAt(R"({"model":"codex","reasoning":{"effort":"high"}})"), "reasoning.effort");
  EXPECT_EQ(refusedAt(R"({"model":"codex","compaction":{"async":false}})"), "compaction.async");
  EXPECT_EQ(refusedAt(R"({"model":"codex","multi_agent":{"enabled":true}})"),
            "multi_agent.enabled");
  EXPECT_EQ(refusedAt(R"({"model":"codex","experimental":{"time_awareness":true}})"),
            "experimental.time_awareness");
  EXPECT_EQ(refusedAt(R"({"model":"codex","metadata":{"k":1}})"), "metadata.k");
  // Wrong types are refused, not read as "all tools" or "nothing asked".
  const std::string mcp = R"({"model":"codex","tools":[{"type":"mcp","server_label":"a",)";
  EXPECT_EQ(refusedAt(mcp + R"("transport":{"type":"http","server_url":"http://x"},)"
                            R"("allowed_tools":"read"}]})"),
            "tools[0].allowed_tools");
  EXPECT_EQ(refusedAt(mcp + R"("transport":{"type":"http","server_url":"http://x"},)"
                            R"("request_metadata":"x"}]})"),
            "tools[0].request_metadata");
  EXPECT_EQ(refusedAt(mcp + R"("transport":{"type":"stdio","command":"srv","env_vars":"A"}}]})"),
            "tools[0].transport.env_vars");
}

TEST(SdkAgentBody, DefaultMeaningsAreAccepted) {
  EXPECT_EQ(refusedAt(R"({"model":"codex","text":{"format":{"type":"text"},"verbosity":"medium"},
                          "service_tier":"auto","reasoning":{"effort":null},"compaction":{},
                          "multi_agent":{"enabled":false},"experimental":{"time_awareness":false},
                          "tools":null,"metadata":null})"),
            "<accepted>");
}

TEST(SdkAgentMetadata, OpenAiLimits) {
  std::map<std::string, std::string> out;
  std::string many = "{";
  for (int i = 0; i < 17; ++i)
    many += std::string(i ? "," : "") + "\"k" + std::to_string(i) + "\":\"v\"";
  many += "}";
  EXPECT_TRUE(readMetadata(json(many), "metadata", out).has_value());
  EXPECT_TRUE(readMetadata(json("{\"" + std::string(65, 'k') + "\":\"v\"}"), "metadata", out));
  EXPECT_TRUE(readMetadata(json("{\"k\":\"" + std::string(513, 'v') + "\"}"), "metadata", out));
  EXPECT_FALSE(
      readMetadata(json("{\"" + std::string(64, 'k') + "\":\"" + std::string(512, 'v') + "\"}"),
                   "metadata", out));
  EXPECT_EQ(out.size(), 1u);
}

TEST(SdkAgentMerge, GivenReplacesNullClearsAbsentStays) {
  auto stored = json(R"({"model":"codex","instructions":"old","metadata":{"a":"1"},
                         "secrets":{"TOKEN":"s3cret"},"runtime":"codex"})");
  auto merged = mergeAgentBody(stored, json(R"({"instructions":"new","metadata":null})"));
  EXPECT_EQ(member(merged, "instructions"), "new");
  EXPECT_EQ(merged.find("metadata"), nullptr);
  EXPECT_EQ(member(merged, "runtime"), "codex");
  EXPECT_EQ(member(merged, "model"), "codex");
  ASSERT_NE(merged.find("secrets"), nullptr);
  EXPECT_EQ(member(*merged.find("secrets"), "TOKEN"), "s3cret");
  auto a = translated(R"({"model":"codex","instructions":"new"})");
  EXPECT_EQ(member(a.definition, "runtime"), "codex");
}

}  // namespace
}  // namespace abx::plugins::agents
