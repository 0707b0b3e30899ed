// Unit: the "jsonl-codex" parser against real `codex exec --json` transcripts
// (tests/data/transcripts/codex) and against lines it must tolerate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "parser_test_support.h"

namespace abx::testing::parsers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kThread = "01a22b3b-0e56-7291-825e-36cc1d804451";

TEST(CodexJsonlParser, Turn1ToolCallThenAnswer) {
  auto events = runTranscript("jsonl-codex", "codex", "turn1");
  ASSERT_THAT(kinds(events), ElementsAre("session", "error", "reasoning", "tool_start", "tool_end",
                                         "message", "usage", "result"));
  EXPECT_EQ(events[0].id, kThread);
  // The model-metadata warning is an error item that must not fail the turn.
  EXPECT_FALSE(events[1].fatal);
  EXPECT_THAT(events[1].text, HasSubstr("Model metadata"));
  EXPECT_EQ(events[2].id, "item_1");
  EXPECT_THAT(events[2].text, HasSubstr("Running the command"));

  const auto& start = events[3];
  EXPECT_EQ(start.id, "item_2");
  EXPECT_EQ(start.tool_kind, "command");
  EXPECT_EQ(start.name, "command_execution");
  EXPECT_EQ(start.command, "/bin/bash -lc 'echo hello-from-tool'");
  EXPECT_EQ(start.arguments, R"({"command":"/bin/bash -lc 'echo hello-from-tool'"})");
  const auto& end = events[4];
  EXPECT_EQ(end.id, "item_2");
  EXPECT_EQ(end.status, "completed");
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.text, "hello-from-tool\n");

  EXPECT_EQ(events[5].id, "item_3");
  EXPECT_EQ(events[5].text, "All done: hello-from-tool");
  ASSERT_TRUE(events[6].usage);
  EXPECT_EQ(events[6].usage->input_tokens, 10715);
  EXPECT_EQ(events[6].usage->output_tokens, 20);
  EXPECT_EQ(events[6].usage->reasoning_tokens, 5);
  EXPECT_TRUE(events[7].ok);
  EXPECT_EQ(events[7].text, "All done: hello-from-tool");
  ASSERT_TRUE(events[7].usage);
  EXPECT_EQ(events[7].usage->input_tokens, 10715);
}

TEST(CodexJsonlParser, ResumedTurnsKeepTheThreadAndReportCumulativeUsage) {
  auto turn2 = runTranscript("jsonl-codex", "codex", "turn2-resume");
  EXPECT_EQ(turn2.front().id, kThread);
  EXPECT_EQ(ofKind(turn2, ParsedKind::usage).at(0).usage->input_tokens, 21954);
  EXPECT_EQ(ofKind(turn2, ParsedKind::tool_end).size(), 1u);

  auto turn3 = runTranscript("jsonl-codex", "codex", "turn3-resume-notool");
  ASSERT_THAT(kinds(turn3), ElementsAre("session", "error", "message", "usage", "result"));
  EXPECT_EQ(turn3[0].id, kThread);
  EXPECT_EQ(turn3[2].text, "Resumed fine; no tool needed this time.");
  EXPECT_EQ(turn3[3].usage->input_tokens, 27752);
  EXPECT_TRUE(turn3[4].ok);
}

TEST(CodexJsonlParser, FailedToolKeepsTheTurnGoing) {
  auto events = runTranscript("jsonl-codex", "codex", "tool-fail");
  auto end = ofKind(events, ParsedKind::tool_end).at(0);
  EXPECT_EQ(end.status, "failed");
  EXPECT_EQ(end.exit_code, 2);
  EXPECT_THAT(end.text, HasSubstr("No such file or directory"));
  EXPECT_EQ(ofKind(events, ParsedKind::message).at(0).text, "The command failed as expected.");
  EXPECT_TRUE(events.back().ok);
}

