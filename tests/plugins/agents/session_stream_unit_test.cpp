// SessionStream: the Agents wire's per-session event ring — ids, the
// mapping of a turn, replay after a sequence number and the gap a reader
// that fell behind the ring is told about.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "wire/session_feed.h"
#include "wire/session_stream.h"

namespace abx::plugins::agents {
namespace {

using ::testing::HasSubstr;

// Every event after @p after, as a subscriber would take them; false once closed.
bool readAll(const SessionStream& stream, std::uint64_t& after,
             std::vector<SessionStream::Event>& out, bool& gap) {
  return stream.collect(after, gap, [&](const SessionStream::Event& e) {
    out.push_back(e);
    return true;
  });
}

// Every event the stream holds, from the first.
std::vector<SessionStream::Event> eventsOf(const SessionStream& stream) {
  std::uint64_t after = 0;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  readAll(stream, after, events, gap);
  return events;
}

SessionInfo idleSession() {
  SessionInfo s;
  s.id = "agsess_1";
  s.agent = "fake";
  return s;
}

TEST(SessionStream, MapsATurnAndNumbersEveryEvent) {
  SessionStream stream("agsess_1", 100, [] { return std::optional<SessionInfo>(idleSession()); });
  stream.created(idleSession());
  Turn turn;
  turn.id = "turn_1";
  turn.session_id = "agsess_1";
  turn.input.push_back({"msg_u", "user", "hi"});
  RuntimeEvent queued;
  queued.type = "turn.queued";
  queued.turn_id = "turn_1";
  queued.turn = std::make_shared<const Turn>(turn);
  stream.onRuntimeEvent(queued);
  std::uint64_t after = 0;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  EXPECT_TRUE(readAll(stream, after, events, gap));
  EXPECT_FALSE(gap);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "agent.session.created");
  EXPECT_THAT(events[0].frame, HasSubstr(R"("event_id":"evt_00000001")"));
  EXPECT_EQ(events[1].type, "agent.session.turn.created");
  EXPECT_THAT(events[1].frame, HasSubstr(R"("subagent_id":null)"));
  EXPECT_EQ(events[2].type, "agent.session.turn.item.added");
  EXPECT_THAT(events[2].frame, HasSubstr(R"("output_index":null)"));
  EXPECT_EQ(after, 3u);
}

TEST(SessionStream, AReaderBehindTheRingIsToldOfTheGap) {
  SessionStream stream("agsess_1", 3, [] { return std::optional<SessionInfo>(idleSession()); });
  for (int i = 0; i < 6; ++i) stream.created(idleSession());
  std::uint64_t after = 1;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  readAll(stream, after, events, gap);
  EXPECT_TRUE(gap);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events.front().seq, 4u);
  EXPECT_EQ(after, 6u);
}

TEST(SessionStream, SubscribersAreCapped) {
  SessionStream stream("agsess_1", 10, [] { return std::optional<SessionInfo>(); });
  for (std::size_t i = 0; i < SessionStream::kMaxSubscribers; ++i) EXPECT_TRUE(stream.subscribe());
  EXPECT_FALSE(stream.subscribe());
  stream.unsubscribe();
  EXPECT_TRUE(stream.subscribe());
}

TEST(SessionStreams, AnEndedSessionSendsSessionFailedWithItsVaultsThenClosesAndIsDropped) {
  SessionStreams streams(100);
  auto stream = streams.open(
      "agsess_1", [] { return std::optional<SessionInfo>(); },
      [](const SessionInfo&) {
        return SessionExtras{{"vlt_a"}, {}};
      });
  RuntimeEvent ended;
  ended.type = "session.ended";
  ended.delta = "The session was evicted.";
  ended.session = std::make_shared<const SessionInfo>(idleSession());
  streams.onRuntimeEvent("agsess_1", ended);
  EXPECT_EQ(streams.find("agsess_1"), nullptr);
  std::uint64_t after = 0;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  EXPECT_FALSE(readAll(*stream, after, events, gap));  // closed
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "agent.session.failed");
  EXPECT_THAT(events[0].frame,
              HasSubstr(R"("status":"failed","error":"The session was evicted.")"));
  EXPECT_THAT(events[0].frame, HasSubstr(R"("vault_ids":["vlt_a"])"));
}

TEST(SessionStream, SessionEventsCarryTheSessionsVaultIds) {
  SessionStream stream(
      "agsess_1", 10, [] { return std::optional<SessionInfo>(idleSession()); },
      [](const SessionInfo& session) {
        EXPECT_EQ(session.id, "agsess_1");
        return SessionExtras{{"vlt_a", "vlt_b"}, R"({"id":"helper","name":null})"};
      });
  stream.created(idleSession());
  const auto events = eventsOf(stream);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THAT(events[0].frame, HasSubstr(R"("vault_ids":["vlt_a","vlt_b"])"));
  // The agent object is the wire's (the definition as the turns get it).
  EXPECT_THAT(events[0].frame, HasSubstr(R"("agent":{"id":"helper","name":null})"));
  EXPECT_THAT(events[0].frame, HasSubstr(R"("usage":null)"));
}

TEST(SessionStream, ACliErrorThatDoesNotEndTheTurnIsAnErrorEvent) {
  SessionStream stream("agsess_1", 10, [] { return std::optional<SessionInfo>(idleSession()); });
  RuntimeEvent warning;
  warning.type = "error";
  warning.turn_id = "turn_1";
  warning.code = "rate_limit_exceeded";
  warning.delta = "Rate limited; retrying in 2s";
  stream.onRuntimeEvent(warning);
  const auto events = eventsOf(stream);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "error");
  EXPECT_THAT(events[0].frame,
              HasSubstr(R"("session_id":"agsess_1","error":{"code":"rate_limit_exceeded",)"
                        R"("message":"Rate limited; retrying in 2s","param":null,)"
                        R"("type":"agent_error"}})"));
}

