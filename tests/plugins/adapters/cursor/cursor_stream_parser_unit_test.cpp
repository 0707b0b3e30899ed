// Unit: CursorStreamParser on the stream of fake_agents/cursor-agent (shaped
// after Cursor's docs; no real transcript exists) and on the assistant-line
// forms Cursor's forum documents for --stream-partial-output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../parsers/parser_test_support.h"
#include "abx/sdk/subprocess.h"
#include "cursor_adapter.h"
#include "cursor_stream_parser.h"

namespace abx::testing::parsers {
namespace {

using plugins::adapters::CursorAdapter;
using plugins::adapters::CursorStreamParser;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<ParsedEvent> runCursor(const std::vector<std::string>& lines, int exit_code = 0) {
  CursorStreamParser parser;
  std::vector<ParsedEvent> out;
  for (const auto& line : lines) parser.feed(line, out);
  parser.finish(exit_code, out);
  return out;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(std::move(line));
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

class CursorFake : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-cursor-fake-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the fake with the argv the adapter builds (so the two agree).
  sdk::Completed run(const sdk::agents::TurnContext& turn, std::vector<std::string> env = {}) {
    auto inv = CursorAdapter().buildInvocation(turn);
    EXPECT_TRUE(inv.isOk());
    sdk::SpawnOptions o;
    o.argv = inv->argv;
    o.cwd = dir_;
    o.env = {"PATH=" + std::string(ABX_SOURCE_DIR) + "/fake_agents:/usr/bin:/bin", "HOME=" + dir_,
             "FAKE_AGENT_STATE_DIR=" + dir_ + "/state"};
    o.env.insert(o.env.end(), env.begin(), env.end());
    sdk::RunLimits limits;
    limits.timeout = std::chrono::seconds(30);
    auto r = sdk::Subprocess::run(o, limits);
    EXPECT_TRUE(r.isOk());
    return r ? *r : sdk::Completed{};
  }

  std::string dir_;
};

TEST_F(CursorFake, AdapterArgvDrivesTheFakeAndTheConsolidatedDuplicateIsDropped) {
  sdk::agents::AgentSpec spec;
  spec.workspace.path = dir_;
  sdk::agents::TurnContext turn;
  turn.spec = &spec;
  turn.prompt = "Context line\nhello";
  turn.workdir = dir_;
  auto first = run(turn);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto events = runCursor(splitLines(first.out), first.exit_code);
  EXPECT_THAT(kinds(events), ElementsAre("session", "tool_start", "tool_end", "text_delta",
                                         "text_delta", "text_delta", "message", "result"));
  const std::string session = events[0].id;
  EXPECT_EQ(session.size(), 36u);
  EXPECT_EQ(events[1].tool_kind, "command");
  EXPECT_EQ(events[1].name, "command_execution");
  EXPECT_EQ(events[1].command, "echo hello-from-tool");
  EXPECT_EQ(events[1].arguments, R"({"command":"echo hello-from-tool"})");
  EXPECT_EQ(events[2].id, events[1].id);
  EXPECT_EQ(events[2].status, "completed");
  EXPECT_EQ(events[2].exit_code, 0);
  EXPECT_EQ(events[2].text, "hello-from-tool\n");
  // The three partial lines stream; the repeated whole message adds nothing.
  EXPECT_EQ(deltaText(events, "msg_0"), "turn 1: hello");
  EXPECT_EQ(events[6].text, "turn 1: hello");
  EXPECT_TRUE(events[7].ok);
  EXPECT_EQ(events[7].text, "turn 1: hello");

  // Resume: the fake keeps the chat id and counts the turn.
  turn.native_session_id = session;
  turn.prompt = "again";
  auto second = run(turn);
  auto resumed = runCursor(splitLines(second.out), second.exit_code);
  EXPECT_EQ(resumed.front().id, session);
  EXPECT_EQ(ofKind(resumed, ParsedKind::message).back().text, "turn 2: again");
}

TEST_F(CursorFake, AuthErrorIsOnStderrWithoutAResult) {
  sdk::agents::AgentSpec spec;
  spec.workspace.path = dir_;
  sdk::agents::TurnContext turn;
  turn.spec = &spec;
  turn.prompt = "hello";
  turn.workdir = dir_;
  auto r = run(turn, {"FAKE_MODE=auth_error"});
  EXPECT_EQ(r.exit_code, 1);
  auto events = runCursor(splitLines(r.out), r.exit_code);
  ASSERT_THAT(kinds(events), ElementsAre("result"));
  EXPECT_FALSE(events[0].ok);
  EXPECT_EQ(CursorAdapter().classifyFailure(r.exit_code, r.err).code, "authentication_error");
}

TEST(CursorStreamParser, ForumFormsOfPartialOutputYieldEachCharacterOnce) {
  // Form 1 (chunk), Form 2 (same chunk again, with model_call_id), Form 3
  // (more chunks), Form 4 (the whole message again, no timestamp_ms).
  auto events = runCursor({
      R"({"type":"system","subtype":"init","session_id":"chat-1","model":"auto"})",
      R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading"}]},"session_id":"chat-1","timestamp_ms":1})",
      R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading"}]},"session_id":"chat-1","model_call_id":"a5","timestamp_ms":2})",
      R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":" the file"}]},"session_id":"chat-1","timestamp_ms":3})",
      R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading the file"}]},"session_id":"chat-1"})",
      R"({"type":"result","subtype":"success","is_error":false,"result":"Reading the file","session_id":"chat-1","usage":{"inputTokens":120,"outputTokens":7,"cacheReadTokens":100}})",
  });
  EXPECT_THAT(kinds(events),
              ElementsAre("session", "text_delta", "text_delta", "message", "usage", "result"));
  EXPECT_EQ(deltaText(events, "msg_0"), "Reading the file");
  EXPECT_EQ(events[3].text, "Reading the file");
  EXPECT_EQ(events[4].usage->input_tokens, 120);
  EXPECT_EQ(events[4].usage->cached_input_tokens, 100);
  EXPECT_EQ(events.back().usage->output_tokens, 7);
}

TEST(CursorStreamParser, AConsolidatedLineThatExtendsTheChunksAddsOnlyTheRest) {
  auto events = runCursor({
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Hel"}]},"timestamp_ms":1})",
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Hello world"}]}})",
      R"({"type":"result","subtype":"success","is_error":false,"result":"Hello world"})",
  });
  EXPECT_EQ(deltaText(events, "msg_0"), "Hello world");
  EXPECT_EQ(ofKind(events, ParsedKind::message).at(0).text, "Hello world");
}

TEST(CursorStreamParser, MessagesAroundToolCallsAreSeparateItems) {
  auto events = runCursor({
      R"({"type":"thinking","subtype":"delta","text":"Let me look."})",
      R"({"type":"thinking","subtype":"completed"})",
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Checking."}]}})",
      R"({"type":"tool_call","subtype":"started","call_id":"t1","tool_call":{"mcpToolCall":{"args":{"name":"docs-search","args":{"q":"x"},"toolName":"search","providerIdentifier":"docs"}}}})",
      R"({"type":"tool_call","subtype":"completed","call_id":"t1","tool_call":{"mcpToolCall":{"args":{"toolName":"search","providerIdentifier":"docs"},"result":{"success":{"content":"3 hits"}}}}})",
      R"({"type":"tool_call","subtype":"started","call_id":"t2","tool_call":{"shellToolCall":{"args":{"command":"ls /nope"}}}})",
      R"({"type":"tool_call","subtype":"completed","call_id":"t2","tool_call":{"shellToolCall":{"args":{"command":"ls /nope"},"result":{"failure":{"stdout":"","stderr":"ls: /nope: No such file","exitCode":2}}}}})",
      R"({"type":"tool_call","subtype":"started","call_id":"t3","tool_call":{"editToolCall":{"args":{"path":"a.txt"}}}})",
      R"({"type":"tool_call","subtype":"completed","call_id":"t3","tool_call":{"editToolCall":{"result":{"rejected":{"reason":"denied by user"}}}}})",
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Done."}]}})",
      R"({"type":"result","subtype":"success","is_error":false,"result":"Done."})",
  });
  EXPECT_THAT(kinds(events),
              ElementsAre("reasoning_delta", "reasoning", "text_delta", "message", "tool_start",
                          "tool_end", "tool_start", "tool_end", "tool_start", "tool_end",
                          "text_delta", "message", "result"));
  EXPECT_EQ(events[1].text, "Let me look.");
  EXPECT_EQ(events[3].id, "msg_0");
  EXPECT_EQ(events[11].id, "msg_1");
  EXPECT_EQ(events[4].tool_kind, "mcp");
  EXPECT_EQ(events[4].server, "docs");
  EXPECT_EQ(events[4].name, "search");
  EXPECT_EQ(events[4].arguments, R"({"q":"x"})");
  EXPECT_EQ(events[5].text, "3 hits");
  EXPECT_EQ(events[7].status, "failed");
  EXPECT_EQ(events[7].exit_code, 2);
  EXPECT_EQ(events[7].text, "ls: /nope: No such file");
  EXPECT_EQ(events[8].tool_kind, "file_change");
  EXPECT_EQ(events[8].name, "file_change");
  EXPECT_EQ(events[9].status, "failed");
  EXPECT_EQ(events[9].error, "denied by user");
}

TEST(CursorStreamParser, ErrorResultIsFatalAndTruncatedOrUnknownLinesAreTolerated) {
  auto events = runCursor({
      "not json at all",
      R"({"type":"brand_new","x":1})",
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Partial"}]}})",
      R"({"type":"result","subtype":"error","is_error":true,"result":"401 Unauthorized: invalid API key"})",
  });
  EXPECT_THAT(kinds(events), ElementsAre("log", "text_delta", "message", "error", "result"));
  EXPECT_TRUE(events[3].fatal);
  EXPECT_EQ(events[3].code, "authentication_error");
  EXPECT_FALSE(events[4].ok);

  auto cut =
      runCursor({R"({"type":"system","subtype":"init","session_id":"c"})",
                 R"({"type":"assistant","message":{"content":[{"type":"text","text":"Hi"}]}})",
                 R"({"type":"result","subtype":"succ)"},
                1);
  EXPECT_THAT(kinds(cut), ElementsAre("session", "text_delta", "log", "message", "result"));
  EXPECT_FALSE(cut.back().ok);
}

// The result rules cursor shares with the other stream-json CLIs.
TEST(CursorStreamParser, AFailedResultIsFatalAndNamesItsCause) {
  // A subtype other than success fails the turn even without is_error; the
  // result's text is the failure, not the last message.
  auto capped = runCursor({
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"Working"}]}})",
      R"({"type":"result","subtype":"error_max_turns","is_error":false})",
  });
  ASSERT_THAT(kinds(capped), ElementsAre("text_delta", "message", "error", "result"));
  EXPECT_TRUE(capped[2].fatal);
  EXPECT_FALSE(capped[3].ok);
  EXPECT_EQ(capped[3].text, "the agent stopped at its max_turns limit");
  EXPECT_EQ(capped[3].stop_reason, "error_max_turns");

  // An `error` string is the cause, before message and result.
  auto failed = runCursor({
      R"({"type":"result","subtype":"error","is_error":true,"error":"usage limit reached","result":"x"})",
  });
  ASSERT_THAT(kinds(failed), ElementsAre("error", "result"));
  EXPECT_EQ(failed[0].text, "usage limit reached");
  EXPECT_EQ(failed[1].text, "usage limit reached");
}

// cursor-agent was not seen to print Claude's stream shapes; if it does, they
// read as in every stream-json parser.
TEST(CursorStreamParser, ClaudeShapedLinesReadAsTheSharedParserReadsThem) {
  auto events = runCursor({
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}})",
      R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"out","is_error":true}]}})",
      R"({"type":"user","message":{"role":"user","content":[{"type":"text","text":"the prompt"}]}})",
  });
  ASSERT_THAT(kinds(events),
              ElementsAre("text_delta", "tool_output", "tool_end", "message", "result"));
  EXPECT_EQ(events[3].text, "Hi");
  EXPECT_EQ(events[2].status, "failed");
  EXPECT_EQ(events[2].error, "out");
}

}  // namespace
}  // namespace abx::testing::parsers
