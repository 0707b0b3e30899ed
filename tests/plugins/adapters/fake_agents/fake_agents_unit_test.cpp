// Unit: the fake agent CLIs in fake_agents/ speak what the parsers read —
// a fake turn, run through sdk::Subprocess, parses into the reply
// "turn <n>: <last prompt line>", and resume keeps the session and counts on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../parsers/parser_test_support.h"
#include "abx/sdk/subprocess.h"

namespace abx::testing::parsers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

struct FakeRun {
  sdk::Completed completed;
  std::vector<ParsedEvent> events;
  std::string session;
  std::string message; /**< text of the last message event */
};

class FakeAgents : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-fake-agents-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // /usr/bin before anything else: a pyenv shim for python3 costs seconds.
  FakeRun run(std::vector<std::string> argv, const std::string& parser, const std::string& prompt,
              std::vector<std::string> env = {}) {
    sdk::SpawnOptions o;
    o.argv = std::move(argv);
    o.env = {"PATH=" + std::string(ABX_SOURCE_DIR) + "/fake_agents:/usr/bin:/bin", "HOME=" + dir_,
             "FAKE_AGENT_STATE_DIR=" + dir_ + "/state"};
    o.env.insert(o.env.end(), env.begin(), env.end());
    sdk::RunLimits limits;
    limits.timeout = std::chrono::seconds(30);
    limits.stdin_data = prompt;
    auto r = sdk::Subprocess::run(o, limits);
    EXPECT_TRUE(r.isOk()) << (r ? "" : r.status().message());
    FakeRun out;
    if (!r) return out;
    out.completed = *r;
    std::vector<std::string> lines;
    std::string line;
    for (char c : out.completed.out) {
      if (c == '\n') {
        lines.push_back(std::move(line));
        line.clear();
      } else {
        line += c;
      }
    }
    out.events = runParser(parser, lines, out.completed.exit_code);
    for (const auto& e : out.events) {
      if (e.kind == ParsedKind::session) out.session = e.id;
      if (e.kind == ParsedKind::message) out.message = e.text;
    }
    return out;
  }

  std::string dir_;
};

TEST_F(FakeAgents, CodexTurnThenResume) {
  auto first = run({"codex", "exec", "--json", "--skip-git-repo-check", "-"}, "jsonl-codex",
                   "Context line\nhello\n");
  EXPECT_EQ(first.completed.exit_code, 0);
  EXPECT_EQ(first.message, "turn 1: hello");
  ASSERT_EQ(first.session.size(), 36u);
  EXPECT_NE(first.session, "01a22b3b-0e56-7291-825e-36cc1d804451");  // not the captured id
  EXPECT_TRUE(first.events.back().ok);

  auto second =
      run({"codex", "exec", "resume", "--json", first.session, "-"}, "jsonl-codex", "once more");
  EXPECT_EQ(second.session, first.session);
  EXPECT_EQ(second.message, "turn 2: once more");
}

TEST_F(FakeAgents, ClaudeAndQwenStreamTheReplyAndResume) {
  for (std::string cli : {"claude", "qwen"}) {
    SCOPED_TRACE(cli);
    std::vector<std::string> argv{cli, "--output-format", "stream-json",
                                  "--include-partial-messages"};
    auto first = run(argv, "jsonl-claude", "hello");
    EXPECT_EQ(first.message, "turn 1: hello");
    auto messages = ofKind(first.events, ParsedKind::message);
    EXPECT_EQ(deltaText(first.events, messages.back().id), "turn 1: hello");
    argv.insert(argv.end(), {"--resume", first.session});
    auto second = run(argv, "jsonl-claude", "again");
    EXPECT_EQ(second.session, first.session);
    EXPECT_EQ(second.message, "turn 2: again");
    EXPECT_TRUE(second.events.back().ok);
  }
}

TEST_F(FakeAgents, GenericFakeAgentSpeaksEachParserFormat) {
  auto text = run({"fake-agent"}, "text", "hello");
  EXPECT_EQ(text.message, "turn 1: hello");
  EXPECT_THAT(kinds(text.events), ElementsAre("text_delta", "message", "result"));
  auto codex = run({"fake-agent", "--format", "jsonl-codex"}, "jsonl-codex", "hi");
  EXPECT_EQ(codex.message, "turn 1: hi");
  auto claude =
      run({"fake-agent", "--format=jsonl-claude"}, "jsonl-claude", "hey", {"FAKE_REPLY=canned"});
  EXPECT_EQ(claude.message, "canned");
}

TEST_F(FakeAgents, UnknownResumeIdFails) {
  auto r = run({"claude", "-p", "--resume", "no-such-session"}, "jsonl-claude", "x");
  EXPECT_EQ(r.completed.exit_code, 1);
  EXPECT_THAT(r.completed.err, HasSubstr("No conversation found"));
  EXPECT_FALSE(r.events.back().ok);
}

TEST_F(FakeAgents, AuthErrorModeReplaysTheCapturedFailure) {
  auto r = run({"qwen", "--output-format", "stream-json"}, "jsonl-claude", "x",
               {"FAKE_MODE=auth_error"});
  EXPECT_EQ(r.completed.exit_code, 1);
  EXPECT_THAT(r.completed.err, HasSubstr("Ripgrep not available"));
  auto errors = ofKind(r.events, ParsedKind::error);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.back().code, "authentication_error");
  EXPECT_FALSE(r.events.back().ok);
  EXPECT_EQ(r.message, "");
}

TEST_F(FakeAgents, CrashModeDiesOnSigsegvMidTurn) {
  auto r = run({"codex", "exec", "--json", "-"}, "jsonl-codex", "x", {"FAKE_MODE=crash"});
  EXPECT_EQ(r.completed.exit_code, -11);
  EXPECT_FALSE(r.session.empty());
  EXPECT_FALSE(r.events.back().ok);
}

TEST_F(FakeAgents, FloodModeEmitsTheRequestedNumberOfDeltas) {
  auto r = run({"claude", "-p", "--output-format", "stream-json"}, "jsonl-claude", "x",
               {"FAKE_MODE=flood", "FAKE_FLOOD_EVENTS=5000"});
  EXPECT_EQ(ofKind(r.events, ParsedKind::text_delta).size(), 5000u);
  EXPECT_TRUE(r.events.back().ok);
}

TEST_F(FakeAgents, RecordsArgvEnvStdinAndCwd) {
  const std::string record = dir_ + "/record.jsonl";
  run({"claude", "-p", "--model", "m1"}, "jsonl-claude", "the prompt",
      {"FAKE_AGENT_RECORD=" + record, "SOME_KEY=v"});
  std::ifstream in(record);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_THAT(line, HasSubstr(R"("argv": [")"));
  EXPECT_THAT(line, HasSubstr(R"("--model", "m1"])"));
  EXPECT_THAT(line, HasSubstr(R"("SOME_KEY": "v")"));
  EXPECT_THAT(line, HasSubstr(R"("stdin": "the prompt")"));
  EXPECT_THAT(line, HasSubstr(R"("cwd": ")"));
  EXPECT_THAT(line, Not(HasSubstr("\n")));
}

TEST_F(FakeAgents, VersionFlag) {
  auto r = run({"codex", "--version"}, "text", "");
  EXPECT_EQ(r.completed.out, "codex-cli 0.169.0\n");
}

}  // namespace
}  // namespace abx::testing::parsers
