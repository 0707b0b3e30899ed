// Integration: `kill -9` of the real server during turns and during state
// writes, again and again, each time followed by a restart on the same state
// directory. Every restart must succeed, sessions.json must always parse,
// every turn a client saw completed must still be there with its items, and
// every turn the kill interrupted must be failed with a clear reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "agent_faults_support.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using namespace faults;
using ::testing::IsEmpty;

constexpr const char* kToken = "restart-token-1234";
const auto kAuth = bearerJson(kToken);
// The issue asks for 100 kills; a 2-core CI machine gets a time budget too.
constexpr int kMaxIterations = 100;
constexpr auto kBudget = 60s;

ServerOptions restartServer(const std::string& state, const std::string& mark) {
  const std::string agent_env =
      "FAKE_FAULT_MARK: \"" + mark + "\", FAKE_AGENT_STATE_DIR: \"" + state + "/fake\"";
  auto o = fakeAgentsServer(R"(agents:
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "40", )" +
                                agent_env + R"(}
    workspace: {path: ")" + state +
                                R"(/work"}
  - name: quick
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {)" + agent_env + R"(}
    workspace: {path: ")" + state +
                                R"(/work"}
)",
                            kToken);
  o.env["ABX_AGENTS_STATE_DIR"] = state + "/agents";
  o.env["ABX_AGENTS_MAX_SESSIONS"] = "2000";
  return o;
}

// Whether sessions.json in @p state says @p turn completed.
bool savedCompleted(const std::string& state, const std::string& turn) {
  try {
    auto turns = parseObject(readText(state + "/agents/sessions.json"))->getArray("turns");
    for (std::size_t i = 0; turns && i < turns->size(); ++i)
      if (turns->getObject(i)->getValue<std::string>("id") == turn)
        return turns->getObject(i)->getValue<std::string>("status") == "completed";
  } catch (const std::exception&) {
  }
  return false;
}

std::size_t itemCount(int port, const std::string& session, const std::string& turn) {
  auto r =
      http(port, "GET", "/v1/agents/sessions/" + session + "/turns/" + turn + "/items", "", kAuth);
  return r.status == 200 ? parseObject(r.body)->getArray("data")->size() : 0;
}

std::string startTurn(int port, const std::string& agent, const std::string& input) {
  auto r = http(port, "POST", "/v1/agents/sessions",
                R"({"agent_id":")" + agent + R"(","input":")" + input + R"("})", kAuth);
  return r.status == 200 ? parseObject(r.body)->getValue<std::string>("id") : "";
}

struct SeenCompleted {
  std::string session, turn;
  std::size_t items = 0;
};

struct Tally {
  int interrupted_failed = 0, interrupted_completed = 0, interrupted_missing = 0;
};

// After a restart: every turn of the sessions the killed server ran has
// ended; the ones it never finished say why.
void checkInterrupted(int port, const std::vector<std::string>& sessions, Tally& tally) {
  for (const auto& session : sessions) {
    const auto turns = turnsOf(port, session, kToken);
    if (turns.empty()) ++tally.interrupted_missing;
    for (const auto& turn : turns) {
      const auto status = turn->getValue<std::string>("status");
      ASSERT_TRUE(terminal(status)) << session << " has a turn still " << status;
      if (status == "completed") {
        ++tally.interrupted_completed;
        EXPECT_GT(itemCount(port, session, turn->getValue<std::string>("id")), 0u);
        continue;
      }
      ++tally.interrupted_failed;
      auto error = turn->getObject("error");
      ASSERT_TRUE(error) << session;
      EXPECT_EQ(error->getValue<std::string>("message"), "server restarted");
      EXPECT_FALSE(error->getValue<std::string>("code").empty());
    }
  }
}

