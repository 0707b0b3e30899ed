// Integration: what the wires tell a client about a turn beyond its items,
// on the real server with the fake agents — response.queued behind the
// concurrency cap, response.incomplete at the output limit, errors a CLI
// survives as session `error` events, a session in_progress while its turn
// waits and its usage after, the definition's agent in the session, the
// ignored-params header on a stream, the policy's fields inside a /v1
// denial, and the 400s that name what the server cannot honour.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "events-token-1234";
const auto kAuth = bearerJson(kToken);

ServerProcess eventsServer() {
  auto o = fakeAgentsServer(R"(agents:
  - name: fake
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    instructions: "Answer briefly."
    workspace: {path: "{dir}/work"}
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "300"}
    workspace: {path: "{dir}/work"}
  - name: flaky
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: auth_error}
    workspace: {path: "{dir}/work"}
  - name: capped
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-claude"], parser: jsonl-claude}
    env: {FAKE_MODE: flood, FAKE_FLOOD_EVENTS: "3000"}
    limits: {max_output_bytes: 20000}
    workspace: {path: "{dir}/work"}
)",
                            kToken);
  // One turn at a time, so a second one waits.
  o.env["ABX_AGENTS_MAX_CONCURRENT_TURNS"] = "1";
  o.files["policy.yaml"] = "endpoints:\n  responses_delete: {enabled: false}\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  return ServerProcess(o);
}

// The whole answer to a streamed POST, head and de-chunked body.
std::string streamPost(const ServerProcess& s, const std::string& path, const std::string& body) {
  return dechunked(rawHttp(
      s.port(),
      "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + kToken +
          "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\n\r\n" + body,
      20s));
}

std::string streamResponse(const ServerProcess& s, const std::string& body) {
  return streamPost(s, "/v1/responses", body);
}

// The `event:` names of an SSE text, in order.
std::vector<std::string> eventNames(const std::string& text) {
  std::vector<std::string> names;
  for (auto at = text.find("event: "); at != std::string::npos; at = text.find("event: ", at + 1))
    names.push_back(text.substr(at + 7, text.find('\n', at) - at - 7));
  return names;
}

