// Integration: the real server loads abx_adapter_claude_code.so — from a
// manifest entry and from ABX_AGENTS_ADAPTER_MODULES — lists it in GET
// /v1/agents/runtimes, and runs `runtime: claude-code` turns with
// fake_agents/claude (which records its argv, env and stdin and replays the
// real Claude Code transcripts): first turn, resume, and the real auth-error
// capture surfacing as authentication_error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "claude-integration-token";
constexpr const char* kApiKey = "sk-ant-integration-secret-4242";

ServerOptions claudeServer(bool via_adapter_modules) {
  ServerOptions o;
  o.manifest = "plugins:\n  - name: agents\n    file: abx_agents.so\n";
  if (via_adapter_modules)
    o.env["ABX_AGENTS_ADAPTER_MODULES"] = "abx_adapter_claude_code.so";
  else
    *o.manifest +=
        "  - name: adapter_claude_code\n    file: abx_adapter_claude_code.so\n"
        "    id: abx.adapter.claude_code\n";
  o.files["agents.yaml"] = std::string(R"(agents:
  - name: cc
    runtime: claude-code
    model: claude-sonnet-4-5
    instructions: Be brief.
    provider: {base_url: "http://127.0.0.1:9/v1", api_key: ")") +
                           kApiKey + R"("}
    workspace: {path: "{dir}/work"}
    env: {FAKE_AGENT_RECORD: "{dir}/record.jsonl", FAKE_AGENT_STATE_DIR: "{dir}/fake-state"}
  - name: cc-bad-key
    runtime: claude
    provider: {api_key: "sk-ant-revoked-key-777"}
    workspace: {path: "{dir}/work"}
    env: {FAKE_MODE: auth_error}
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

std::vector<std::string> recordLines(const ServerProcess& server) {
  std::ifstream in(server.dir() + "/record.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string responseId(const std::string& body) {
  std::smatch m;
  return std::regex_search(body, m, std::regex(R"re("id":"(resp_[^"]+)")re")) ? m[1].str() : "";
}

TEST(AdapterClaudeCode, ManifestEntryListsTheRuntime) {
  ServerProcess server(claudeServer(false));
  auto r = http(server.port(), "GET", "/v1/agents/runtimes", "", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("name":"claude-code","aliases":["claude"])"));
  // fake_agents/claude answers --version like the real CLI.
  EXPECT_THAT(r.body, HasSubstr(R"j("version":"2.1.328 (Claude Code)","experimental":false)j"));
}

TEST(AdapterClaudeCode, AdapterModulesEnvLoadsItToo) {
  ServerProcess server(claudeServer(true));
  auto r = http(server.port(), "GET", "/v1/agents/runtimes", "", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("name":"claude-code")"));
}

TEST(AdapterClaudeCode, TwoTurnsResumeTheSameClaudeSession) {
  ServerProcess server(claudeServer(false));
  auto first = http(server.port(), "POST", "/v1/responses",
                    R"({"model":"cc","input":"first question"})", kAuth);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_THAT(first.body, HasSubstr(R"("status":"completed")"));
  EXPECT_THAT(first.body, HasSubstr("turn 1: first question"));
  EXPECT_THAT(
      first.body,
      HasSubstr(R"("type":"mcp_call","server_label":"claude-code","name":"command_execution")"));
  EXPECT_THAT(first.body, Not(HasSubstr(kApiKey)));

  auto second = http(server.port(), "POST", "/v1/responses",
                     R"({"model":"cc","input":"second question","previous_response_id":")" +
                         responseId(first.body) + R"("})",
                     kAuth);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_THAT(second.body, HasSubstr("turn 2: second question"));

  auto calls = recordLines(server);
  ASSERT_EQ(calls.size(), 2u);
  // First turn: the adapter's argv, the prompt on stdin, credentials in env only.
  EXPECT_THAT(calls[0],
              HasSubstr(R"("argv": [")" + sourceDir() +
                        R"(/fake_agents/claude", "-p", "--output-format", "stream-json", )"
                        R"("--verbose", "--include-partial-messages", "--permission-mode", )"
                        R"("bypassPermissions", "--model", "claude-sonnet-4-5", )"
                        R"("--append-system-prompt", "Be brief."])"));
  EXPECT_THAT(calls[0], HasSubstr(R"("stdin": "first question")"));
  EXPECT_THAT(calls[0], HasSubstr(std::string(R"("ANTHROPIC_API_KEY": ")") + kApiKey + "\""));
  EXPECT_THAT(calls[0], HasSubstr(R"("ANTHROPIC_BASE_URL": "http://127.0.0.1:9")"));
  EXPECT_THAT(calls[0], HasSubstr(R"("CLAUDE_CODE_MAX_RETRIES": "2")"));
  EXPECT_THAT(calls[0], HasSubstr(R"("DISABLE_TELEMETRY": "1")"));
  // Second turn: --resume with the session id the first turn's init reported.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(calls[1], m, std::regex(R"re("--resume", "([0-9a-f-]{36})")re")))
      << calls[1];
  EXPECT_THAT(calls[1], HasSubstr(R"("stdin": "second question")"));
}

TEST(AdapterClaudeCode, RealAuthErrorCaptureIsAnAuthenticationError) {
  ServerProcess server(claudeServer(false));
  auto r = http(server.port(), "POST", "/v1/responses",
                R"({"model":"cc-bad-key","input":"anything"})", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("status":"failed")"));
  EXPECT_THAT(r.body, HasSubstr(R"("code":"authentication_error")"));
  EXPECT_THAT(r.body, HasSubstr("Invalid API key"));
}

}  // namespace
}  // namespace abx::testing
