// RuntimeTest: the AgentRuntime fixture the runtime's unit tests share — a
// temporary state dir and workspace, ScriptAdapter agents (see
// runtime_test_support.h), a fake clock, counted metrics and the
// session.ended news, with runOnce() for a whole turn.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abx/sdk/testing/fake_metrics.h"
#include "runtime/agent_runtime.h"
#include "runtime_test_support.h"

namespace abx::plugins::agents {

class FakeClock final : public RuntimeClock {
 public:
  std::int64_t unixSeconds() const override { return now; }
  std::int64_t now = 1'000'000;
};

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/abx-runtime-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    state_dir_ = dir;
    workdir_ = state_dir_ + "/work";
  }
  void TearDown() override {
    runtime_.reset();
    std::filesystem::remove_all(state_dir_);
  }

  void addAgent(const std::string& name, const std::string& script,
                std::function<void(sdk::agents::AgentSpec&)> tweak = {}) {
    sdk::agents::AgentSpec spec;
    spec.name = name;
    spec.runtime = "script";
    spec.workspace.path = workdir_;
    spec.extra_args = {script};
    if (tweak) tweak(spec);
    auto agent = std::make_shared<ResolvedAgent>();
    agent->spec = spec;
    agent->adapter = &adapter_;
    agent->redaction = std::make_shared<testing::MarkerRedaction>();
    agents_[name] = agent;
  }

  AgentRuntime& runtime(std::size_t concurrency = 4, std::size_t max_sessions = 200) {
    RuntimeOptions options;
    options.max_concurrent_turns = concurrency;
    options.max_sessions = max_sessions;
    options.state_dir = state_dir_ + "/state";
    options.ladder = {std::chrono::milliseconds(50), std::chrono::milliseconds(50)};
    options.clock = clock_;
    options.turns_finished = &metrics_.counter("abx_agent_turns_finished_total", "", {});
    options.turn_seconds = &metrics_.histogram("abx_agent_turn_duration_seconds", "", {1, 10}, {});
    options.base_env = [] {
      return std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=/tmp", "ABX_SERVER_TOKEN=never",
                                      "UNLISTED=no"};
    };
    options.listener = [this](const std::string& session_id, const RuntimeEvent& e) {
      if (e.type != "session.ended") return;
      std::lock_guard lock(ended_mutex_);
      ended_.push_back(session_id + ": " + e.delta);
    };
    runtime_ =
        std::make_unique<AgentRuntime>(options, [this](const std::string& name, std::string& why) {
          auto it = agents_.find(name);
          if (it == agents_.end()) {
            why = "no agent " + name;
            return std::shared_ptr<const ResolvedAgent>();
          }
          return std::shared_ptr<const ResolvedAgent>(it->second);
        });
    return *runtime_;
  }

  Turn runOnce(const std::string& agent, const std::string& prompt, std::string* session = nullptr,
               std::vector<RuntimeEvent>* events = nullptr) {
    auto& rt = runtime_ ? *runtime_ : runtime();
    std::string session_id;
    if (session && !session->empty()) {
      session_id = *session;
    } else {
      auto created = rt.createSession(agent);
      EXPECT_TRUE(created) << created.status().message();
      session_id = created->id;
      if (session) *session = session_id;
    }
    TurnRequest request;
    request.prompt = prompt;
    auto mutex = std::make_shared<std::mutex>();
    if (events)
      request.observer = [events, mutex](const RuntimeEvent& e) {
        std::lock_guard lock(*mutex);
        events->push_back(e);
      };
    auto turn = rt.submitTurn(session_id, std::move(request));
    EXPECT_TRUE(turn) << turn.status().message();
    auto done = rt.waitTurn(turn->id, std::chrono::seconds(10));
    EXPECT_TRUE(done);
    return done.value_or(Turn{});
  }

  std::string state_dir_;
  std::string workdir_;
  testing::ScriptAdapter adapter_;
  std::map<std::string, std::shared_ptr<ResolvedAgent>> agents_;
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  sdk::testing::FakeMetrics metrics_;  // before runtime_, which counts in it
  std::unique_ptr<AgentRuntime> runtime_;
  std::mutex ended_mutex_;
  std::vector<std::string> ended_;  // "<session>: <why>" of session.ended
};

}  // namespace abx::plugins::agents