// Starts a background turn of the slow agent, which holds the only worker for ~3 s.
void occupyTheWorker(const ServerProcess& s) {
  auto r = http(s.port(), "POST", "/v1/responses",
                R"({"model":"slow","input":"hold on","background":true})", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
}

TEST(AgentsEvents, ATurnBehindTheCapIsQueuedThenInProgress) {
  auto server = eventsServer();
  occupyTheWorker(server);
  const auto text = streamResponse(server, R"({"model":"fake","input":"hi","stream":true})");
  const auto names = eventNames(text);
  ASSERT_GE(names.size(), 4u) << text;
  EXPECT_EQ(names[0], "response.created");
  EXPECT_EQ(names[1], "response.queued");
  EXPECT_EQ(names[2], "response.in_progress");
  EXPECT_EQ(names.back(), "response.completed");
  EXPECT_THAT(text, HasSubstr(R"("type":"response.queued","sequence_number":1,)"
                              R"("response":{"id":")"));
}

TEST(AgentsEvents, AnOutputLimitStopIsResponseIncompleteWithItsReason) {
  auto server = eventsServer();
  const auto text = streamResponse(server, R"({"model":"capped","input":"go","stream":true})");
  const auto names = eventNames(text);
  ASSERT_FALSE(names.empty()) << text;
  EXPECT_EQ(names.back(), "response.incomplete");
  EXPECT_THAT(text, HasSubstr(R"("status":"incomplete")"));
  EXPECT_THAT(text, HasSubstr(R"("incomplete_details":{"reason":"max_output_tokens"})"));
  EXPECT_THAT(names, Not(::testing::Contains("response.failed")));
}

TEST(AgentsEvents, AStreamedAnswerNamesTheIgnoredParams) {
  auto server = eventsServer();
  const auto text =
      streamResponse(server, R"({"model":"fake","input":"hi","stream":true,"temperature":0.2})");
  const auto head = text.substr(0, text.find("\r\n\r\n"));
  EXPECT_THAT(head, HasSubstr("text/event-stream"));
  EXPECT_THAT(head + "\r\n", HasSubstr("\r\nX-Agent-Sandbox-Ignored-Params: temperature\r\n"));
  EXPECT_EQ(eventNames(text).back(), "response.completed");
}

std::string createSession(const ServerProcess& s, const std::string& body) {
  auto r = http(s.port(), "POST", "/v1/agents/sessions", body, kAuth);
  EXPECT_EQ(r.status, 200) << r.body;
  const auto at = r.body.find(R"("id":")");
  return at == std::string::npos ? "" : r.body.substr(at + 6, r.body.find('"', at + 6) - at - 6);
}

TEST(AgentsEvents, ErrorsTheCliSurvivesAreSessionErrorEventsBeforeTheTurnFails) {
  auto server = eventsServer();
  const auto text = streamPost(server, "/v1/agents/sessions",
                               R"({"agent_id":"flaky","input":"hi","stream":true})");
  const auto names = eventNames(text);
  const auto first_error = std::find(names.begin(), names.end(), "error");
  const auto failed = std::find(names.begin(), names.end(), "agent.session.turn.failed");
  ASSERT_NE(first_error, names.end()) << text;
  ASSERT_NE(failed, names.end()) << text;
  EXPECT_LT(first_error, failed);
  EXPECT_THAT(text, HasSubstr(R"("error":{"code":)"));
  EXPECT_THAT(text, HasSubstr(R"("param":null,"type":"agent_error"})"));
}

TEST(AgentsEvents, ASessionIsInProgressWhileItsTurnWaitsThenShowsItsUsageAndAgent) {
  auto server = eventsServer();
  occupyTheWorker(server);
  const auto id = createSession(server, R"({"agent_id":"fake","input":"hello"})");
  auto waiting = http(server.port(), "GET", "/v1/agents/sessions/" + id, "", kAuth);
  EXPECT_THAT(waiting.body, HasSubstr(R"("status":"in_progress")"));
  EXPECT_THAT(waiting.body, HasSubstr(R"("usage":null)"));
  // The agent as its turns get it: the definition's name and instructions,
  // and the model its Agent object shows (here: the runtime, none was asked for).
  EXPECT_THAT(waiting.body, HasSubstr(R"("agent":{"id":"fake","name":"fake",)"
                                      R"("instructions":"Answer briefly.","model":"command")"));
  std::string done;
  for (int i = 0; i < 300; ++i) {
    done = http(server.port(), "GET", "/v1/agents/sessions/" + id, "", kAuth).body;
    if (done.find(R"("status":"idle")") != std::string::npos) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_THAT(done, HasSubstr(R"("status":"idle")"));
  EXPECT_THAT(done, HasSubstr(R"("usage":{"input_tokens":)"));
}

TEST(AgentsEvents, ADisabledV1RouteNamesItsEndpointAndRuleInTheErrorObject) {
  auto server = eventsServer();
  auto r = http(server.port(), "DELETE", "/v1/responses/resp_abc", "", kAuth);
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr(R"("code":"endpoint_disabled","endpoint":"responses_delete",)"
                                R"("rule":")"));
}

TEST(AgentsEvents, WhatTheServerCannotHonourIsA400NamingTheField) {
  auto server = eventsServer();
  struct Case {
    const char* path;
    const char* body;
    const char* param;
  };
  const Case cases[] = {
      {"/v1/agents", R"({"model":"codex","text":{"verbosity":"high"}})", "text.verbosity"},
      {"/v1/agents", R"({"model":"codex","service_tier":"flex"})", "service_tier"},
      {"/v1/agents/sessions", R"({"agent_id":"fake","review":"auto_review"})", "review"},
      {"/v1/agents/sessions", R"({"agent_id":"fake","agent":{"multi_agent":{"enabled":true}}})",
       "agent.multi_agent"},
  };
  for (const auto& c : cases) {
    auto r = http(server.port(), "POST", c.path, c.body, kAuth);
    EXPECT_EQ(r.status, 400) << c.body << " -> " << r.body;
    EXPECT_THAT(r.body, HasSubstr(std::string(R"("param":")") + c.param)) << c.body << r.body;
  }
}

}  // namespace
}  // namespace abx::testing