TEST(CodexJsonlParser, AuthErrorRetriesThenFailsTheTurn) {
  auto events = runTranscript("jsonl-codex", "codex", "auth-error");
  ASSERT_THAT(kinds(events), ElementsAre("session", "error", "error", "error", "error", "error",
                                         "error", "error", "error", "result"));
  for (int i = 1; i <= 7; ++i) EXPECT_FALSE(events[i].fatal) << i;
  EXPECT_THAT(events[2].text, HasSubstr("Reconnecting... 1/5"));
  const auto& fatal = events[8];
  EXPECT_TRUE(fatal.fatal);
  EXPECT_EQ(fatal.code, "authentication_error");
  EXPECT_THAT(fatal.text, HasSubstr("401 Unauthorized"));
  EXPECT_FALSE(events[9].ok);
  EXPECT_THAT(events[9].text, HasSubstr("401 Unauthorized"));
}

TEST(CodexJsonlParser, ToleratesNoiseUnknownTypesAndTruncatedLines) {
  auto events = runParser("jsonl-codex",
                          {"WARNING: not json", R"({"type":"thread.started","thread_id":"t1"})",
                           R"({"type":"turn.something_new","x":1})",
                           R"({"type":"item.completed","item":{"id":"item_9","type":"hologram"}})",
                           R"([1,2,3])", R"({"type":"item.completed","item":{"id":"item_1","ty)"},
                          0);
  ASSERT_THAT(kinds(events), ElementsAre("log", "session", "log", "log", "result"));
  EXPECT_EQ(events[0].text, "WARNING: not json");
  EXPECT_EQ(events[2].text, "[1,2,3]");
  EXPECT_THAT(events[3].text, HasSubstr("item_1"));
  // The CLI never finished its turn: the result is not ok whatever the exit code.
  EXPECT_FALSE(events[4].ok);
}

TEST(CodexJsonlParser, McpToolCallMapsServerToolArgumentsAndResult) {
  auto events = runParser(
      "jsonl-codex",
      {R"({"type":"item.started","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x","n":2},"result":null,"error":null,"status":"in_progress"}})",
       R"({"type":"item.completed","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x","n":2},"result":{"content":[{"type":"text","text":"found "},{"type":"text","text":"it"}]},"error":null,"status":"completed"}})",
       R"({"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"fetch","arguments":{},"result":null,"error":{"message":"timed out"},"status":"failed"}})"},
      0);
  ASSERT_THAT(kinds(events),
              ElementsAre("tool_start", "tool_end", "tool_start", "tool_end", "result"));
  EXPECT_EQ(events[0].tool_kind, "mcp");
  EXPECT_EQ(events[0].server, "docs");
  EXPECT_EQ(events[0].name, "search");
  EXPECT_EQ(events[0].arguments, R"({"q":"x","n":2})");
  EXPECT_EQ(events[1].status, "completed");
  EXPECT_EQ(events[1].text, "found it");
  EXPECT_FALSE(events[1].exit_code);
  EXPECT_EQ(events[2].name, "fetch");
  EXPECT_EQ(events[3].status, "failed");
  EXPECT_EQ(events[3].error, "timed out");
}

TEST(CodexJsonlParser, FileChangeWebSearchAndTodoListAreTools) {
  auto events = runParser(
      "jsonl-codex",
      {R"({"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"a.txt","kind":"add"}],"status":"completed"}})",
       R"({"type":"item.started","item":{"id":"item_2","type":"web_search","query":"poco json"}})",
       R"({"type":"item.completed","item":{"id":"item_2","type":"web_search","query":"poco json"}})",
       R"({"type":"item.started","item":{"id":"item_3","type":"todo_list","items":[{"text":"a","completed":false}]}})",
       R"({"type":"item.completed","item":{"id":"item_3","type":"todo_list","items":[{"text":"a","completed":true}]}})"},
      0);
  ASSERT_THAT(kinds(events), ElementsAre("tool_start", "tool_end", "tool_start", "tool_end",
                                         "tool_start", "tool_end", "result"));
  EXPECT_EQ(events[0].tool_kind, "file_change");
  EXPECT_EQ(events[0].arguments, R"({"changes":[{"path":"a.txt","kind":"add"}]})");
  EXPECT_EQ(events[1].status, "completed");
  EXPECT_EQ(events[2].tool_kind, "web_search");
  EXPECT_EQ(events[2].arguments, R"({"query":"poco json"})");
  EXPECT_EQ(events[4].tool_kind, "todo_list");
  EXPECT_THAT(events[5].text, HasSubstr(R"("completed":true)"));
}

}  // namespace
}  // namespace abx::testing::parsers
