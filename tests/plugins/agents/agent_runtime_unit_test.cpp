// AgentRuntime: lifecycle, queueing, the concurrency cap, cancel, both
// timeouts, the output cap, failure classification, retention, persistence
// and the child environment — with ScriptAdapter (a /bin/sh script per
// agent) and millisecond limits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "abx/sdk/testing/fake_metrics.h"
#include "runtime/agent_child_env.h"
#include "runtime/agent_runtime.h"
#include "runtime/session_file.h"
#include "runtime_fixture.h"
#include "secret_redaction.h"

namespace abx::plugins::agents {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(RuntimeTest, TurnRunsToCompletionWithItemsAndEventsInOrder) {
  addAgent("a", "read p; echo S native-1; echo T \"hello \"; echo M \"hello $p\"");
  std::vector<RuntimeEvent> events;
  auto turn = runOnce("a", "world", nullptr, &events);
  EXPECT_EQ(turn.status, TurnStatus::completed);
  ASSERT_EQ(turn.items.size(), 1u);
  EXPECT_EQ(turn.items[0].type, "message");
  EXPECT_EQ(turn.items[0].text, "hello world");
  EXPECT_EQ(turn.items[0].status, "completed");
  EXPECT_TRUE(turn.items[0].id.starts_with("msg_"));
  // Deltas may be merged (the redactor holds back a possible secret's start).
  std::vector<std::string> kinds;
  std::string streamed;
  for (const auto& e : events) {
    if (e.type == "item.text.delta") {
      streamed += e.delta;
      if (kinds.back() == e.type) continue;
    }
    kinds.push_back(e.type);
  }
  EXPECT_THAT(kinds, ElementsAre("turn.queued", "turn.started", "item.added", "item.text.delta",
                                 "item.done", "turn.completed"));
  EXPECT_EQ(streamed, "hello world");
}

TEST_F(RuntimeTest, SecondTurnResumesWithTheCapturedNativeSessionId) {
  addAgent("a", "read p; echo S native-7; echo M ok");
  std::string session;
  runOnce("a", "one", &session);
  runOnce("a", "two", &session);
  ASSERT_EQ(adapter_.contexts.size(), 2u);
  EXPECT_TRUE(adapter_.contexts[0].first);
  EXPECT_EQ(adapter_.contexts[0].native_id, "");
  EXPECT_FALSE(adapter_.contexts[1].first);
  EXPECT_EQ(adapter_.contexts[1].native_id, "native-7");
  EXPECT_EQ(runtime_->session(session)->native_session_id, "native-7");
  EXPECT_EQ(runtime_->session(session)->turn_ids.size(), 2u);
}

TEST_F(RuntimeTest, TurnDirectoryIsPrivateAndRemovedAfterwards) {
  addAgent("a", "echo M \"$(cat \"$TURN_DIR/note.txt\")\"");
  auto turn = runOnce("a", "x");
  ASSERT_EQ(adapter_.contexts.size(), 1u);
  EXPECT_EQ(adapter_.contexts[0].turn_dir_mode, 0700u);
  EXPECT_EQ(turn.items.at(0).text, "hello");  // the adapter's file was there for the CLI
  EXPECT_FALSE(std::filesystem::exists(adapter_.contexts[0].turn_dir));
}

TEST_F(RuntimeTest, TurnsOfOneSessionRunOneAtATimeInOrder) {
  addAgent("a", "read p; sleep 0.1; echo M \"$p\"");
  auto& rt = runtime();
  auto session = rt.createSession("a");
  std::vector<RuntimeEvent> events;
  std::mutex mutex;
  std::vector<std::string> ids;
  for (const char* prompt : {"first", "second", "third"}) {
    TurnRequest request;
    request.prompt = prompt;
    request.observer = [&](const RuntimeEvent& e) {
      std::lock_guard lock(mutex);
      events.push_back(e);
    };
    ids.push_back(rt.submitTurn(session->id, std::move(request))->id);
  }
  for (const auto& id : ids) ASSERT_TRUE(rt.waitTurn(id, 10s));
  std::vector<std::string> lifecycle;
  for (const auto& e : events)
    if (e.type == "turn.started" || e.type == "turn.completed")
      lifecycle.push_back(e.type + ":" + e.turn_id);
  EXPECT_THAT(lifecycle, ElementsAre("turn.started:" + ids[0], "turn.completed:" + ids[0],
                                     "turn.started:" + ids[1], "turn.completed:" + ids[1],
                                     "turn.started:" + ids[2], "turn.completed:" + ids[2]));
  EXPECT_EQ(rt.turn(ids[2])->items[0].text, "third");
}

TEST_F(RuntimeTest, ConcurrencyCapQueuesTurnsOfOtherSessions) {
  addAgent("slow", "sleep 2; echo M done");
  auto& rt = runtime(/*concurrency=*/1);
  auto s1 = rt.createSession("slow");
  auto s2 = rt.createSession("slow");
  auto t1 = rt.submitTurn(s1->id, {});
  auto t2 = rt.submitTurn(s2->id, {});
  for (int i = 0; i < 500 && rt.turn(t1->id)->status == TurnStatus::queued; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(rt.turn(t1->id)->status, TurnStatus::in_progress);
  EXPECT_EQ(rt.turn(t2->id)->status, TurnStatus::queued);
  const RuntimeLoad busy = rt.load();  // what the metrics' gauges report: sessions, running, queued
  EXPECT_EQ(std::tie(busy.sessions, busy.running, busy.queued), std::make_tuple(2u, 1u, 1u));
  ASSERT_TRUE(rt.waitTurn(t2->id, 10s));
  EXPECT_EQ(rt.turn(t2->id)->status, TurnStatus::completed);
  EXPECT_GE(rt.turn(t2->id)->started_at, rt.turn(t1->id)->started_at);
  EXPECT_EQ(rt.load().running + rt.load().queued, 0u);
  // Both counted at their end, by the adapter's name and the outcome.
  EXPECT_EQ(metrics_.counters.at("abx_agent_turns_finished_total")
                ->labels({"script", "completed"})
                .value(),
            2);
  const auto& timed = metrics_.histograms.at("abx_agent_turn_duration_seconds")->labels({"script"});
  EXPECT_EQ(timed.bucket(0) + timed.bucket(1) + timed.bucket(2), 2u);
  EXPECT_GE(timed.sum(), 2.0);  // t1 slept 2 s
}

TEST_F(RuntimeTest, CancelStopsARunningTurnThroughTheLadder) {
  addAgent("hang", "echo T partial; exec sleep 30");
  auto& rt = runtime();
  auto session = rt.createSession("hang");
  auto turn = rt.submitTurn(session->id, {});
  for (int i = 0; i < 100 && rt.turn(turn->id)->items.empty(); ++i)
    std::this_thread::sleep_for(10ms);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(rt.cancelTurn(turn->id));
  auto done = rt.waitTurn(turn->id, 5s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, TurnStatus::cancelled);
  ASSERT_EQ(done->items.size(), 1u);
  EXPECT_EQ(done->items[0].status, "incomplete");
  EXPECT_EQ(done->items[0].text, "partial");
  EXPECT_EQ(rt.session(session->id)->status, SessionStatus::idle);
}

TEST_F(RuntimeTest, CancelOfAQueuedTurnNeverStartsIt) {
  addAgent("slow", "sleep 0.3; echo M done");
  auto& rt = runtime();
  auto session = rt.createSession("slow");
  auto t1 = rt.submitTurn(session->id, {});
  auto t2 = rt.submitTurn(session->id, {});
  auto cancelled = rt.cancelTurn(t2->id);
  ASSERT_TRUE(cancelled);
  EXPECT_EQ(cancelled->status, TurnStatus::cancelled);
  EXPECT_EQ(rt.waitTurn(t1->id, 10s)->status, TurnStatus::completed);
  EXPECT_EQ(rt.turn(t2->id)->started_at, 0);
}

TEST_F(RuntimeTest, TurnTimeoutFailsWithRequestTimeout) {
  addAgent("hang", "exec sleep 30", [](auto& s) { s.limits.turn_timeout_s = 0.2; });
  auto turn = runOnce("hang", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  ASSERT_TRUE(turn.error);
  EXPECT_EQ(turn.error->code, "request_timeout");
  EXPECT_THAT(turn.error->message, HasSubstr("0.2 s"));
}

TEST_F(RuntimeTest, IdleTimeoutFailsWhenTheAgentGoesQuiet) {
  addAgent("quiet", "echo T hi; exec sleep 30", [](auto& s) {
    s.limits.idle_timeout_s = 0.2;
    s.limits.turn_timeout_s = 20;
  });
  auto turn = runOnce("quiet", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  EXPECT_EQ(turn.error->code, "request_timeout");
  EXPECT_THAT(turn.error->message, HasSubstr("no output"));
}

TEST_F(RuntimeTest, OutputCapStopsTheAgent) {
  addAgent("flood", "yes T aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
           [](auto& s) { s.limits.max_output_bytes = 100000; });
  auto turn = runOnce("flood", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  EXPECT_EQ(turn.error->code, "output_limit_exceeded");
}

TEST_F(RuntimeTest, LinesOverFourMiBAreCutAndTheTurnGoesOn) {
  addAgent("a", "head -c 5000000 /dev/zero | tr '\\0' x; echo; echo M after");
  std::vector<RuntimeEvent> events;
  auto turn = runOnce("a", "x", nullptr, &events);
  EXPECT_EQ(turn.status, TurnStatus::completed);
  EXPECT_EQ(turn.items.at(0).text, "after");
  std::size_t longest = 0;
  for (const auto& e : events)
    if (e.type == "log") longest = std::max(longest, e.delta.size());
  EXPECT_EQ(longest, std::size_t{4} << 20);
}

TEST_F(RuntimeTest, MissingBinaryIsRuntimeNotInstalled) {
  addAgent("a", "true");
  adapter_.binary_override = "/nonexistent/agent-cli";
  auto turn = runOnce("a", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  EXPECT_EQ(turn.error->code, "runtime_not_installed");
}

TEST_F(RuntimeTest, ExitCodeAndStderrAreClassified) {
  addAgent("a", "echo 'Error: 401 Unauthorized: bad key SECRET-VALUE' >&2; exit 1");
  auto turn = runOnce("a", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  EXPECT_EQ(turn.error->code, "authentication_error");
  EXPECT_THAT(turn.error->message, HasSubstr("[REDACTED]"));
  EXPECT_THAT(turn.error->message, Not(HasSubstr("SECRET-VALUE")));
}

TEST_F(RuntimeTest, FatalErrorReportedOnStdoutFailsTheTurn) {
  addAgent("a", "echo E 'rate limit reached'; exit 0");
  auto turn = runOnce("a", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  EXPECT_EQ(turn.error->code, "rate_limit_exceeded");
}

TEST_F(RuntimeTest, ThrowingParserFailsTheTurnNotTheServer) {
  addAgent("a", "echo X; exec sleep 30");
  auto turn = runOnce("a", "x");
  EXPECT_EQ(turn.status, TurnStatus::failed);
  EXPECT_EQ(turn.error->code, "internal_error");
  EXPECT_THAT(turn.error->message, HasSubstr("cannot parse X"));
}

TEST_F(RuntimeTest, SecretsInOutputAreRedactedEvenAcrossDeltas) {
  addAgent("a", "echo T 'key SECRET-'; echo T 'VALUE end'");
  std::vector<RuntimeEvent> events;
  auto turn = runOnce("a", "x", nullptr, &events);
  ASSERT_EQ(turn.items.size(), 1u);
  EXPECT_EQ(turn.items[0].text, "key [REDACTED] end");
  for (const auto& e : events) EXPECT_THAT(e.delta, Not(HasSubstr("SECRET")));
}

TEST_F(RuntimeTest, AdaptersSeeTheUsageOfTheSessionsEarlierTurns) {
  addAgent("a", "echo M ok; echo U 100 7");
  std::string session;
  runOnce("a", "one", &session);
  auto second = runOnce("a", "two", &session);
  EXPECT_EQ(second.usage.input_tokens, 100);
  runOnce("a", "three", &session);
  ASSERT_EQ(adapter_.contexts.size(), 3u);
  EXPECT_EQ(adapter_.contexts[0].session_usage.input_tokens, 0);
  EXPECT_EQ(adapter_.contexts[1].session_usage.input_tokens, 100);
  EXPECT_EQ(adapter_.contexts[2].session_usage.input_tokens, 200);
  EXPECT_EQ(adapter_.contexts[2].session_usage.output_tokens, 14);
}

TEST_F(RuntimeTest, VaultBearerTokensBecomeTheMatchingMcpServersAuthorizationRedacted) {
  addAgent("a", "echo M \"$MCP_HEADER_0 | $MCP_HEADER_1 | $VAULT_ENV\"", [](auto& spec) {
    sdk::agents::McpServerSpec docs, other;
    docs.name = "docs";
    docs.url = "http://127.0.0.1:9/mcp";
    docs.headers = {{"X-Team", "blue", false}};
    other.name = "other";
    other.url = "http://127.0.0.1:9/other";
    spec.mcp_servers = {docs, other};
  });
  auto& rt = [&]() -> AgentRuntime& {
    RuntimeOptions options;
    options.state_dir = state_dir_ + "/state";
    options.clock = clock_;
    options.base_env = [] { return std::vector<std::string>{"PATH=/usr/bin:/bin"}; };
    options.redaction_for = [](const sdk::agents::AgentSpec& spec,
                               const std::vector<std::string>& extra) {
      return redactionFor(spec, extra);
    };
    runtime_ =
        std::make_unique<AgentRuntime>(options, [this](const std::string& name, std::string&) {
          return std::shared_ptr<const ResolvedAgent>(agents_.at(name));
        });
    return *runtime_;
  }();
  auto session = rt.createSession("a");
  ASSERT_TRUE(session);
  TurnRequest request;
  request.prompt = "x";
  request.secret_env = {{"VAULT_ENV", "vault-env-value-1"}};
  request.mcp_bearer_tokens = {{"http://127.0.0.1:9/mcp/", "bearer-token-value-2"}};
  auto turn = rt.submitTurn(session->id, std::move(request));
  ASSERT_TRUE(turn);
  auto done = rt.waitTurn(turn->id, 10s);
  ASSERT_TRUE(done);
  ASSERT_EQ(done->items.size(), 1u);
  EXPECT_EQ(done->items[0].text,
            "docs X-Team: blue | docs Authorization: Bearer [REDACTED] | [REDACTED]");
  // The definition itself is untouched: the token belongs to this turn only.
  EXPECT_EQ(agents_.at("a")->spec.mcp_servers[0].headers.size(), 1u);
}

TEST_F(RuntimeTest, IdleSessionsBeyondTheCapAreEvictedLeastRecentFirst) {
  addAgent("a", "echo M ok");
  auto& rt = runtime(4, /*max_sessions=*/2);
  auto s1 = rt.createSession("a");
  clock_->now += 10;
  auto s2 = rt.createSession("a");
  clock_->now += 10;
  auto s3 = rt.createSession("a");
  EXPECT_FALSE(rt.session(s1->id));
  EXPECT_TRUE(rt.session(s2->id));
  EXPECT_TRUE(rt.session(s3->id));
  EXPECT_TRUE(rt.deleteSession(s2->id));
  // The listener hears of both, with a reason the Agents wire passes on.
  EXPECT_THAT(ended_, ElementsAre(s1->id + ": The session was evicted: the server keeps at most 2 "
                                           "sessions (ABX_AGENTS_MAX_SESSIONS).",
                                  s2->id + ": The session was deleted."));
}

TEST_F(RuntimeTest, RunningSessionsAreNeverEvicted) {
  addAgent("hang", "exec sleep 30");
  addAgent("a", "echo M ok");
  auto& rt = runtime(4, /*max_sessions=*/1);
  auto busy = rt.createSession("hang");
  auto turn = rt.submitTurn(busy->id, {});
  auto other = rt.createSession("a");
  EXPECT_TRUE(rt.session(busy->id));
  EXPECT_TRUE(other);
  rt.cancelTurn(turn->id);
}

TEST_F(RuntimeTest, SessionsIdleLongerThanTheTtlAreEvicted) {
  addAgent("a", "echo M ok");
  auto& rt = runtime();
  auto old = rt.createSession("a");
  clock_->now += 24 * 3600 + 1;
  auto fresh = rt.createSession("a");
  EXPECT_FALSE(rt.session(old->id));
  EXPECT_TRUE(rt.session(fresh->id));
}

TEST_F(RuntimeTest, SessionsPersistAndReloadWithPrivateMode) {
  addAgent("a", "echo S n-1; echo M 'saved text'");
  std::string session;
  auto turn = runOnce("a", "x", &session);
  // sessions.json is written by a writer thread; shutdown waits for it.
  runtime_.reset();
  const auto file = state_dir_ + "/state/sessions.json";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  auto& rt = runtime();
  ASSERT_TRUE(rt.restore());
  auto restored = rt.session(session);
  ASSERT_TRUE(restored);
  EXPECT_EQ(restored->native_session_id, "n-1");
  auto restored_turn = rt.turn(turn.id);
  ASSERT_TRUE(restored_turn);
  EXPECT_EQ(restored_turn->status, TurnStatus::completed);
  EXPECT_EQ(restored_turn->items.at(0).text, "saved text");
}

TEST_F(RuntimeTest, InFlightTurnsComeBackFailedAfterARestart) {
  SessionFile file(state_dir_ + "/state");
  SessionInfo s;
  s.id = "agsess_1";
  s.agent = "a";
  s.turn_ids = {"turn_1"};
  Turn t;
  t.id = "turn_1";
  t.session_id = "agsess_1";
  t.status = TurnStatus::in_progress;
  ASSERT_TRUE(file.save({s}, {t}));
  auto& rt = runtime();
  ASSERT_TRUE(rt.restore());
  auto turn = rt.turn("turn_1");
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->status, TurnStatus::failed);
  EXPECT_EQ(turn->error->code, "internal_error");
  EXPECT_EQ(turn->error->message, "server restarted");
}

TEST(AgentChildEnv, OnlyAllowlistPassthroughCredentialsAndDefinitionEnvReachTheChild) {
  AgentEnvParts parts;
  parts.base = {"PATH=/bin",          "HOME=/h",  "LC_ALL=C",
                "SECRET_OF_SERVER=x", "PASSME=1", "NPM_CONFIG_REGISTRY=r",
                "ABX_SERVER_TOKEN=t"};
  parts.passthrough = {"PASSME", "ABX_SERVER_TOKEN"};
  parts.credentials = {{"OPENAI_API_KEY", "k"}};
  parts.definition_env = {{"LOG_LEVEL", "debug"}, {"PATH", "/custom"}};
  parts.secrets = {{"NPM_TOKEN", "n"}};
  parts.invocation = {{"EXTRA", "e"}};
  EXPECT_THAT(buildAgentEnv(parts), ElementsAre("EXTRA=e", "HOME=/h", "LC_ALL=C", "LOG_LEVEL=debug",
                                                "NPM_CONFIG_REGISTRY=r", "NPM_TOKEN=n",
                                                "OPENAI_API_KEY=k", "PASSME=1", "PATH=/custom"));
}

}  // namespace
}  // namespace abx::plugins::agents
