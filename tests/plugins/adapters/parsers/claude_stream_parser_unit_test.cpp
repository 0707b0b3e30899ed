// Unit: the "jsonl-claude" parser against real Claude Code and Qwen Code
// stream-json transcripts (tests/data/transcripts/{claude,qwen}) and against
// lines it must tolerate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "parser_test_support.h"

namespace abx::testing::parsers {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// thinking (3 deltas) + text (3 deltas) + tool call, tool result, text (3 deltas), result
const std::vector<std::string> kToolTurn{
    "session",     "reasoning_delta", "reasoning_delta", "reasoning_delta", "reasoning",
    "text_delta",  "text_delta",      "text_delta",      "message",         "tool_start",
    "tool_output", "tool_end",        "text_delta",      "text_delta",      "text_delta",
    "message",     "usage",           "result"};

TEST(ClaudeStreamParser, ClaudeTurn1StreamsAndDeduplicatesEveryBlock) {
  auto events = runTranscript("jsonl-claude", "claude", "turn1");
  ASSERT_THAT(kinds(events), ElementsAreArray(kToolTurn));
  EXPECT_EQ(events[0].id, "f3fea605-0a18-412b-926b-67b565ed94ac");

  // Deltas and the assistant line's full block share one item id.
  EXPECT_EQ(events[4].id, "msg_stub_0001:0");
  EXPECT_EQ(deltaText(events, "msg_stub_0001:0", ParsedKind::reasoning_delta), events[4].text);
  EXPECT_EQ(events[8].id, "msg_stub_0001:1");
  EXPECT_EQ(events[8].text, "I'll run the command now.");
  EXPECT_EQ(deltaText(events, "msg_stub_0001:1"), events[8].text);

  const auto& start = events[9];
  EXPECT_EQ(start.id, "toolu_stub_0001");
  // The wire's name for a shell tool (agents spec §6.3), not Claude's "Bash".
  EXPECT_EQ(start.name, "command_execution");
  EXPECT_EQ(start.tool_kind, "command");
  EXPECT_EQ(start.command, "echo hello-from-tool");
  EXPECT_EQ(start.arguments,
            R"({"command":"echo hello-from-tool","description":"Print hello-from-tool"})");
  EXPECT_EQ(events[10].id, "toolu_stub_0001");
  EXPECT_EQ(events[10].text, "hello-from-tool");
  const auto& end = events[11];
  EXPECT_EQ(end.id, "toolu_stub_0001");
  EXPECT_EQ(end.status, "completed");
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.text, "hello-from-tool");

  EXPECT_EQ(events[15].id, "msg_stub_0002:0");
  EXPECT_EQ(events[15].text, "All done: hello-from-tool");
  ASSERT_TRUE(events[16].usage);
  EXPECT_EQ(events[16].usage->input_tokens, 9250);
  EXPECT_EQ(events[16].usage->output_tokens, 34);
  EXPECT_THAT(events[16].usage->cost_usd, DoubleNear(0.03768, 1e-9));
  EXPECT_TRUE(events[17].ok);
  EXPECT_EQ(events[17].text, "All done: hello-from-tool");
  EXPECT_EQ(events[17].stop_reason, "end_turn");
}

TEST(ClaudeStreamParser, ClaudeResumeKeepsSessionAndCostIsPerInvocation) {
  auto turn2 = runTranscript("jsonl-claude", "claude", "turn2-resume");
  EXPECT_EQ(turn2.front().id, "f3fea605-0a18-412b-926b-67b565ed94ac");
  auto usage = ofKind(turn2, ParsedKind::usage).at(0).usage;
  EXPECT_EQ(usage->input_tokens, 9594);
  // total_cost_usd is 0.0767 (whole session); this turn alone cost 0.0391.
  EXPECT_THAT(usage->cost_usd, DoubleNear(0.039056, 1e-6));

  auto turn3 = runTranscript("jsonl-claude", "claude", "turn3-resume-notool");
  EXPECT_THAT(ofKind(turn3, ParsedKind::tool_start), IsEmpty());
  EXPECT_EQ(ofKind(turn3, ParsedKind::message).back().text,
            "Resumed fine; no tool needed this time.");
  EXPECT_TRUE(turn3.back().ok);
}

