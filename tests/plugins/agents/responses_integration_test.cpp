// Integration: the real server with the agents plugin and the command
// adapter, agents defined in an ABX_AGENTS_CONFIG file running the fake
// agent — what the oracle suite does not cover: the group's default, auth
// spellings, ignored-parameter header, refusals, previous_response_id rules,
// Idempotency-Key, store: false, the stateless preface, the child's argv and
// environment, disconnects, replays and a restart.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kManifest =
    "plugins:\n"
    "  - name: agents\n"
    "    file: abx_agents.so\n"
    "  - name: adapter_command\n"
    "    file: abx_adapter_command.so\n";

constexpr const char* kAgents = R"(agents:
  - name: fake
    runtime: command
    command:
      argv: ["fake-agent", "--format", "jsonl-codex"]
      parser: jsonl-codex
      resume_argv: ["fake-agent", "--format", "jsonl-codex", "--resume", "{session_id}"]
    provider: {api_key: "provider-key-0123456789"}
    secrets: {AGENT_SECRET: "agent-secret-0123456789"}
    env: {PLAIN_SETTING: "visible"}
    workspace: {path: "{dir}/work"}
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "150"}
    workspace: {path: "{dir}/work"}
)";

constexpr const char* kToken = "integration-token-1234";

ServerOptions agentsServer(bool enabled = true) {
  ServerOptions o;
  o.manifest = kManifest;
  o.files["agents.yaml"] = kAgents;
  o.env["ABX_AGENTS_CONFIG"] = "{dir}/agents.yaml";
  o.env["ABX_AGENTS_STATE_DIR"] = "{dir}/state";
  o.env["ABX_SERVER_TOKEN"] = kToken;
  o.env["FAKE_AGENT_RECORD"] = "{dir}/record.jsonl";
  o.env["FAKE_AGENT_STATE_DIR"] = "{dir}/fake-state";
  o.env["PATH"] = sourceDir() + "/fake_agents:/usr/bin:/bin";
  // The child environment is an allowlist: the fake's settings pass by name.
  o.env["ABX_AGENTS_PASSTHROUGH_ENV"] = "FAKE_AGENT_RECORD,FAKE_AGENT_STATE_DIR";
  if (enabled) o.env["ABX_SERVER_ENABLED_GROUPS"] = "agents";
  return o;
}