TEST(SessionStream, ATurnEndWithAnotherTurnQueuedSendsNoIdle) {
  SessionInfo busy = idleSession();
  busy.status = SessionStatus::in_progress;
  busy.usage = sdk::agents::TokenUsage{10, 0, 5, 0, 0};
  SessionStream stream("agsess_1", 10, [busy] { return std::optional<SessionInfo>(busy); });
  Turn turn;
  turn.id = "turn_1";
  turn.session_id = "agsess_1";
  turn.status = TurnStatus::completed;
  RuntimeEvent done;
  done.type = "turn.completed";
  done.turn_id = turn.id;
  done.turn = std::make_shared<const Turn>(turn);
  stream.onRuntimeEvent(done);
  const auto events = eventsOf(stream);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "agent.session.turn.completed");
}

TEST(SessionStream, AnEventIsEncodedOnceWithItsSequenceAsSseId) {
  SessionStream stream("agsess_1", 10, [] { return std::optional<SessionInfo>(idleSession()); });
  stream.created(idleSession());
  const auto events = eventsOf(stream);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].frame.rfind("id: 1\nevent: agent.session.created\ndata: {", 0), 0u)
      << events[0].frame;
  EXPECT_TRUE(events[0].frame.ends_with("}\n\n"));
}

TEST(SessionFeed, PullsWithinItsBudgetAndSaysWhenMoreIsWaiting) {
  auto stream = std::make_shared<SessionStream>(
      "agsess_1", 100, [] { return std::optional<SessionInfo>(idleSession()); });
  for (int i = 0; i < 10; ++i) stream->created(idleSession());
  SessionFeed feed(stream, 0, false, false);
  std::string out;
  // The first event always fits, whatever the budget: a pull never stalls.
  EXPECT_EQ(feed.pull(out, 1), sdk::SseFeed::Pull::more);
  EXPECT_EQ(feed.position(), 1u);
  EXPECT_EQ(out.rfind("id: 1\n", 0), 0u);
  out.clear();
  EXPECT_EQ(feed.pull(out, 1 << 20), sdk::SseFeed::Pull::wait);
  EXPECT_EQ(feed.position(), 10u);
  EXPECT_NE(out.find("id: 10\n"), std::string::npos);
  out.clear();
  EXPECT_EQ(feed.pull(out, 1 << 20), sdk::SseFeed::Pull::wait);
  EXPECT_TRUE(out.empty());
  stream->close();
  EXPECT_EQ(feed.pull(out, 1 << 20), sdk::SseFeed::Pull::end);
}

TEST(SessionFeed, AFeedBehindTheRingGetsTheGapErrorFirst) {
  auto stream = std::make_shared<SessionStream>(
      "agsess_1", 3, [] { return std::optional<SessionInfo>(idleSession()); });
  for (int i = 0; i < 6; ++i) stream->created(idleSession());
  SessionFeed feed(stream, 1, false, false);
  std::string out;
  feed.pull(out, 1 << 20);
  EXPECT_EQ(
      out.rfind("event: error\ndata: {\"type\":\"error\",\"event_id\":\"evt_gap_after_1\"", 0), 0u)
      << out;
  EXPECT_NE(out.find("\"code\":\"events_dropped\""), std::string::npos);
  EXPECT_NE(out.find("id: 4\n"), std::string::npos);
  EXPECT_EQ(feed.position(), 6u);
}

TEST(SessionFeed, ACreateAndStreamEndsAtTheFirstIdleAfterItsTurn) {
  auto stream = std::make_shared<SessionStream>(
      "agsess_1", 100, [] { return std::optional<SessionInfo>(idleSession()); });
  Turn turn;
  turn.id = "turn_1";
  turn.session_id = "agsess_1";
  turn.status = TurnStatus::completed;
  stream->created(idleSession());
  RuntimeEvent done;
  done.type = "turn.completed";
  done.turn_id = "turn_1";
  done.turn = std::make_shared<const Turn>(turn);
  stream->onRuntimeEvent(done);  // turn.completed, then session.idle
  stream->onRuntimeEvent(done);  // after the end: never sent
  SessionFeed feed(stream, 0, true, false);
  std::string out;
  EXPECT_EQ(feed.pull(out, 1 << 20), sdk::SseFeed::Pull::end);
  EXPECT_NE(out.find("id: 1\nevent: agent.session.created"), std::string::npos) << out;
  EXPECT_NE(out.find("id: 3\nevent: agent.session.idle"), std::string::npos) << out;
  EXPECT_EQ(out.find("id: 4\n"), std::string::npos) << out;
  EXPECT_EQ(feed.position(), 3u);
}

TEST(SessionFeed, ASubscribedFeedGivesItsPlaceBack) {
  auto stream =
      std::make_shared<SessionStream>("agsess_1", 10, [] { return std::optional<SessionInfo>(); });
  for (std::size_t i = 0; i < SessionStream::kMaxSubscribers; ++i) ASSERT_TRUE(stream->subscribe());
  EXPECT_FALSE(stream->subscribe());
  { SessionFeed feed(stream, 0, false, true); }
  EXPECT_TRUE(stream->subscribe());
}

}  // namespace
}  // namespace abx::plugins::agents