TEST(AgentRestart, KillNineMidTurnAndMidWriteLosesNothingCompletedAndAlwaysRestarts) {
  char tmpl[] = "/tmp/abx-restart-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string state = tmpl;
  const auto mark = std::to_string(std::random_device{}());
  const auto options = restartServer(state, mark);
  std::mt19937 rng(std::random_device{}());
  std::vector<SeenCompleted> completed;
  std::vector<std::string> last_sessions;
  Tally tally;
  int iterations = 0, mid_write = 0;
  double save_lag = 0;
  const auto began = Clock::now();
  for (; iterations < kMaxIterations && Clock::now() - began < kBudget; ++iterations) {
    std::optional<ServerProcess> server;
    try {
      server.emplace(options);
    } catch (const std::exception& e) {
      FAIL() << "restart " << iterations << " failed: " << e.what();
    }
    const int port = server->port();
    for (const auto& seen : completed) {
      auto r = http(port, "GET", "/v1/agents/sessions/" + seen.session + "/turns/" + seen.turn, "",
                    kAuth);
      ASSERT_EQ(r.status, 200) << "a completed turn is gone after restart " << iterations;
      ASSERT_EQ(parseObject(r.body)->getValue<std::string>("status"), "completed");
      ASSERT_EQ(itemCount(port, seen.session, seen.turn), seen.items);
    }
    checkInterrupted(port, last_sessions, tally);
    if (::testing::Test::HasFailure()) return;

    // A turn the client sees completed, then one in flight, and a burst of
    // short turns whose ends make the state writes frequent.
    const auto session = startTurn(port, "slow", "one");
    ASSERT_FALSE(session.empty());
    auto first = waitTurnEnd(port, session, kToken, {}, 15s);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->getValue<std::string>("status"), "completed");
    const auto turn_id = first->getValue<std::string>("id");
    completed.push_back({session, turn_id, itemCount(port, session, turn_id)});
    ASSERT_GT(completed.back().items, 0u);
    // A turn's end is on disk before its events and answers go out; a
    // poller of GET …/turns may see it a write's time earlier.
    const auto seen_at = Clock::now();
    while (!savedCompleted(state, turn_id) && Clock::now() - seen_at < 1s)
      std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(savedCompleted(state, turn_id));
    save_lag = std::max(save_lag, std::chrono::duration<double>(Clock::now() - seen_at).count());
    last_sessions = {session};
    auto second =
        http(port, "POST", "/v1/agents/sessions/" + session + "/events",
             R"({"events":[{"type":"agent.session.input.message","input":"two"}]})", kAuth);
    ASSERT_EQ(second.status, 202);
    for (int i = 0; i < 3; ++i) last_sessions.push_back(startTurn(port, "quick", "q"));
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 400));
    ::kill(server->pid(), SIGKILL);
    ASSERT_TRUE(server->waitExit(5s));
    // Whatever instant the kill hit, the file on disk is whole.
    if (std::filesystem::exists(state + "/agents/sessions.json.tmp")) ++mid_write;
    const auto file = readText(state + "/agents/sessions.json");
    ASSERT_NO_THROW(parseObject(file)) << "torn sessions.json after kill " << iterations;
  }
  // One last start proves the final kill's state loads too.
  {
    ServerProcess server(options);
    checkInterrupted(server.port(), last_sessions, tally);
  }
  std::cout << "[figure] kill -9 loop: " << iterations << " kills and restarts in "
            << std::chrono::duration<double>(Clock::now() - began).count() << " s; "
            << completed.size() << " completed turns kept; interrupted turns failed "
            << tally.interrupted_failed << ", completed before the kill "
            << tally.interrupted_completed << "; sessions without a turn "
            << tally.interrupted_missing << "; kills that left a sessions.json.tmp behind "
            << mid_write << "; longest lag from a client seeing a turn completed to it saved "
            << save_lag * 1000 << " ms\n";
  EXPECT_GE(iterations, 10);
  // Every session and turn a client was told of came back (failed or done).
  EXPECT_EQ(tally.interrupted_missing, 0);
  // The CLIs the killed servers left behind end at their next write (EPIPE).
  EXPECT_THAT(waitNoneLeft(mark, 5s), IsEmpty());
  std::error_code ec;
  std::filesystem::remove_all(state, ec);
}

}  // namespace
}  // namespace abx::testing
