// AgentRuntime::whenTurnEnds: how a wire waits for a turn without a thread —
// once per hook, in order, before the end is published; at once for a turn
// that already ended or is unknown; nullopt for a turn that goes without an
// end (session deleted while queued, shutdown); no end slips between the
// check and the registration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "runtime/agent_runtime.h"
#include "runtime_test_support.h"

namespace abx::plugins::agents {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;

class TurnEndHooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/abx-turn-end-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    runtime_.reset();
    std::filesystem::remove_all(dir_);
  }

  AgentRuntime& runtime(const std::string& script, std::size_t concurrency = 4) {
    auto agent = std::make_shared<ResolvedAgent>();
    agent->spec.name = "a";
    agent->spec.runtime = "script";
    agent->spec.workspace.path = dir_ + "/work";
    agent->spec.extra_args = {script};
    agent->adapter = &adapter_;
    agent->redaction = std::make_shared<testing::MarkerRedaction>();
    RuntimeOptions options;
    options.max_concurrent_turns = concurrency;
    options.ladder = {50ms, 50ms};
    options.base_env = [] { return std::vector<std::string>{"PATH=/usr/bin:/bin"}; };
    runtime_ = std::make_unique<AgentRuntime>(
        options, [agent](const std::string&, std::string&) -> std::shared_ptr<const ResolvedAgent> {
          return agent;
        });
    return *runtime_;
  }

  std::string submit(const std::string& session, TurnObserver observer = {}) {
    TurnRequest request;
    request.observer = std::move(observer);
    auto turn = runtime_->submitTurn(session, std::move(request));
    EXPECT_TRUE(turn) << turn.status().message();
    return turn ? turn->id : "";
  }

  std::string dir_;
  testing::ScriptAdapter adapter_;
  std::unique_ptr<AgentRuntime> runtime_;
};

// What the hooks and the observer saw, in order.
struct Log {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(std::string line) {
    std::lock_guard lock(mutex);
    lines.push_back(std::move(line));
  }
  std::vector<std::string> taken() {
    std::lock_guard lock(mutex);
    return lines;
  }
};

TEST_F(TurnEndHooksTest, HooksRunOnceInOrderBeforeTheEndIsPublished) {
  auto& rt = runtime("sleep 0.2; echo M done");
  auto session = rt.createSession("a");
  Log log;
  const auto id = submit(session->id, [&](const RuntimeEvent& e) {
    if (isTerminal(e.turn ? e.turn->status : TurnStatus::queued)) log.add("published " + e.type);
  });
  for (const char* name : {"first", "second"})
    rt.whenTurnEnds(id, [&log, name](const std::optional<Turn>& turn) {
      log.add(std::string(name) + " " + (turn ? turnStatusName(turn->status) : "gone"));
    });
  ASSERT_TRUE(rt.waitTurn(id, 10s));
  for (int i = 0; i < 200 && log.taken().size() < 3; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_THAT(log.taken(),
              ElementsAre("first completed", "second completed", "published turn.completed"));
}

TEST_F(TurnEndHooksTest, AnEndedOrUnknownTurnIsToldAtOnce) {
  auto& rt = runtime("echo M done");
  auto session = rt.createSession("a");
  const auto id = submit(session->id);
  ASSERT_TRUE(rt.waitTurn(id, 10s));
  std::optional<Turn> told;
  bool called = false;
  rt.whenTurnEnds(id, [&](const std::optional<Turn>& turn) {
    called = true;
    told = turn;
  });
  ASSERT_TRUE(called);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->status, TurnStatus::completed);
  called = false;
  rt.whenTurnEnds("turn_unknown", [&](const std::optional<Turn>& turn) {
    called = true;
    told = turn;
  });
  EXPECT_TRUE(called);
  EXPECT_FALSE(told);
}

