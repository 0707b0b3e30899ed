// The agent runtime's enforced limits without a server: the retention
// timer (its period, a prompt stop, and AgentRuntime evicting on it with no
// new session), retain() against TTL and max_sessions, and the hard limits
// of a turn (cpu_seconds, the policy's max_duration_seconds) as the
// launch gets them and as a failure names them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <thread>

#include "runtime/agent_runtime.h"
#include "runtime/retention_timer.h"
#include "runtime/turn_hard_limits.h"
#include "runtime_test_support.h"

namespace abx::plugins::agents {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ::testing::HasSubstr;

class ManualClock final : public RuntimeClock {
 public:
  std::int64_t unixSeconds() const override { return now.load(); }
  std::atomic<std::int64_t> now{2'000'000};
};

TEST(RetentionTimer, TicksOnItsPeriodAndStopsAtOnce) {
  std::atomic<int> ticks{0};
  RetentionTimer timer(10ms, [&] { ++ticks; });
  timer.start();
  timer.start();  // one thread only
  const auto deadline = Clock::now() + 2s;
  while (ticks < 3 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_GE(ticks.load(), 3);

  RetentionTimer slow(1h, [] {});
  slow.start();
  const auto start = Clock::now();
  slow.stop();
  EXPECT_LT(Clock::now() - start, 500ms);  // woken, not waiting out the hour
  slow.start();                            // a stopped timer stays stopped
}

TEST(RetentionTimer, IntervalIsAQuarterOfTheTtlWithinBounds) {
  EXPECT_EQ(retentionInterval(1), 250ms);
  EXPECT_EQ(retentionInterval(8), 2000ms);
  EXPECT_EQ(retentionInterval(86400), 60000ms);
}

class RetentionTest : public ::testing::Test {
 protected:
  AgentRuntime& runtime(std::int64_t ttl_s, std::size_t max_sessions,
                        std::optional<std::chrono::milliseconds> interval) {
    RuntimeOptions options;
    options.session_ttl_s = ttl_s;
    options.max_sessions = max_sessions;
    options.retention_interval = interval;
    options.clock = clock_;
    agent_->spec.name = "a";
    agent_->adapter = &adapter_;
    runtime_ = std::make_unique<AgentRuntime>(
        options, [this](const std::string&, std::string&) { return agent_; });
    return *runtime_;
  }

  testing::ScriptAdapter adapter_;
  std::shared_ptr<ResolvedAgent> agent_ = std::make_shared<ResolvedAgent>();
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::unique_ptr<AgentRuntime> runtime_;
};

TEST_F(RetentionTest, RetainEvictsExpiredSessionsWithoutANewOne) {
  auto& rt = runtime(60, 200, std::nullopt);
  auto old = rt.createSession("a");
  clock_->now += 30;
  auto young = rt.createSession("a");
  clock_->now += 31;
  rt.retain();
  EXPECT_FALSE(rt.session(old->id));
  EXPECT_TRUE(rt.session(young->id));
}

TEST_F(RetentionTest, RetainKeepsMaxSessionsNotOneLess) {
  auto& rt = runtime(3600, 2, std::nullopt);
  auto a = rt.createSession("a");
  clock_->now += 1;
  auto b = rt.createSession("a");
  rt.retain();
  EXPECT_TRUE(rt.session(a->id));
  EXPECT_TRUE(rt.session(b->id));
}

TEST_F(RetentionTest, TheTimerEvictsWhileNobodyCallsTheRuntime) {
  auto& rt = runtime(5, 200, 10ms);
  auto s = rt.createSession("a");  // starts the timer
  clock_->now += 6;
  const auto deadline = Clock::now() + 2s;
  while (rt.session(s->id) && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(rt.session(s->id));
  const auto start = Clock::now();
  rt.shutdown();
  EXPECT_LT(Clock::now() - start, 1s);
}

TEST(TurnHardLimits, CpuSecondsGoesOnTheLaunchAndNamesTheFailure) {
  sdk::agents::AgentSpec spec;
  spec.name = "burner";
  spec.limits.cpu_seconds = 7;
  TurnProcessLimits limits;
  applyHardLimits(spec, TurnRequest{}, limits);
  EXPECT_EQ(limits.cpu_seconds, 7u);
  EXPECT_FALSE(limits.turn_timeout);

  TurnProcessOutcome outcome;
  outcome.exit_code = -SIGXCPU;
  auto failure = hardLimitFailure(spec, limits, outcome);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->code, "sandbox_error");
  EXPECT_EQ(failure->message, "agent 'burner' passed limits.cpu_seconds (7 s of CPU time)");
  outcome.exit_code = -SIGKILL;  // the hard limit, for an agent that handles SIGXCPU
  EXPECT_TRUE(hardLimitFailure(spec, limits, outcome));
  outcome.stop = TurnStop::cancelled;  // our own ladder's SIGKILL is no CPU limit
  EXPECT_FALSE(hardLimitFailure(spec, limits, outcome));
  outcome.stop = TurnStop::exited;
  limits.cpu_seconds.reset();
  EXPECT_FALSE(hardLimitFailure(spec, limits, outcome));
}

TEST(TurnHardLimits, MaxDurationIsACeilingOverTheTurnTimeout) {
  sdk::agents::AgentSpec spec;
  TurnRequest request;
  request.max_duration = 1500ms;
  TurnProcessLimits limits;
  limits.turn_timeout = 60s;
  applyHardLimits(spec, request, limits);
  EXPECT_EQ(limits.turn_timeout, 1500ms);
  EXPECT_TRUE(limits.timeout_is_max_duration);
  TurnProcessOutcome outcome;
  outcome.stop = TurnStop::turn_timeout;
  auto failure = hardLimitFailure(spec, limits, outcome);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->code, "request_timeout");
  EXPECT_THAT(failure->message, HasSubstr("limits.max_duration_seconds (1.5 s)"));

  TurnProcessLimits shorter;
  shorter.turn_timeout = 1s;  // the definition's own is shorter: it stays
  applyHardLimits(spec, request, shorter);
  EXPECT_EQ(shorter.turn_timeout, 1s);
  EXPECT_FALSE(shorter.timeout_is_max_duration);
  EXPECT_FALSE(hardLimitFailure(spec, shorter, outcome));
}

TEST(TurnHardLimits, MaxTurnsOfARuntimeWithoutASwitchIsRefused) {
  testing::ScriptAdapter adapter;  // capabilities: no max_turns
  sdk::agents::AgentSpec spec;
  EXPECT_FALSE(unenforceableLimit(spec, adapter));
  spec.limits.max_turns = 3;
  auto refused = unenforceableLimit(spec, adapter);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, "invalid_request");
  EXPECT_EQ(refused->message,
            "limits.max_turns is not supported by runtime 'script' (it has no turn limit); "
            "remove it");
}

}  // namespace
}  // namespace abx::plugins::agents