const std::vector<std::pair<std::string, std::string>> kAuth = {
    {"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}};

Poco::JSON::Object::Ptr json(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

HttpResult post(const ServerProcess& s, const std::string& body,
                std::vector<std::pair<std::string, std::string>> headers = kAuth) {
  return http(s.port(), "POST", "/v1/responses", body, headers);
}

std::string outputText(const Poco::JSON::Object::Ptr& response) {
  std::string text;
  auto output = response->getArray("output");
  for (std::size_t i = 0; i < output->size(); ++i) {
    auto item = output->getObject(static_cast<unsigned>(i));
    if (item->getValue<std::string>("type") != "message") continue;
    auto content = item->getArray("content");
    for (std::size_t j = 0; j < content->size(); ++j)
      text += content->getObject(static_cast<unsigned>(j))->getValue<std::string>("text");
  }
  return text;
}

std::vector<std::string> recordLines(const ServerProcess& s) {
  std::ifstream in(s.dir() + "/record.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string errorCode(const HttpResult& r) {
  return json(r.body)->getObject("error")->optValue<std::string>("code", "");
}

TEST(ResponsesWire, GroupIsOffByDefault) {
  ServerProcess server(agentsServer(/*enabled=*/false));
  auto r = post(server, R"({"model":"fake","input":"hi"})");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr("endpoint_disabled"));
  EXPECT_TRUE(json(r.body)->getObject("error")->has("param"));  // the OpenAI envelope
}

TEST(ResponsesWire, AcceptsBearerAndAccessTokenAndRefusesNone) {
  ServerProcess server(agentsServer());
  EXPECT_EQ(http(server.port(), "GET", "/v1/models", "", kAuth).status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/v1/models", "", {{"X-Access-Token", kToken}}).status, 200);
  auto none = http(server.port(), "GET", "/v1/models");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(json(none.body)->getObject("error")->getValue<std::string>("type"),
            "authentication_error");
}

TEST(ResponsesWire, CompletesATurnAndNamesIgnoredParameters) {
  ServerProcess server(agentsServer());
  auto r = post(server, R"({"model":"fake","input":"hello there","temperature":0.2,"top_p":1})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json");
  EXPECT_EQ(r.headers["x-agent-sandbox-ignored-params"], "temperature,top_p");
  auto body = json(r.body);
  EXPECT_EQ(body->getValue<std::string>("status"), "completed");
  EXPECT_EQ(outputText(body), "turn 1: hello there");
  EXPECT_THAT(body->getValue<std::string>("id"), StartsWith("resp_"));
}

TEST(ResponsesWire, ChildGetsSecretsOnlyInItsEnvironment) {
  ServerProcess server(agentsServer());
  ASSERT_EQ(post(server, R"({"model":"fake","input":"check env"})").status, 200);
  auto lines = recordLines(server);
  ASSERT_EQ(lines.size(), 1u);
  auto record = json(lines[0]);
  auto env = record->getObject("env");
  EXPECT_EQ(env->optValue<std::string>("AGENT_SECRET", ""), "agent-secret-0123456789");
  EXPECT_EQ(env->optValue<std::string>("PLAIN_SETTING", ""), "visible");
  EXPECT_FALSE(env->has("ABX_SERVER_TOKEN"));
  EXPECT_FALSE(env->has("ABX_AGENTS_CONFIG"));
  EXPECT_FALSE(env->has("ABX_AGENTS_PASSTHROUGH_ENV"));
  EXPECT_TRUE(env->has("FAKE_AGENT_RECORD"));  // passed through by name
  std::ostringstream argv;
  record->getArray("argv")->stringify(argv);
  EXPECT_THAT(argv.str(), Not(HasSubstr("secret-0123456789")));
  EXPECT_THAT(argv.str(), Not(HasSubstr("provider-key")));
  EXPECT_EQ(record->getValue<std::string>("stdin"), "check env");
}

TEST(ResponsesWire, RefusesWhatAnAgentCannotDo) {
  ServerProcess server(agentsServer());
  auto image = post(server, R"({"model":"fake","input":[{"role":"user","content":[
      {"type":"input_image","image_url":"http://x/y.png"}]}]})");
  EXPECT_EQ(image.status, 400);
  EXPECT_EQ(errorCode(image), "unsupported_parameter");
  auto schema = post(server, R"({"model":"fake","input":"x",
      "text":{"format":{"type":"json_schema","name":"n","schema":{}}}})");
  EXPECT_EQ(schema.status, 400);
  EXPECT_EQ(errorCode(schema), "unsupported_parameter");
  auto choice = post(server, R"({"model":"fake","input":"x","tool_choice":"required"})");
  EXPECT_EQ(choice.status, 400);
  auto model = post(server, R"({"model":"nope","input":"x"})");
  EXPECT_EQ(model.status, 404);
  EXPECT_EQ(errorCode(model), "model_not_found");
  EXPECT_TRUE(recordLines(server).empty());  // nothing ran
}

TEST(ResponsesWire, PreviousResponseMustBeTheLatestOfItsConversation) {
  ServerProcess server(agentsServer());
  auto first = json(post(server, R"({"model":"fake","input":"one"})").body);
  const auto id1 = first->getValue<std::string>("id");
  auto second =
      post(server, R"({"model":"fake","input":"two","previous_response_id":")" + id1 + R"("})");
  ASSERT_EQ(second.status, 200);
  EXPECT_EQ(outputText(json(second.body)), "turn 2: two");
  auto branch =
      post(server, R"({"model":"fake","input":"three","previous_response_id":")" + id1 + R"("})");
  EXPECT_EQ(branch.status, 400);
  EXPECT_EQ(errorCode(branch), "previous_response_not_latest");
  auto unknown = post(server, R"({"model":"fake","input":"x","previous_response_id":"resp_0"})");
  EXPECT_EQ(unknown.status, 404);
}

TEST(ResponsesWire, IdempotencyKeyReturnsTheOriginalWithoutASecondTurn) {
  ServerProcess server(agentsServer());
  auto headers = kAuth;
  headers.emplace_back("Idempotency-Key", "key-1");
  auto a = post(server, R"({"model":"fake","input":"once"})", headers);
  auto b = post(server, R"({"model":"fake","input":"once"})", headers);
  ASSERT_EQ(a.status, 200);
  ASSERT_EQ(b.status, 200);
  EXPECT_EQ(json(a.body)->getValue<std::string>("id"), json(b.body)->getValue<std::string>("id"));
  EXPECT_EQ(recordLines(server).size(), 1u);
}

TEST(ResponsesWire, StoreFalseForgetsTheResponse) {
  ServerProcess server(agentsServer());
  auto r = json(post(server, R"({"model":"fake","input":"x","store":false})").body);
  const auto id = r->getValue<std::string>("id");
  EXPECT_EQ(r->getValue<std::string>("status"), "completed");
  EXPECT_EQ(http(server.port(), "GET", "/v1/responses/" + id, "", kAuth).status, 404);
}

