// What the runtime tells its readers beyond a turn's items: a session's
// status while its turns wait or run, the usage summed over its turns,
// turn.waiting behind the concurrency cap, errors a CLI survives, and the
// cwd and duration of command items.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "runtime_fixture.h"

namespace abx::plugins::agents {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::Not;

std::vector<std::string> typesOf(const std::vector<RuntimeEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.type);
  return out;
}

TEST_F(RuntimeTest, ATurnWaitingBehindTheCapSaysSoAndItsSessionIsInProgress) {
  const std::string gate = state_dir_ + "/gate";
  addAgent("slow", "while [ ! -e " + gate + " ]; do sleep 0.02; done; echo M done");
  addAgent("quick", "echo M quick");
  auto& rt = runtime(/*concurrency=*/1);
  auto first = rt.createSession("slow");
  auto second = rt.createSession("quick");
  ASSERT_TRUE(first && second);
  auto running = rt.submitTurn(first->id, TurnRequest{});
  ASSERT_TRUE(running);
  // The only worker takes the slow turn; the quick one then has to wait.
  for (int i = 0; i < 500 && rt.load().running == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(rt.load().running, 1u);

  std::vector<RuntimeEvent> events;
  auto mutex = std::make_shared<std::mutex>();
  TurnRequest request;
  request.observer = [&events, mutex](const RuntimeEvent& e) {
    std::lock_guard lock(*mutex);
    events.push_back(e);
  };
  auto waiting = rt.submitTurn(second->id, std::move(request));
  ASSERT_TRUE(waiting);
  EXPECT_EQ(rt.session(second->id)->status, SessionStatus::in_progress);
  EXPECT_EQ(rt.turn(waiting->id)->status, TurnStatus::queued);

  std::ofstream(gate).put('x');
  ASSERT_TRUE(rt.waitTurn(waiting->id, 10s));
  EXPECT_EQ(rt.session(second->id)->status, SessionStatus::idle);
  std::lock_guard lock(*mutex);
  const auto types = typesOf(events);
  ASSERT_GE(types.size(), 3u);
  EXPECT_EQ(types[0], "turn.queued");
  EXPECT_EQ(types[1], "turn.waiting");
  EXPECT_EQ(types[2], "turn.started");
}

TEST_F(RuntimeTest, ATurnAFreeWorkerTakesAtOnceDoesNotWait) {
  addAgent("a", "echo M hi");
  std::vector<RuntimeEvent> events;
  runOnce("a", "x", nullptr, &events);
  EXPECT_THAT(typesOf(events), Not(Contains("turn.waiting")));
}

TEST_F(RuntimeTest, ASessionsUsageIsTheSumOverItsFinishedTurns) {
  addAgent("a", "echo U 10 3; echo M hi");
  std::string session;
  auto& rt = runtime();
  ASSERT_TRUE(rt.createSession("a"));  // another session's turns do not count
  EXPECT_FALSE(rt.createSession("a")->usage);
  runOnce("a", "one", &session);
  runOnce("a", "two", &session);
  auto info = rt.session(session);
  ASSERT_TRUE(info && info->usage);
  EXPECT_EQ(info->usage->input_tokens, 20);
  EXPECT_EQ(info->usage->output_tokens, 6);
  EXPECT_EQ(info->status, SessionStatus::idle);
}

TEST_F(RuntimeTest, AnErrorTheCliSurvivesIsAnErrorEventAndTheTurnCompletes) {
  addAgent("a", "echo W retrying SECRET-VALUE; echo M hi");
  std::vector<RuntimeEvent> events;
  auto turn = runOnce("a", "x", nullptr, &events);
  EXPECT_EQ(turn.status, TurnStatus::completed);
  auto error = std::find_if(events.begin(), events.end(),
                            [](const RuntimeEvent& e) { return e.type == "error"; });
  ASSERT_NE(error, events.end());
  EXPECT_EQ(error->code, "rate_limit_exceeded");
  EXPECT_EQ(error->delta, "retrying [REDACTED]");
}

TEST_F(RuntimeTest, CommandItemsCarryTheirCwdAndDuration) {
  addAgent("a", "echo C ls; sleep 0.05; echo D listed; echo M hi");
  auto turn = runOnce("a", "x");
  ASSERT_EQ(turn.status, TurnStatus::completed);
  auto command = std::find_if(turn.items.begin(), turn.items.end(),
                              [](const Item& i) { return i.type == "command_execution"; });
  ASSERT_NE(command, turn.items.end());
  EXPECT_EQ(command->cwd, workdir_);
  ASSERT_TRUE(command->duration_ms);
  EXPECT_GE(*command->duration_ms, 40);
  EXPECT_EQ(command->output, "listed");
}

}  // namespace
}  // namespace abx::plugins::agents
