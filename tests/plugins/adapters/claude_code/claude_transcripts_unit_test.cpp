// Unit: the jsonl-claude parser (what the claude-code adapter's newParser()
// returns) over every real Claude Code capture in tests/data/transcripts/claude
// — the invariants each must keep, plus the captures the shared parser tests
// do not cover: default retries killed by a timeout, an unknown resume
// handle, a refused connection — and truncated or unusual result lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "claude_code_adapter.h"
#include "plugins/adapters/parsers/parser_test_support.h"

namespace abx::testing::parsers {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

const std::vector<std::string> kClaudeRuns{
    "turn1",          "turn2-resume",      "turn3-resume-notool",
    "tool-fail",      "auth-error",        "auth-error-default-retries",
    "resume-unknown", "connection-refused"};

// Runs a capture through the parser the adapter itself hands out.
std::vector<ParsedEvent> runClaude(const std::vector<std::string>& lines, int exit_code) {
  plugins::adapters::ClaudeCodeAdapter adapter(true);
  sdk::agents::TurnContext turn;
  auto parser = adapter.newParser(turn);
  std::vector<ParsedEvent> out;
  for (const auto& line : lines) parser->feed(line, out);
  parser->finish(exit_code, out);
  return out;
}

std::vector<ParsedEvent> runClaude(const std::string& run) {
  return runClaude(transcriptLines("claude", run), transcriptExitCode("claude", run));
}

TEST(ClaudeTranscripts, EveryCaptureKeepsTheParserInvariants) {
  for (const auto& run : kClaudeRuns) {
    SCOPED_TRACE(run);
    const auto lines = transcriptLines("claude", run);
    ASSERT_THAT(lines, Not(IsEmpty()));
    const int rc = transcriptExitCode("claude", run);
    auto events = runClaude(lines, rc);
    ASSERT_THAT(events, Not(IsEmpty()));
    // Exactly one result, last; success exactly when claude exited 0.
    EXPECT_THAT(ofKind(events, ParsedKind::result), SizeIs(1));
    EXPECT_EQ(events.back().kind, ParsedKind::result);
    EXPECT_EQ(events.back().ok, rc == 0);
    // Real claude output is all JSON: nothing falls through as a log line.
    EXPECT_THAT(ofKind(events, ParsedKind::log), IsEmpty());
    // At most one session, and it is the first event when there is one.
    auto sessions = ofKind(events, ParsedKind::session);
    EXPECT_LE(sessions.size(), 1u);
    if (!sessions.empty()) {
      EXPECT_EQ(events.front().kind, ParsedKind::session);
    }
    // Each full message/reasoning repeats its own deltas exactly (de-duplication).
    for (const auto& e : events) {
      if (e.kind == ParsedKind::message) {
        EXPECT_EQ(deltaText(events, e.id), e.text) << e.id;
      } else if (e.kind == ParsedKind::reasoning) {
        EXPECT_EQ(deltaText(events, e.id, ParsedKind::reasoning_delta), e.text) << e.id;
      }
    }
    // Every tool that ends was started, output before end.
    std::map<std::string, int> seen;
    for (const auto& e : events) {
      if (e.kind == ParsedKind::tool_start) {
        seen[e.id] = 1;
      } else if (e.kind == ParsedKind::tool_output || e.kind == ParsedKind::tool_end) {
        EXPECT_EQ(seen[e.id], 1) << e.id;
      }
    }
    // A failed run names a cause on a fatal error or on the result.
    if (rc != 0) {
      auto fatal = ofKind(events, ParsedKind::error);
      bool named = !events.back().code.empty();
      for (const auto& e : fatal) named = named || (e.fatal && !e.code.empty());
      EXPECT_TRUE(named);
    }
  }
}

TEST(ClaudeTranscripts, DefaultRetriesKilledByTimeoutStillNameTheAuthFailure) {
  auto events = runClaude("auth-error-default-retries");
  auto errors = ofKind(events, ParsedKind::error);
  ASSERT_THAT(errors, SizeIs(7));
  EXPECT_THAT(errors, Each(Field(&ParsedEvent::fatal, false)));
  EXPECT_THAT(errors, Each(Field(&ParsedEvent::code, "authentication_error")));
  EXPECT_THAT(errors.back().text, HasSubstr("retry 7/10"));
  // No result line (killed, exit 124): finish() reports the retried failure.
  const auto& result = events.back();
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.code, "authentication_error");
  EXPECT_THAT(result.text, HasSubstr("ended while retrying"));
  EXPECT_THAT(result.text, HasSubstr("status 401"));
}