TEST(ResponsesWire, StatelessCallersGetTheConversationAsAPreface) {
  ServerProcess server(agentsServer());
  auto r = post(server, R"({"model":"fake","input":[
      {"role":"system","content":"Be terse."},
      {"role":"user","content":"What is 2+2?"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"4"}]},
      {"type":"reasoning","id":"rs_1","summary":[]},
      {"role":"user","content":"And 3+3?"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto record = json(recordLines(server).at(0));
  const auto stdin_text = record->getValue<std::string>("stdin");
  EXPECT_THAT(stdin_text, HasSubstr("User: What is 2+2?"));
  EXPECT_THAT(stdin_text, HasSubstr("Assistant: 4"));
  EXPECT_THAT(stdin_text, HasSubstr("And 3+3?"));
  EXPECT_THAT(stdin_text, HasSubstr("Be terse."));  // the command adapter prefixes instructions
  EXPECT_EQ(outputText(json(r.body)), "turn 1: And 3+3?");
  auto items =
      http(server.port(), "GET",
           "/v1/responses/" + json(r.body)->getValue<std::string>("id") + "/input_items?order=asc",
           "", kAuth);
  ASSERT_EQ(items.status, 200);
  auto data = json(items.body)->getArray("data");
  EXPECT_EQ(data->size(), 4u);  // the four messages, the reasoning item dropped
}

TEST(ResponsesWire, DisconnectedStreamLeavesTheTurnRunningAndReplayStartsAtCreated) {
  ServerProcess server(agentsServer());
  const std::string body = R"({"model":"slow","input":"keep going","stream":true})";
  std::string raw = "POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                    std::string(kToken) + "\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body;
  auto partial = rawHttp(server.port(), raw, 400ms);  // reads a little, then hangs up
  auto at = partial.find("\"id\":\"resp_");
  ASSERT_NE(at, std::string::npos) << partial;
  const auto id = partial.substr(at + 6, partial.find('"', at + 6) - at - 6);
  Poco::JSON::Object::Ptr final;
  for (int i = 0; i < 200; ++i) {
    final = json(http(server.port(), "GET", "/v1/responses/" + id, "", kAuth).body);
    if (final->getValue<std::string>("status") != "in_progress") break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(final->getValue<std::string>("status"), "completed");
  auto replay = http(server.port(), "GET", "/v1/responses/" + id + "?stream=true", "", kAuth);
  ASSERT_EQ(replay.status, 200);
  EXPECT_THAT(replay.body, StartsWith("event: response.created\n"));
  EXPECT_THAT(replay.body, HasSubstr("event: response.completed\n"));
}

TEST(ResponsesWire, CancelNeedsABackgroundResponse) {
  ServerProcess server(agentsServer());
  auto id = json(post(server, R"({"model":"fake","input":"x"})").body)->getValue<std::string>("id");
  auto r = http(server.port(), "POST", "/v1/responses/" + id + "/cancel", "", kAuth);
  EXPECT_EQ(r.status, 400);
}

TEST(ResponsesWire, ResponsesSurviveARestartAndTheStateHoldsNoSecret) {
  char temp[] = "/tmp/abx-restart-XXXXXX";
  ASSERT_NE(::mkdtemp(temp), nullptr);
  const std::string dir = temp;
  std::string agents = kAgents;
  for (auto at = agents.find("{dir}"); at != std::string::npos; at = agents.find("{dir}"))
    agents.replace(at, 5, dir);
  std::ofstream(dir + "/agents.yaml") << agents;
  auto options = agentsServer();
  options.files.clear();
  options.env["ABX_AGENTS_CONFIG"] = dir + "/agents.yaml";
  options.env["ABX_AGENTS_STATE_DIR"] = dir + "/state";
  options.env["FAKE_AGENT_STATE_DIR"] = dir + "/fake-state";
  std::string id;
  {
    ServerProcess server(options);
    auto r = json(post(server, R"({"model":"fake","input":"remember me"})").body);
    id = r->getValue<std::string>("id");
  }
  std::ifstream in(dir + "/state/sessions.json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("remember me"));
  EXPECT_THAT(text.str(), Not(HasSubstr("0123456789")));
  {
    ServerProcess server(options);
    auto again = http(server.port(), "GET", "/v1/responses/" + id, "", kAuth);
    ASSERT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(outputText(json(again.body)), "turn 1: remember me");
    auto next = post(
        server, R"({"model":"fake","input":"and now","previous_response_id":")" + id + R"("})");
    ASSERT_EQ(next.status, 200) << next.body;
    EXPECT_EQ(outputText(json(next.body)), "turn 2: and now");  // resumed the CLI's session
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace abx::testing
