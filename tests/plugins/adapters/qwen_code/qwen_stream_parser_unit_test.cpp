// Unit: QwenStreamParser against every real Qwen Code 0.24.4 transcript in
// tests/data/transcripts/qwen, per-turn usage from session totals, the
// "[API Error" hold-back, unknown events and truncated lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../parsers/parser_test_support.h"
#include "qwen_stream_parser.h"

namespace abx::testing::parsers {
namespace {

using plugins::adapters::QwenStreamParser;
using sdk::agents::TokenUsage;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr const char* kSession = "6f054dbc-73ef-4a08-ab28-fcdee771da5a";

TokenUsage usage(std::int64_t in, std::int64_t out) {
  TokenUsage u;
  u.input_tokens = in;
  u.output_tokens = out;
  return u;
}

std::vector<ParsedEvent> runQwen(const std::vector<std::string>& lines, int exit_code,
                                 std::optional<std::string> resumed = std::nullopt,
                                 TokenUsage earlier = {}) {
  QwenStreamParser parser(std::move(resumed), earlier);
  std::vector<ParsedEvent> out;
  for (const auto& line : lines) parser.feed(line, out);
  parser.finish(exit_code, out);
  return out;
}

std::vector<ParsedEvent> runQwen(const std::string& run, std::optional<std::string> resumed = {},
                                 TokenUsage earlier = {}) {
  return runQwen(transcriptLines("qwen", run), transcriptExitCode("qwen", run), std::move(resumed),
                 earlier);
}

// thinking (3 deltas) + text (3 deltas) + tool call, tool result, text (3 deltas), result
const std::vector<std::string> kToolTurn{
    "session",    "reasoning_delta", "reasoning_delta", "reasoning_delta", "reasoning",
    "text_delta", "text_delta",      "text_delta",      "message",         "tool_start",
    "tool_end",   "text_delta",      "text_delta",      "text_delta",      "message",
    "usage",      "result"};

TEST(QwenStreamParser, Turn1StreamsEveryBlockOnceUnderOneIdEach) {
  auto events = runQwen("turn1");
  ASSERT_THAT(kinds(events), ElementsAreArray(kToolTurn));
  EXPECT_EQ(events[0].id, kSession);
  // Every block has index 0; ids count the blocks of the API message instead.
  const std::string first = "2809b764-f143-4b02-9ce7-5f3891b1935e";
  EXPECT_EQ(events[4].id, first + ":0");
  EXPECT_EQ(events[4].text,
            "The user wants me to run a shell command. I will call the shell tool.");
  EXPECT_EQ(deltaText(events, first + ":0", ParsedKind::reasoning_delta), events[4].text);
  EXPECT_EQ(events[8].id, first + ":1");
  EXPECT_EQ(events[8].text, "I'll run the command now.");
  EXPECT_EQ(deltaText(events, first + ":1"), events[8].text);

  const auto& start = events[9];
  EXPECT_EQ(start.id, "call_stub_0001");
  EXPECT_EQ(start.name, "command_execution");  // the wire name (agents spec §6.3)
  EXPECT_EQ(start.tool_kind, "command");
  EXPECT_EQ(start.command, "echo hello-from-tool");
  EXPECT_EQ(
      start.arguments,
      R"({"command":"echo hello-from-tool","description":"Print hello-from-tool","is_background":false})");
  const auto& end = events[10];
  EXPECT_EQ(end.id, "call_stub_0001");
  EXPECT_EQ(end.status, "completed");
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.text, "hello-from-tool");

  EXPECT_EQ(events[14].id, "b2c2cb6a-d975-4ec6-bab5-19addff495e0:0");
  EXPECT_EQ(events[14].text, "All done: hello-from-tool");
  // First turn: the session total is this turn's usage.
  ASSERT_TRUE(events[15].usage);
  EXPECT_EQ(events[15].usage->input_tokens, 18764);
  EXPECT_EQ(events[15].usage->output_tokens, 28);
  const auto& result = events[16];
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.text, "All done: hello-from-tool");
  EXPECT_EQ(result.stop_reason, "success");
  EXPECT_EQ(result.usage->input_tokens, 18764);
}

