// Integration: the agents' enforced limits on the real server — the
// retention timer evicts an idle session past ABX_AGENTS_SESSION_TTL_S
// without a new session being created, a definition's limits.cpu_seconds
// ends a turn that burns CPU (RLIMIT_CPU) and the turn fails naming it, and
// the policy's limits.max_duration_seconds on responses_create and on the
// sessions' events stops a turn that would hang, naming the limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ::testing::HasSubstr;

constexpr const char* kToken = "limits-token-1234";
const auto kAuth = bearerJson(kToken);

// The fake agent (as codex speaks) under @p name, with @p extra keys.
std::string fakeAgent(const std::string& name, const std::string& extra) {
  return "  - name: " + name +
         "\n    runtime: command\n"
         "    command: {argv: [\"fake-agent\", \"--format\", \"jsonl-codex\"], parser: "
         "jsonl-codex}\n"
         "    workspace: {path: \"{dir}/work\"}\n" +
         extra;
}

ServerOptions limitsServer(const std::string& policy = {}) {
  auto o = fakeAgentsServer(
      std::string(kFakeAgentYaml) +
          fakeAgent("burn", "    env: {FAKE_MODE: burn}\n    limits: {cpu_seconds: 1}\n") +
          fakeAgent("hang", "    env: {FAKE_MODE: hang}\n    limits: {turn_timeout_s: 60}\n"),
      kToken);
  if (!policy.empty()) {
    o.files["policy.yaml"] = policy;
    o.args = {"--policy", "{dir}/policy.yaml"};
  }
  return o;
}

std::string idOf(const std::string& body) {
  const auto at = body.find(R"("id":")");
  if (at == std::string::npos) return {};
  return body.substr(at + 6, body.find('"', at + 6) - at - 6);
}

TEST(AgentsLimits, RetentionTimerEvictsAnIdleSessionWithoutANewOne) {
  auto o = limitsServer();
  o.env["ABX_AGENTS_SESSION_TTL_S"] = "1";
  ServerProcess s(o);
  auto created = http(s.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"fake","environment":{"type":"none"}})", kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  const auto id = idOf(created.body);
  const auto start = Clock::now();
  EXPECT_EQ(http(s.port(), "GET", "/v1/agents/sessions/" + id, "", kAuth).status, 200);
  // Idle longer than 1 s (whole seconds: at most 2 s), then at most one
  // timer period (250 ms) more; nothing else touches the runtime meanwhile.
  int status = 200;
  while (status == 200 && Clock::now() - start < 10s) {
    std::this_thread::sleep_for(100ms);
    status = http(s.port(), "GET", "/v1/agents/sessions/" + id, "", kAuth).status;
  }
  EXPECT_EQ(status, 404);
  EXPECT_GE(Clock::now() - start, 1s);
  EXPECT_LT(Clock::now() - start, 5s);
}

TEST(AgentsLimits, CpuSecondsEndsATurnThatBurnsCpuNamingTheLimit) {
  ServerProcess s(limitsServer());
  const auto start = Clock::now();
  auto r = http(s.port(), "POST", "/v1/responses", R"({"model":"burn","input":"spin"})", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("status":"failed")"));
  EXPECT_THAT(r.body, HasSubstr("limits.cpu_seconds (1 s of CPU time)"));
  // Ended by the CPU limit, far before the 60 s turn timeout.
  EXPECT_LT(Clock::now() - start, 30s);
}

TEST(AgentsLimits, PolicyMaxDurationStopsAResponsesTurn) {
  ServerProcess s(
      limitsServer("endpoints:\n  responses_create:\n    limits: {max_duration_seconds: 1}\n"));
  const auto start = Clock::now();
  auto r = http(s.port(), "POST", "/v1/responses", R"({"model":"hang","input":"wait"})", kAuth);
  const auto took = Clock::now() - start;
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("status":"failed")"));
  EXPECT_THAT(r.body, HasSubstr("limits.max_duration_seconds (1 s)"));
  EXPECT_GE(took, 1s);
  EXPECT_LT(took, 10s);  // not the definition's 60 s
}

TEST(AgentsLimits, PolicyMaxDurationStopsASessionTurn) {
  ServerProcess s(limitsServer(
      "endpoints:\n  agent_sessions_events_post:\n    limits: {max_duration_seconds: 1}\n"));
  auto created = http(s.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"hang","environment":{"type":"none"}})", kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  const auto id = idOf(created.body);
  auto sent = http(s.port(), "POST", "/v1/agents/sessions/" + id + "/events",
                   R"({"events":[{"type":"agent.session.input.message","input":"wait"}]})", kAuth);
  ASSERT_EQ(sent.status, 202) << sent.body;
  std::string turns;
  for (int i = 0; i < 100 && turns.find(R"("status":"failed")") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    turns = http(s.port(), "GET", "/v1/agents/sessions/" + id + "/turns", "", kAuth).body;
  }
  EXPECT_THAT(turns, HasSubstr(R"("status":"failed")"));
  EXPECT_THAT(turns, HasSubstr("limits.max_duration_seconds (1 s)"));
}

}  // namespace
}  // namespace abx::testing
