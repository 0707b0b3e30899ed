// Unit: the argv and env QwenCodeAdapter builds drive fake_agents/qwen (the
// replay of the real transcripts) and QwenStreamParser reads its output:
// reply, resume continuity, per-turn usage on the resumed turn, and the 401.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../parsers/parser_test_support.h"
#include "abx/sdk/subprocess.h"
#include "qwen_code_adapter.h"

namespace abx::testing::parsers {
namespace {

using plugins::adapters::QwenCodeAdapter;

class QwenFake : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-qwen-fake-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    spec_.workspace.path = dir_;
    spec_.provider.api_key = "sk-fake-qwen-0001";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  struct Turn {
    sdk::Completed completed;
    std::vector<ParsedEvent> events;
  };

  Turn run(sdk::agents::TurnContext turn, std::vector<std::string> env = {}) {
    turn.spec = &spec_;
    turn.workdir = dir_;
    turn.turn_dir = dir_;
    QwenCodeAdapter adapter;
    auto inv = adapter.buildInvocation(turn);
    EXPECT_TRUE(inv.isOk());
    sdk::SpawnOptions o;
    o.argv = inv->argv;
    o.cwd = dir_;
    o.env = {"PATH=" + std::string(ABX_SOURCE_DIR) + "/fake_agents:/usr/bin:/bin", "HOME=" + dir_,
             "FAKE_AGENT_STATE_DIR=" + dir_ + "/state"};
    for (const auto& [k, v] : inv->env) o.env.push_back(k + "=" + v);
    o.env.insert(o.env.end(), env.begin(), env.end());
    sdk::RunLimits limits;
    limits.timeout = std::chrono::seconds(30);
    limits.stdin_data = inv->stdin_data.value_or("");
    auto r = sdk::Subprocess::run(o, limits);
    EXPECT_TRUE(r.isOk());
    Turn out;
    if (!r) return out;
    out.completed = *r;
    auto parser = adapter.newParser(turn);
    std::string line;
    for (char c : r->out) {
      if (c != '\n') {
        line += c;
        continue;
      }
      parser->feed(line, out.events);
      line.clear();
    }
    parser->finish(r->exit_code, out.events);
    return out;
  }

  std::string dir_;
  sdk::agents::AgentSpec spec_;
};

TEST_F(QwenFake, TurnThenResumeWithPerTurnUsage) {
  sdk::agents::TurnContext turn;
  turn.prompt = "Context\nhello";
  auto first = run(turn);
  ASSERT_EQ(first.completed.exit_code, 0) << first.completed.err;
  auto session = ofKind(first.events, ParsedKind::session).at(0).id;
  EXPECT_EQ(ofKind(first.events, ParsedKind::message).back().text, "turn 1: hello");
  auto u1 = *ofKind(first.events, ParsedKind::usage).at(0).usage;
  EXPECT_EQ(u1.input_tokens, 18764);

  turn.prompt = "again";
  turn.native_session_id = session;
  turn.is_first_turn = false;
  turn.session_usage = u1;
  auto second = run(turn);
  ASSERT_EQ(second.completed.exit_code, 0) << second.completed.err;
  EXPECT_EQ(ofKind(second.events, ParsedKind::session).at(0).id, session);
  EXPECT_EQ(ofKind(second.events, ParsedKind::message).back().text, "turn 2: again");
  // The replayed turn2 prints the session total 37923: this turn used the rest.
  EXPECT_EQ(ofKind(second.events, ParsedKind::usage).at(0).usage->input_tokens, 37923 - 18764);
}

TEST_F(QwenFake, AuthErrorIsClassifiedFromTheStream) {
  sdk::agents::TurnContext turn;
  turn.prompt = "hello";
  auto r = run(turn, {"FAKE_MODE=auth_error"});
  EXPECT_EQ(r.completed.exit_code, 1);
  auto errors = ofKind(r.events, ParsedKind::error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].fatal);
  EXPECT_EQ(errors[0].code, "authentication_error");
  EXPECT_TRUE(ofKind(r.events, ParsedKind::message).empty());
}

TEST_F(QwenFake, AnUnknownResumeIdIsAnInvalidRequest) {
  sdk::agents::TurnContext turn;
  turn.prompt = "hello";
  turn.native_session_id = "00000000-0000-0000-0000-000000000000";
  auto r = run(turn);
  EXPECT_EQ(r.completed.exit_code, 1);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_FALSE(r.events[0].ok);
  // The fake prints claude's wording; the real qwen's is tested in the adapter test.
  EXPECT_EQ(QwenCodeAdapter().classifyFailure(1, r.completed.err).code, "internal_error");
}

}  // namespace
}  // namespace abx::testing::parsers