TEST(QwenStreamParser, ResumedTurnsReportTheirOwnShareOfTheSessionTotals) {
  // result.usage: turn1 18764/28, turn2 37923/56, turn3 55315/72 (cumulative).
  auto turn2 = runQwen("turn2-resume", kSession, usage(18764, 28));
  ASSERT_THAT(kinds(turn2), ElementsAreArray(kToolTurn));
  EXPECT_EQ(turn2.front().id, kSession);
  EXPECT_EQ(turn2[15].usage->input_tokens, 37923 - 18764);
  EXPECT_EQ(turn2[15].usage->output_tokens, 56 - 28);
  EXPECT_EQ(turn2[16].usage->input_tokens, 37923 - 18764);

  // turn3 includes qwen's hidden memory-extraction request (visible call: 9702/8).
  auto turn3 = runQwen("turn3-resume-notool", kSession, usage(37923, 56));
  EXPECT_THAT(kinds(turn3), ElementsAre("session", "text_delta", "text_delta", "text_delta",
                                        "message", "usage", "result"));
  EXPECT_EQ(turn3[5].usage->input_tokens, 55315 - 37923);
  EXPECT_EQ(turn3[5].usage->output_tokens, 72 - 56);
  EXPECT_EQ(turn3[4].text, "Resumed fine; no tool needed this time.");
  EXPECT_TRUE(turn3.back().ok);
}

TEST(QwenStreamParser, FallsBackToPerCallUsageWhenTotalsCannotBeSplit) {
  // Earlier turns' sum above the totals (e.g. qwen lost the session history).
  auto inconsistent = runQwen("turn2-resume", kSession, usage(99999, 999));
  auto u = ofKind(inconsistent, ParsedKind::usage).at(0).usage;
  EXPECT_EQ(u->input_tokens, 19159);  // the two API calls of this run, summed
  EXPECT_EQ(u->output_tokens, 28);
  // qwen answered with another session than the one resumed.
  auto other = runQwen("turn3-resume-notool", "another-session", usage(37923, 56));
  EXPECT_EQ(ofKind(other, ParsedKind::usage).at(0).usage->input_tokens, 9702);
  EXPECT_EQ(ofKind(other, ParsedKind::usage).at(0).usage->output_tokens, 8);
}

TEST(QwenStreamParser, FailedToolKeepsItsExitCodeAndTheTurnSucceeds) {
  auto events = runQwen("tool-fail");
  ASSERT_THAT(kinds(events), ElementsAreArray(kToolTurn));
  auto start = ofKind(events, ParsedKind::tool_start).at(0);
  EXPECT_EQ(start.command, "ls /nonexistent-stub-dir");
  auto end = ofKind(events, ParsedKind::tool_end).at(0);
  EXPECT_EQ(end.id, "call_stub_0007");
  EXPECT_EQ(end.status, "failed");
  EXPECT_EQ(end.exit_code, 2);
  EXPECT_THAT(end.error, HasSubstr("No such file or directory"));
  EXPECT_THAT(end.text, StartsWith("Command: ls /nonexistent-stub-dir"));
  EXPECT_EQ(ofKind(events, ParsedKind::message).back().text, "The command failed as expected.");
  EXPECT_TRUE(events.back().ok);
}

