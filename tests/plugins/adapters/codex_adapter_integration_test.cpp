// Integration: the real server loads abx_adapter_codex.so from a manifest and
// runs `runtime: codex` turns against the fake codex (fake_agents/codex, which
// parses codex's real flags and replays the real transcripts): /v1/responses
// with previous_response_id resumes the codex thread, usage is per turn, the
// tool call is an mcp_call item, secrets reach the CLI's env only, and
// GET /v1/agents/runtimes lists codex.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using JsonObject = Poco::JSON::Object::Ptr;

constexpr const char* kToken = "codex-adapter-token-5678";
constexpr const char* kProviderKey = "sk-codex-it-provider-4411";
constexpr const char* kHeaderSecret = "codex-it-header-secret-7788";

ServerOptions codexServer() {
  ServerOptions o;
  o.manifest =
      "plugins:\n  - name: agents\n    file: abx_agents.so\n"
      "  - name: adapter_codex\n    file: abx_adapter_codex.so\n    id: abx.adapter.codex\n";
  o.files["agents.yaml"] = std::string(R"(agents:
  - name: coder
    runtime: codex
    model: stub-model
    instructions: Be careful.
    permissions: workspace_write
    provider: {base_url: "http://127.0.0.1:9/v1", api_key: ")") +
                           kProviderKey + R"("}
    mcp_servers:
      docs: {url: "http://127.0.0.1:9/mcp", headers: {Authorization: "Bearer )" +
                           kHeaderSecret + R"(", X-Plain: {value: plain, secret: false}}}
    env: {FAKE_AGENT_RECORD: "{dir}/calls.jsonl", FAKE_AGENT_STATE_DIR: "{dir}/fake-state"}
    workspace: {path: "{dir}/work"}
)";
  o.env["ABX_AGENTS_CONFIG"] = "{dir}/agents.yaml";
  o.env["ABX_AGENTS_STATE_DIR"] = "{dir}/state";
  o.env["ABX_SERVER_TOKEN"] = kToken;
  o.env["ABX_SERVER_ENABLED_GROUPS"] = "agents";
  o.env["PATH"] = sourceDir() + "/fake_agents:/usr/bin:/bin";
  return o;
}

const std::vector<std::pair<std::string, std::string>> kAuth = {
    {"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}};

JsonObject parse(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<JsonObject>();
}

std::vector<JsonObject> recordedCalls(const std::string& path) {
  std::ifstream in(path);
  std::vector<JsonObject> calls;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) calls.push_back(parse(line));
  return calls;
}

std::vector<std::string> strings(const Poco::JSON::Array::Ptr& array) {
  std::vector<std::string> out;
  for (std::size_t i = 0; array && i < array->size(); ++i)
    out.push_back(array->getElement<std::string>(i));
  return out;
}

TEST(AdapterCodex, ResponsesTurnsResumeTheThreadWithPerTurnUsage) {
  ServerProcess server(codexServer());
  auto first = http(server.port(), "POST", "/v1/responses",
                    R"({"model":"coder","input":"first prompt"})", kAuth);
  ASSERT_EQ(first.status, 200) << first.body;
  auto r1 = parse(first.body);
  EXPECT_EQ(r1->getValue<std::string>("status"), "completed") << first.body;
  EXPECT_THAT(first.body, HasSubstr("turn 1: first prompt"));
  // The replayed command_execution is a server-run tool: an mcp_call item.
  EXPECT_THAT(first.body,
              HasSubstr(R"("type":"mcp_call","server_label":"codex","name":"command_execution")"));
  EXPECT_EQ(r1->getObject("usage")->getValue<int>("input_tokens"), 10715);

  auto second = http(server.port(), "POST", "/v1/responses",
                     R"({"model":"coder","input":"second prompt","previous_response_id":")" +
                         r1->getValue<std::string>("id") + R"("})",
                     kAuth);
  ASSERT_EQ(second.status, 200) << second.body;
  auto r2 = parse(second.body);
  EXPECT_THAT(second.body, HasSubstr("turn 2: second prompt"));
  // codex printed the thread total 21954; this turn's share is the difference.
  EXPECT_EQ(r2->getObject("usage")->getValue<int>("input_tokens"), 21954 - 10715);

  auto calls = recordedCalls(server.dir() + "/calls.jsonl");
  ASSERT_EQ(calls.size(), 2u);
  auto argv1 = strings(calls[0]->getArray("argv"));
  auto argv2 = strings(calls[1]->getArray("argv"));
  EXPECT_THAT(argv1, Contains("--sandbox"));
  EXPECT_THAT(argv1, Contains("plugins"));
  EXPECT_THAT(argv1, Not(Contains("resume")));
  EXPECT_THAT(argv2, Contains("resume"));
  EXPECT_EQ(argv2.back(), "-");
  EXPECT_EQ(calls[0]->getValue<std::string>("stdin"), "first prompt");
  // The thread id the first turn printed is what the second resumed.
  const std::string thread = argv2[argv2.size() - 2];
  EXPECT_THAT(thread, ::testing::MatchesRegex("[0-9a-f-]{36}"));
  for (const auto& call : calls) {
    std::ostringstream argv;
    call->getArray("argv")->stringify(argv);
    EXPECT_THAT(argv.str(), Not(HasSubstr(kProviderKey)));
    EXPECT_THAT(argv.str(), Not(HasSubstr(kHeaderSecret)));
    auto env = call->getObject("env");
    EXPECT_EQ(env->getValue<std::string>("ABX_CODEX_PROVIDER_API_KEY"), kProviderKey);
    EXPECT_EQ(env->getValue<std::string>("ABX_CODEX_MCP_SECRET_0_0"),
              std::string("Bearer ") + kHeaderSecret);
    EXPECT_FALSE(env->has("ABX_SERVER_TOKEN"));
  }
  EXPECT_THAT(first.body + second.body, Not(HasSubstr(kProviderKey)));
}

TEST(AdapterCodex, RuntimesListsCodexInstalledFromPath) {
  ServerProcess server(codexServer());
  auto r = http(server.port(), "GET", "/v1/agents/runtimes", "", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("name":"codex")"));
  EXPECT_THAT(r.body, HasSubstr(R"("default":true,"binary":"codex")"));
  EXPECT_THAT(r.body, HasSubstr(R"("version":"codex-cli 0.169.0","experimental":false)"));
}

TEST(AdapterCodex, ChatWireApiIsRefusedAtRegistration) {
  ServerProcess server(codexServer());
  auto r = http(
      server.port(), "POST", "/v1/agents",
      R"({"name":"chatty","runtime":"codex","provider":{"base_url":"http://127.0.0.1:9/v1","wire_api":"chat"}})",
      kAuth);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(r.body, HasSubstr("use 'responses'"));
}

}  // namespace
}  // namespace abx::testing