TEST(ClaudeStreamParser, ClaudeFailedToolReportsExitCode) {
  auto events = runTranscript("jsonl-claude", "claude", "tool-fail");
  auto end = ofKind(events, ParsedKind::tool_end).at(0);
  EXPECT_EQ(end.status, "failed");
  EXPECT_EQ(end.exit_code, 2);
  EXPECT_THAT(end.error, HasSubstr("cannot access '/nonexistent-stub-dir'"));
  EXPECT_EQ(ofKind(events, ParsedKind::message).back().text, "The command failed as expected.");
  EXPECT_TRUE(events.back().ok);
}

TEST(ClaudeStreamParser, ClaudeAuthErrorIsAFatalErrorNotAMessage) {
  auto events = runTranscript("jsonl-claude", "claude", "auth-error");
  ASSERT_THAT(kinds(events), ElementsAre("session", "error", "error", "error", "usage", "result"));
  EXPECT_FALSE(events[1].fatal);  // api_retry
  EXPECT_EQ(events[1].code, "authentication_error");
  EXPECT_TRUE(events[3].fatal);
  EXPECT_EQ(events[3].code, "authentication_error");
  EXPECT_EQ(events[3].text, "Invalid API key · Fix external API key");
  // subtype is "success" but is_error is true: the turn failed.
  EXPECT_FALSE(events[5].ok);
  EXPECT_EQ(events[5].text, "Invalid API key · Fix external API key");
}

TEST(ClaudeStreamParser, QwenTurn1GivesEachBlockItsOwnItem) {
  auto events = runTranscript("jsonl-claude", "qwen", "turn1");
  ASSERT_THAT(kinds(events), ElementsAreArray(kToolTurn));
  EXPECT_EQ(events[0].id, "6f054dbc-73ef-4a08-ab28-fcdee771da5a");
  // Qwen sends block index 0 for every block; ids still differ per block.
  EXPECT_EQ(events[4].id, "2809b764-f143-4b02-9ce7-5f3891b1935e:0");
  EXPECT_EQ(events[8].id, "2809b764-f143-4b02-9ce7-5f3891b1935e:1");
  EXPECT_EQ(events[8].text, "I'll run the command now.");
  EXPECT_EQ(deltaText(events, events[8].id), events[8].text);
  EXPECT_EQ(events[9].name, "command_execution");
  EXPECT_EQ(events[9].tool_kind, "command");
  EXPECT_EQ(events[9].command, "echo hello-from-tool");
  EXPECT_EQ(events[11].exit_code, 0);
  EXPECT_EQ(events[15].text, "All done: hello-from-tool");
  EXPECT_EQ(events[16].usage->input_tokens, 18764);
  EXPECT_EQ(events[16].usage->output_tokens, 28);
  EXPECT_TRUE(events[17].ok);
  EXPECT_EQ(events[17].stop_reason, "success");
}

TEST(ClaudeStreamParser, QwenResumeAndFailedTool) {
  auto turn2 = runTranscript("jsonl-claude", "qwen", "turn2-resume");
  EXPECT_EQ(turn2.front().id, "6f054dbc-73ef-4a08-ab28-fcdee771da5a");
  EXPECT_TRUE(turn2.back().ok);
  auto fail = runTranscript("jsonl-claude", "qwen", "tool-fail");
  auto end = ofKind(fail, ParsedKind::tool_end).at(0);
  EXPECT_EQ(end.status, "failed");
  EXPECT_EQ(end.exit_code, 2);
  EXPECT_THAT(end.text, StartsWith("Command: ls /nonexistent-stub-dir"));
}

TEST(ClaudeStreamParser, QwenApiErrorTextNeverReachesTheReply) {
  auto events = runTranscript("jsonl-claude", "qwen", "auth-error");
  ASSERT_THAT(kinds(events), ElementsAre("session", "error", "usage", "result"));
  EXPECT_TRUE(events[1].fatal);
  EXPECT_EQ(events[1].code, "authentication_error");
  EXPECT_THAT(events[1].text, StartsWith("[API Error: 401"));
  EXPECT_FALSE(events[3].ok);
  EXPECT_EQ(events[3].stop_reason, "error_during_execution");
}