TEST(QwenStreamParser, AuthErrorTextIsAFatalErrorNeverAMessage) {
  auto events = runQwen("auth-error");
  EXPECT_THAT(kinds(events), ElementsAre("session", "error", "usage", "result"));
  const auto& error = events[1];
  EXPECT_TRUE(error.fatal);
  EXPECT_EQ(error.code, "authentication_error");
  EXPECT_THAT(error.text, StartsWith("[API Error: 401 Incorrect API key provided"));
  EXPECT_THAT(ofKind(events, ParsedKind::text_delta), IsEmpty());
  EXPECT_THAT(ofKind(events, ParsedKind::message), IsEmpty());
  const auto& result = events.back();
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.stop_reason, "error_during_execution");
  EXPECT_THAT(result.text, HasSubstr("401"));
}

TEST(QwenStreamParser, ToolNamesFollowTheWireRules) {
  auto events =
      runQwen({R"({"type":"assistant","message":{"id":"m","content":[)"
               R"({"type":"tool_use","id":"t1","name":"mcp__docs__search","input":{"q":"x"}},)"
               R"({"type":"tool_use","id":"t2","name":"write_file","input":{"file_path":"a"}},)"
               R"({"type":"tool_use","id":"t3","name":"glob","input":{}}]}})"},
              0);
  auto starts = ofKind(events, ParsedKind::tool_start);
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_EQ(starts[0].tool_kind, "mcp");
  EXPECT_EQ(starts[0].server, "docs");
  EXPECT_EQ(starts[0].name, "search");
  EXPECT_EQ(starts[1].tool_kind, "file_change");
  EXPECT_EQ(starts[1].name, "file_change");
  EXPECT_EQ(starts[2].tool_kind, "other");
  EXPECT_EQ(starts[2].name, "glob");
}

TEST(QwenStreamParser, TextThatOnlyStartsLikeAnErrorIsReleasedOnceDecided) {
  const std::string head =
      R"({"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":")";
  const std::string tail = R"("}}})";
  auto events = runQwen(
      {R"({"type":"system","subtype":"init","session_id":"s"})",
       R"({"type":"stream_event","session_id":"s","event":{"type":"message_start","message":{"id":"m1"}}})",
       R"({"type":"stream_event","session_id":"s","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}})",
       head + "[A" + tail, head + "pple] is a fruit" + tail,
       R"({"type":"assistant","session_id":"s","message":{"id":"x","content":[{"type":"text","text":"[Apple] is a fruit"}]}})"},
      0);
  EXPECT_THAT(kinds(events), ElementsAre("session", "text_delta", "message", "result"));
  EXPECT_EQ(events[1].text, "[Apple] is a fruit");
  EXPECT_EQ(events[2].id, "m1:0");
}

TEST(QwenStreamParser, ToleratesNoiseUnknownTypesAndATruncatedLastLine) {
  auto lines = transcriptLines("qwen", "turn1");
  std::vector<std::string> noisy;
  noisy.push_back("Ripgrep not available: spawn rg EACCES. Falling back to built-in grep.");
  noisy.push_back(R"({"type":"fake_padding","padding":"xxxx"})");
  noisy.push_back(R"({"type":"stream_event","event":{"type":"brand_new_event"}})");
  noisy.push_back("");
  noisy.insert(noisy.end(), lines.begin(), lines.end());
  // The result line cut in the middle (the CLI was killed while printing it).
  noisy.back() = noisy.back().substr(0, noisy.back().size() / 2);
  auto events = runQwen(noisy, 1);
  auto logs = ofKind(events, ParsedKind::log);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_THAT(logs[0].text, StartsWith("Ripgrep"));
  EXPECT_THAT(logs[1].text, StartsWith(R"({"type":"result")"));
  EXPECT_EQ(ofKind(events, ParsedKind::message).back().text, "All done: hello-from-tool");
  EXPECT_THAT(ofKind(events, ParsedKind::usage), IsEmpty());
  ASSERT_EQ(events.back().kind, ParsedKind::result);
  EXPECT_FALSE(events.back().ok);
}

// The lines of @p run before its first assistant line: qwen killed mid-block.
std::vector<std::string> linesBeforeFirstAssistant(const std::string& run) {
  std::vector<std::string> head;
  for (const auto& line : transcriptLines("qwen", run)) {
    if (line.find(R"("type":"assistant")") != std::string::npos) break;
    head.push_back(line);
  }
  return head;
}

