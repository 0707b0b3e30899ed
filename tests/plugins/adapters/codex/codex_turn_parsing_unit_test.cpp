// Unit: the parser the codex adapter hands the runtime, on every real codex
// transcript (tests/data/transcripts/codex) played as one session: per-turn
// usage from codex's thread totals, ids unique within each turn, the model
// metadata warning not failing a turn, unknown events and a truncated last
// line tolerated; and classifyFailure() on the real auth-error run and on
// codex's other failure texts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "codex_adapter.h"
#include "plugins/adapters/parsers/parser_test_support.h"

namespace abx::plugins::adapters {
namespace {

using sdk::agents::AgentSpec;
using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;
using sdk::agents::TokenUsage;
using sdk::agents::TurnContext;
using namespace abx::testing::parsers;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kThread = "01a22b3b-0e56-7291-825e-36cc1d804451";

// One turn through CodexAdapter::newParser, as the runtime runs it.
std::vector<ParsedEvent> runTurn(const std::vector<std::string>& lines, int exit_code,
                                 const TokenUsage& earlier, bool resumed) {
  AgentSpec spec;
  spec.runtime = "codex";
  TurnContext turn;
  turn.spec = &spec;
  if (resumed) turn.native_session_id = kThread;
  turn.session_usage = earlier;
  auto parser = CodexAdapter().newParser(turn);
  std::vector<ParsedEvent> out;
  for (const auto& line : lines) parser->feed(line, out);
  parser->finish(exit_code, out);
  return out;
}

std::vector<ParsedEvent> runRecorded(const std::string& run, const TokenUsage& earlier,
                                     bool resumed) {
  return runTurn(transcriptLines("codex", run), transcriptExitCode("codex", run), earlier, resumed);
}

// What the runtime keeps as a turn's usage: the last usage-bearing event.
TokenUsage turnUsage(const std::vector<ParsedEvent>& events) {
  TokenUsage usage;
  for (const auto& e : events)
    if ((e.kind == ParsedKind::usage || e.kind == ParsedKind::result) && e.usage) usage = *e.usage;
  return usage;
}

void add(TokenUsage& sum, const TokenUsage& u) {
  sum.input_tokens += u.input_tokens;
  sum.cached_input_tokens += u.cached_input_tokens;
  sum.output_tokens += u.output_tokens;
  sum.reasoning_tokens += u.reasoning_tokens;
}

TEST(CodexTurnParsing, ThreeTurnSessionReportsEachTurnsOwnUsage) {
  // The captures are one thread: turn1, then two resumes. codex prints thread
  // totals 10715/20, 21954/40, 27752/48 (input/output).
  TokenUsage session;
  auto t1 = runRecorded("turn1", session, false);
  EXPECT_EQ(turnUsage(t1).input_tokens, 10715);
  EXPECT_EQ(turnUsage(t1).output_tokens, 20);
  EXPECT_EQ(turnUsage(t1).reasoning_tokens, 5);
  add(session, turnUsage(t1));

  auto t2 = runRecorded("turn2-resume", session, true);
  EXPECT_EQ(turnUsage(t2).input_tokens, 21954 - 10715);
  EXPECT_EQ(turnUsage(t2).output_tokens, 40 - 20);
  EXPECT_EQ(turnUsage(t2).reasoning_tokens, 5);
  ASSERT_TRUE(ofKind(t2, ParsedKind::result).at(0).usage);
  EXPECT_EQ(ofKind(t2, ParsedKind::result).at(0).usage->input_tokens, 21954 - 10715);
  add(session, turnUsage(t2));

  auto t3 = runRecorded("turn3-resume-notool", session, true);
  EXPECT_EQ(turnUsage(t3).input_tokens, 27752 - 21954);
  EXPECT_EQ(turnUsage(t3).output_tokens, 48 - 40);
  add(session, turnUsage(t3));
  // The sum of the per-turn figures is codex's final thread total.
  EXPECT_EQ(session.input_tokens, 27752);
  EXPECT_EQ(session.output_tokens, 48);
}

TEST(CodexTurnParsing, FirstTurnIgnoresSessionUsageAndTotalsNeverGoNegative) {
  TokenUsage stale;
  stale.input_tokens = 999999;
  stale.output_tokens = 999999;
  // A first turn starts a new thread: whatever the session used before is
  // not in codex's totals.
  EXPECT_EQ(turnUsage(runRecorded("turn1", stale, false)).input_tokens, 10715);
  // A resumed turn whose recorded earlier usage exceeds the totals floors at 0.
  auto t = runRecorded("turn3-resume-notool", stale, true);
  EXPECT_EQ(turnUsage(t).input_tokens, 0);
  EXPECT_EQ(turnUsage(t).output_tokens, 0);
}

TEST(CodexTurnParsing, EveryTranscriptKeepsItsThreadAndUniqueIdsPerTurn) {
  for (const char* run :
       {"turn1", "turn2-resume", "turn3-resume-notool", "tool-fail", "auth-error"}) {
    auto events = runRecorded(run, {}, std::string(run).find("resume") != std::string::npos);
    SCOPED_TRACE(run);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.front().kind, ParsedKind::session);
    // turn1 and its two resumes are one thread; the other runs are fresh ones.
    if (std::string(run).starts_with("turn")) {
      EXPECT_EQ(events.front().id, kThread);
    } else {
      EXPECT_THAT(events.front().id, ::testing::MatchesRegex("[0-9a-f-]{36}"));
      EXPECT_NE(events.front().id, kThread);
    }
    // The runtime keys items by (kind, parser id) within one turn: a message
    // and a tool never share an id, and no two tools or messages do.
    std::set<std::string> message_ids, tool_ids;
    for (const auto& e : events) {
      if (e.kind == ParsedKind::message || e.kind == ParsedKind::reasoning) {
        EXPECT_TRUE(message_ids.insert(e.id).second) << e.id;
      }
      if (e.kind == ParsedKind::tool_start) {
        EXPECT_TRUE(tool_ids.insert(e.id).second) << e.id;
      }
    }
    for (const auto& id : tool_ids) EXPECT_FALSE(message_ids.contains(id)) << id;
    EXPECT_EQ(events.back().kind, ParsedKind::result);
  }
}

TEST(CodexTurnParsing, ModelMetadataWarningDoesNotFailTheTurn) {
  for (const char* run : {"turn1", "turn2-resume", "turn3-resume-notool", "tool-fail"}) {
    auto events = runRecorded(run, {}, false);
    SCOPED_TRACE(run);
    auto errors = ofKind(events, ParsedKind::error);
    ASSERT_THAT(errors, ::testing::SizeIs(1));
    EXPECT_FALSE(errors[0].fatal);
    EXPECT_THAT(errors[0].text, HasSubstr("Model metadata for `stub-model` not found"));
    EXPECT_TRUE(events.back().ok);
  }
}

TEST(CodexTurnParsing, ToolCallAndFailedToolFromTheCaptures) {
  auto t1 = runRecorded("turn1", {}, false);
  auto start = ofKind(t1, ParsedKind::tool_start).at(0);
  EXPECT_EQ(start.tool_kind, "command");
  EXPECT_EQ(start.name, "command_execution");
  EXPECT_EQ(start.command, "/bin/bash -lc 'echo hello-from-tool'");
  auto end = ofKind(t1, ParsedKind::tool_end).at(0);
  EXPECT_EQ(end.id, start.id);
  EXPECT_EQ(end.status, "completed");
  EXPECT_EQ(end.text, "hello-from-tool\n");
  EXPECT_EQ(ofKind(t1, ParsedKind::result).at(0).text, "All done: hello-from-tool");

  auto fail = runRecorded("tool-fail", {}, false);
  auto failed = ofKind(fail, ParsedKind::tool_end).at(0);
  EXPECT_EQ(failed.status, "failed");
  EXPECT_EQ(failed.exit_code, 2);
  EXPECT_TRUE(fail.back().ok);
  EXPECT_EQ(fail.back().text, "The command failed as expected.");
}

TEST(CodexTurnParsing, RealMcpToolCallCapture) {
  // codex 0.169 with the adapter's -c mcp_servers spelling, calling a stub
  // MCP server's `lookup` tool (tests/data/transcripts/codex/mcp-tool.*).
  auto events = runRecorded("mcp-tool", {}, false);
  ASSERT_THAT(kinds(events), ElementsAre("session", "error", "message", "tool_start", "tool_end",
                                         "message", "usage", "result"));
  const auto& start = events[3];
  EXPECT_EQ(start.tool_kind, "mcp");
  EXPECT_EQ(start.server, "docs");
  EXPECT_EQ(start.name, "lookup");
  EXPECT_EQ(start.arguments, R"({"q":"answer"})");
  const auto& end = events[4];
  EXPECT_EQ(end.id, start.id);
  EXPECT_EQ(end.status, "completed");
  EXPECT_EQ(end.text, "lookup result: 42");
  EXPECT_FALSE(end.exit_code);
  EXPECT_NE(events[2].id, events[5].id);  // two messages, two items
  EXPECT_TRUE(events.back().ok);
  EXPECT_EQ(events.back().text, "All done: hello-from-tool");
}

TEST(CodexTurnParsing, UnknownEventsAndATruncatedLastLineAreTolerated) {
  auto lines = transcriptLines("codex", "turn1");
  ASSERT_GE(lines.size(), 8u);
  // A future event type in the middle, and the last line (turn.completed) cut short.
  lines.insert(lines.begin() + 3, R"({"type":"turn.plan_updated","plan":[{"step":"x"}]})");
  lines.insert(lines.begin() + 4,
               R"({"type":"item.completed","item":{"id":"item_7","type":"collab_tool_call"}})");
  std::string& last = lines.back();
  last = last.substr(0, last.size() / 2);
  auto events = runTurn(lines, 0, {}, false);
  EXPECT_THAT(kinds(events), ElementsAre("session", "error", "reasoning", "tool_start", "tool_end",
                                         "message", "log", "result"));
  EXPECT_THAT(events[6].text, HasSubstr("turn.completed"));
  // No turn.completed arrived: the turn did not finish, whatever the exit code.
  EXPECT_FALSE(events.back().ok);
  EXPECT_EQ(events.back().text, "All done: hello-from-tool");
}

TEST(CodexTurnParsing, AuthErrorTranscriptFailsWithAuthenticationError) {
  auto events = runRecorded("auth-error", {}, false);
  auto fatal = ofKind(events, ParsedKind::error).back();
  EXPECT_TRUE(fatal.fatal);
  EXPECT_EQ(fatal.code, "authentication_error");
  EXPECT_FALSE(events.back().ok);
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CodexClassifyFailure, RealAuthErrorRunIsAnAuthenticationError) {
  const std::string stderr_tail = readText(transcriptPath("codex", "auth-error.stderr.txt"));
  ASSERT_THAT(stderr_tail, HasSubstr("WARNING: proceeding"));
  // What the runtime passes: the stderr tail plus the error the CLI reported.
  auto events = runRecorded("auth-error", {}, false);
  const std::string said = stderr_tail + "\n" + ofKind(events, ParsedKind::error).back().text;
  auto info = CodexAdapter().classifyFailure(transcriptExitCode("codex", "auth-error"), said);
  EXPECT_EQ(info.code, "authentication_error");
  EXPECT_THAT(info.message, HasSubstr("401 Unauthorized"));
  EXPECT_THAT(info.message, Not(HasSubstr("PATH aliases")));
}

TEST(CodexClassifyFailure, CodexTexts) {
  CodexAdapter adapter;
  const std::string warning =
      "WARNING: proceeding, even though we could not create PATH aliases: Refusing to create "
      "helper binaries under temporary dir \"/tmp\" (codex_home: x)\n";
  auto rate = adapter.classifyFailure(
      1, warning + "exceeded retry limit, last status: 429 Too Many Requests, request id: r1");
  EXPECT_EQ(rate.code, "rate_limit_exceeded");
  EXPECT_EQ(adapter.classifyFailure(1, "Quota exceeded. Check your plan and billing details.").code,
            "rate_limit_exceeded");
  EXPECT_EQ(adapter
                .classifyFailure(1,
                                 "Codex ran out of room in the model's context window. Start a new "
                                 "thread or clear earlier history before retrying.")
                .code,
            "context_length_exceeded");
  // Resuming a thread codex no longer has (real 0.169 text).
  auto gone = adapter.classifyFailure(
      1, warning +
             "Error: thread/resume: thread/resume failed: no rollout found for thread id "
             "01a22cab-0000-7212-8865-f002170587a7 (code -32600)\n");
  EXPECT_EQ(gone.code, "invalid_request");
  EXPECT_THAT(gone.message, HasSubstr("no rollout found"));
  EXPECT_THAT(gone.message, HasSubstr("start a new session"));
  // A config error codex refuses to start with (real 0.169 text).
  EXPECT_EQ(adapter
                .classifyFailure(1,
                                 "Error loading config.toml: `wire_api = \"chat\"` is no longer "
                                 "supported.\n")
                .code,
            "invalid_request");
  auto key =
      adapter.classifyFailure(1, "Missing environment variable: `ABX_CODEX_PROVIDER_API_KEY`.");
  EXPECT_EQ(key.code, "authentication_error");
  // Only the start-up warning: an internal error that does not quote the warning.
  auto other = adapter.classifyFailure(1, warning);
  EXPECT_EQ(other.code, "internal_error");
  EXPECT_THAT(other.message, Not(HasSubstr("PATH aliases")));
  EXPECT_EQ(adapter.classifyFailure(127, "").code, "runtime_not_installed");
}

}  // namespace
}  // namespace abx::plugins::adapters