TEST_F(TurnEndHooksTest, AHookForgetsTheTurnBeforeAnyReaderSeesItsEnd) {
  auto& rt = runtime("sleep 0.1; echo M done");
  auto session = rt.createSession("a");
  std::atomic<bool> gone_when_published{false};
  std::string id;
  id = submit(session->id, [&](const RuntimeEvent& e) {
    if (e.type == "turn.completed") gone_when_published = !runtime_->turn(e.turn_id).has_value();
  });
  rt.whenTurnEnds(id, [&](const std::optional<Turn>&) { runtime_->forgetTurn(id); });
  for (int i = 0; i < 400 && rt.turn(id); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(rt.turn(id));
  for (int i = 0; i < 100 && !gone_when_published; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(gone_when_published);
}

TEST_F(TurnEndHooksTest, QueuedTurnsTellTheirHooksHowTheyWent) {
  auto& rt = runtime("sleep 0.5; echo M done");
  auto session = rt.createSession("a");
  auto other = rt.createSession("a");
  const auto running = submit(session->id);
  const auto cancelled = submit(session->id);  // queued behind the first
  submit(other->id);
  const auto orphaned = submit(other->id);
  Log log;
  rt.whenTurnEnds(cancelled, [&](const std::optional<Turn>& turn) {
    log.add(turn ? turnStatusName(turn->status) : "gone");
  });
  rt.whenTurnEnds(orphaned, [&](const std::optional<Turn>& turn) {
    log.add(turn ? turnStatusName(turn->status) : "gone");
  });
  ASSERT_TRUE(rt.cancelTurn(cancelled));
  ASSERT_TRUE(rt.deleteSession(other->id));
  EXPECT_THAT(log.taken(), ElementsAre("cancelled", "gone"));
  EXPECT_EQ(rt.waitTurn(running, 10s)->status, TurnStatus::completed);
}

TEST_F(TurnEndHooksTest, AShutdownTellsTheHooksOfTurnsThatNeverRan) {
  auto& rt = runtime("exec sleep 30", /*concurrency=*/1);
  auto a = rt.createSession("a");
  auto b = rt.createSession("a");
  const auto running = submit(a->id);
  const auto queued = submit(b->id);
  Log log;
  for (const auto& id : {running, queued})
    rt.whenTurnEnds(id, [&log](const std::optional<Turn>& turn) {
      log.add(turn ? turnStatusName(turn->status) : "gone");
    });
  for (int i = 0; i < 200 && rt.turn(running)->status == TurnStatus::queued; ++i)
    std::this_thread::sleep_for(10ms);
  rt.shutdown();
  EXPECT_THAT(log.taken(), ElementsAre("cancelled", "gone"));
  bool late = false;
  rt.whenTurnEnds(queued, [&](const std::optional<Turn>& turn) { late = !turn; });
  EXPECT_TRUE(late) << "a hook added after the shutdown is told at once";
}

TEST_F(TurnEndHooksTest, NoEndSlipsBetweenTheCheckAndTheRegistration) {
  auto& rt = runtime("echo M done", /*concurrency=*/8);
  constexpr int kTurns = 40;
  std::map<std::string, int> calls;
  std::mutex mutex;
  std::vector<std::string> ids;
  for (int i = 0; i < kTurns; ++i) {
    auto session = rt.createSession("a");
    // Added right after the submit, racing the turn's end.
    ids.push_back(submit(session->id));
    rt.whenTurnEnds(ids.back(), [&, id = ids.back()](const std::optional<Turn>& turn) {
      std::lock_guard lock(mutex);
      calls[id] += turn && turn->status == TurnStatus::completed ? 1 : 100;
    });
  }
  for (const auto& id : ids) ASSERT_TRUE(rt.waitTurn(id, 10s));
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard lock(mutex);
      if (calls.size() == kTurns) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  std::lock_guard lock(mutex);
  ASSERT_EQ(calls.size(), static_cast<std::size_t>(kTurns));
  for (const auto& [id, n] : calls) EXPECT_EQ(n, 1) << id;
}

}  // namespace
}  // namespace abx::plugins::agents