TEST(QwenStreamParser, ATextBlockCutOffMidStreamIsClosedByFinish) {
  // Keep init .. the three text deltas; drop the assistant line and the rest.
  auto events = runQwen(linesBeforeFirstAssistant("turn3-resume-notool"), 137);
  EXPECT_THAT(kinds(events), ElementsAre("session", "text_delta", "text_delta", "text_delta",
                                         "message", "result"));
  EXPECT_EQ(events[4].text, "Resumed fine; no tool needed this time.");
  EXPECT_FALSE(events.back().ok);
}

// Shapes the shared stream-json parser reads for every CLI; qwen 0.24 was not
// seen to print them, but reads them as Claude Code's parser does.
TEST(QwenStreamParser, ReadsTheSharedStreamJsonShapesClaudeCodePrints) {
  // An api_retry is a non-fatal error; killed while retrying, the retry names the cause.
  auto retrying = runQwen(
      {R"({"type":"system","subtype":"init","session_id":"s"})",
       R"({"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"error_status":401,"error":"authentication_failed"})"},
      143);
  ASSERT_THAT(kinds(retrying), ElementsAre("session", "error", "result"));
  EXPECT_FALSE(retrying[1].fatal);
  EXPECT_EQ(retrying[1].code, "authentication_error");
  EXPECT_EQ(retrying[2].code, "authentication_error");
  EXPECT_THAT(retrying[2].text, StartsWith("ended while retrying: API request failed"));

  // A subtype other than success fails the turn even without is_error.
  auto capped = runQwen({R"({"type":"result","subtype":"error_max_turns","is_error":false})"}, 0);
  ASSERT_THAT(kinds(capped), ElementsAre("usage", "error", "result"));
  EXPECT_TRUE(capped[1].fatal);
  EXPECT_EQ(capped[1].code, "max_turns_exceeded");
  EXPECT_FALSE(capped[2].ok);
  EXPECT_EQ(capped[2].text, "the agent stopped at its max_turns limit");

  // An assistant line marked as an API error is one fatal error, never a message.
  auto marked = runQwen(
      {R"({"type":"assistant","is_api_error_message":true,"message":{"id":"m","content":[{"type":"text","text":"Invalid API key"}]}})",
       R"({"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"[API Error: 401 again]"}]}})"},
      1);
  ASSERT_THAT(kinds(marked), ElementsAre("error", "result"));
  EXPECT_TRUE(marked[0].fatal);
  EXPECT_EQ(marked[0].text, "Invalid API key");
}

TEST(QwenStreamParser, BlocksWithoutDeltasTakeTheirIdFromTheirOwnAssistantLine) {
  auto events = runQwen(
      {R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}})",
       R"({"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"hm"}]}})",
       R"({"type":"assistant","message":{"id":"u2","content":[{"type":"text","text":"Hi"}]}})"},
      0);
  ASSERT_THAT(kinds(events), ElementsAre("reasoning", "message", "result"));
  EXPECT_EQ(events[0].id, "m1:0");
  EXPECT_EQ(events[1].id, "u2:0");
}

TEST(QwenStreamParser, AThinkingBlockCutOffMidStreamIsClosedByFinish) {
  // turn1 starts with a thinking block (three deltas).
  auto events = runQwen(linesBeforeFirstAssistant("turn1"), 137);
  EXPECT_THAT(kinds(events), ElementsAre("session", "reasoning_delta", "reasoning_delta",
                                         "reasoning_delta", "reasoning", "result"));
  EXPECT_EQ(events[4].text, deltaText(events, events[4].id, ParsedKind::reasoning_delta));
  EXPECT_FALSE(events.back().ok);
}

}  // namespace
}  // namespace abx::testing::parsers