TEST(ClaudeTranscripts, UnknownResumeHandleIsAnInvalidRequest) {
  auto events = runClaude("resume-unknown");
  // Only the result line: session_id on it is not a session event (nothing started).
  ASSERT_THAT(kinds(events), ElementsAre("usage", "error", "result"));
  EXPECT_TRUE(events[1].fatal);
  // The id holds "401"; still not an authentication_error.
  EXPECT_EQ(events[1].code, "invalid_request");
  EXPECT_EQ(events[1].text,
            "No conversation found with session ID: 4011a2b3-2222-3333-4444-555555555555");
  EXPECT_FALSE(events[2].ok);
  EXPECT_EQ(events[2].text, events[1].text);
}

TEST(ClaudeTranscripts, RefusedConnectionIsAFatalErrorNotAnAnswer) {
  auto events = runClaude("connection-refused");
  EXPECT_THAT(ofKind(events, ParsedKind::message), IsEmpty());
  auto errors = ofKind(events, ParsedKind::error);
  ASSERT_THAT(errors, SizeIs(1));
  EXPECT_TRUE(errors[0].fatal);
  EXPECT_THAT(errors[0].text, HasSubstr("Connection refused"));
  EXPECT_NE(errors[0].code, "authentication_error");
  EXPECT_FALSE(events.back().ok);
}

TEST(ClaudeTranscripts, ToolFailureKeepsObjectAndStringToolUseResults) {
  // tool_use_result is an object on success and a string on failure; both
  // reach the item through the tool_result content.
  auto ok = ofKind(runClaude("turn1"), ParsedKind::tool_end).at(0);
  EXPECT_EQ(ok.status, "completed");
  EXPECT_EQ(ok.text, "hello-from-tool");
  EXPECT_TRUE(ok.error.empty());
  auto failed = runClaude("tool-fail");
  auto output = ofKind(failed, ParsedKind::tool_output).at(0);
  auto end = ofKind(failed, ParsedKind::tool_end).at(0);
  EXPECT_EQ(output.text, end.text);
  EXPECT_THAT(end.text, HasSubstr("Exit code 2"));
  EXPECT_EQ(end.exit_code, 2);
  EXPECT_EQ(end.status, "failed");
}

TEST(ClaudeTranscripts, TruncatedFinalLineFailsTheTurnButKeepsTheAnswer) {
  auto lines = transcriptLines("claude", "turn1");
  lines.back().resize(lines.back().size() / 2);
  auto events = runClaude(lines, 0);
  EXPECT_EQ(ofKind(events, ParsedKind::message).back().text, "All done: hello-from-tool");
  EXPECT_THAT(ofKind(events, ParsedKind::log), SizeIs(1));
  EXPECT_THAT(ofKind(events, ParsedKind::usage), IsEmpty());
  EXPECT_EQ(events.back().kind, ParsedKind::result);
  EXPECT_FALSE(events.back().ok);
}

TEST(ClaudeTranscripts, UnknownEventsBetweenRealLinesAreIgnored) {
  auto lines = transcriptLines("claude", "turn3-resume-notool");
  std::vector<std::string> mixed;
  for (const auto& line : lines) {
    mixed.push_back(line);
    mixed.push_back(R"({"type":"prompt_suggestion","suggestion":"next?","session_id":"x"})");
    mixed.push_back(R"({"type":"stream_event","event":{"type":"future_event","index":9}})");
    mixed.push_back(R"({"type":"system","subtype":"hook_started","hook":"x"})");
  }
  auto plain = runClaude("turn3-resume-notool");
  EXPECT_EQ(kinds(runClaude(mixed, 0)), kinds(plain));
}

TEST(ClaudeResultLine, CacheTokensCountIntoInputAndLimitsNameThemselves) {
  auto events = runClaude(
      {R"({"type":"result","subtype":"success","is_error":false,"result":"ok","usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":50,"output_tokens":7,"output_tokens_details":{"thinking_tokens":3}}})"},
      0);
  auto usage = ofKind(events, ParsedKind::usage).at(0).usage;
  EXPECT_EQ(usage->input_tokens, 160);
  EXPECT_EQ(usage->cached_input_tokens, 100);
  EXPECT_EQ(usage->output_tokens, 7);
  EXPECT_EQ(usage->reasoning_tokens, 3);

  auto capped = runClaude(
      {R"({"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3,"usage":{}})"},
      1);
  ASSERT_THAT(kinds(capped), ElementsAre("usage", "error", "result"));
  EXPECT_EQ(capped[1].text, "the agent stopped at its max_turns limit");
  EXPECT_EQ(capped[1].code, "max_turns_exceeded");
  EXPECT_FALSE(capped[2].ok);
  // A subtype other than success fails the turn even without is_error.
  auto budget = runClaude({R"({"type":"result","subtype":"error_max_budget_usd"})"}, 1);
  EXPECT_FALSE(budget.back().ok);
  EXPECT_EQ(budget.back().text, "the agent stopped at its max_budget_usd limit");
}

}  // namespace
}  // namespace abx::testing::parsers