TEST(ClaudeStreamParser, TextThatOnlyStartsLikeAnErrorIsReleased) {
  auto events = runParser(
      "jsonl-claude",
      {R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}})",
       R"({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}})",
       R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"[API"}}})",
       R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" docs] are"}}})",
       R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" here"}}})"},
      0);
  // Held while it could be "[API Error", then released as one delta.
  ASSERT_THAT(kinds(events), ElementsAre("text_delta", "text_delta", "message", "result"));
  EXPECT_EQ(events[0].text, "[API docs] are");
  EXPECT_EQ(events[1].text, " here");
  // No assistant line and no result: finish() closes the text and fails the turn.
  EXPECT_EQ(events[2].id, "m1:0");
  EXPECT_EQ(events[2].text, "[API docs] are here");
  EXPECT_FALSE(events[3].ok);
}

TEST(ClaudeStreamParser, WithoutPartialMessagesAssistantLinesCarryEverything) {
  std::vector<std::string> lines;
  for (auto& line : transcriptLines("claude", "turn1"))
    if (line.find(R"("type":"stream_event")") == std::string::npos) lines.push_back(line);
  auto events = runParser("jsonl-claude", lines, 0);
  ASSERT_THAT(kinds(events), ElementsAre("session", "reasoning", "message", "tool_start",
                                         "tool_output", "tool_end", "message", "usage", "result"));
  EXPECT_EQ(events[1].id, "msg_stub_0001:0");
  EXPECT_EQ(events[2].id, "msg_stub_0001:1");
  EXPECT_EQ(events[6].id, "msg_stub_0002:0");
}

TEST(ClaudeStreamParser, ToleratesNoiseUnknownTypesAndTruncatedLines) {
  auto events =
      runParser("jsonl-claude",
                {"Ripgrep not available", R"({"type":"system","subtype":"init","session_id":"s1"})",
                 R"({"type":"rate_limit_event","info":{}})",
                 R"({"type":"stream_event","event":{"type":"goal_state"}})",
                 R"({"type":"system","subtype":"init","session_id":"s2"})",
                 R"({"type":"assistant","message":{"id":"m1","content":[{"type":"text","te)",
                 R"({"type":"result","subtype":"success","is_error":false,"result":"ok"})"},
                0);
  ASSERT_THAT(kinds(events), ElementsAre("log", "session", "log", "usage", "result"));
  EXPECT_EQ(events[1].id, "s1");
  EXPECT_TRUE(events[4].ok);
  EXPECT_EQ(events[4].text, "ok");
}

TEST(ClaudeStreamParser, McpToolNamesSplitIntoServerAndTool) {
  auto events = runParser(
      "jsonl-claude",
      {R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"mcp__docs__search","input":{"q":"x"}}]}})",
       R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"hit"}],"is_error":false}]}})"},
      0);
  ASSERT_THAT(kinds(events), ElementsAre("tool_start", "tool_output", "tool_end", "result"));
  EXPECT_EQ(events[0].tool_kind, "mcp");
  EXPECT_EQ(events[0].server, "docs");
  EXPECT_EQ(events[0].name, "search");
  EXPECT_EQ(events[0].arguments, R"({"q":"x"})");
  EXPECT_EQ(events[2].text, "hit");
  EXPECT_FALSE(events[2].exit_code);  // not a shell tool
}

TEST(ClaudeStreamParser, ATurnHasOneFatalErrorAndAnOpenThinkingBlockClosesAtTheEnd) {
  auto events = runParser(
      "jsonl-claude",
      {R"({"type":"assistant","error":"authentication_failed","message":{"id":"m1","content":[{"type":"text","text":"Invalid API key"}]}})",
       R"({"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"[API Error: 401]"}]}})",
       R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}})"},
      1);
  ASSERT_THAT(kinds(events), ElementsAre("error", "reasoning_delta", "reasoning", "result"));
  EXPECT_EQ(events[0].code, "authentication_error");
  EXPECT_EQ(events[2].id, events[1].id);
  EXPECT_EQ(events[2].text, "Let me");
  EXPECT_FALSE(events[3].ok);
}

}  // namespace
}  // namespace abx::testing::parsers
