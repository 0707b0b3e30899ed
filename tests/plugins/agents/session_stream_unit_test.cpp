// SessionStream: the Agents wire's per-session event ring — ids, the
// mapping of a turn, replay after a sequence number and the gap a reader
// that fell behind the ring is told about.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "wire/session_stream.h"

namespace abx::plugins::agents {
namespace {

using ::testing::HasSubstr;

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
  EXPECT_TRUE(stream.read(after, events, std::chrono::milliseconds(1), gap));
  EXPECT_FALSE(gap);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "agent.session.created");
  EXPECT_THAT(events[0].data, HasSubstr(R"("event_id":"evt_00000001")"));
  EXPECT_EQ(events[1].type, "agent.session.turn.created");
  EXPECT_THAT(events[1].data, HasSubstr(R"("subagent_id":null)"));
  EXPECT_EQ(events[2].type, "agent.session.turn.item.added");
  EXPECT_THAT(events[2].data, HasSubstr(R"("output_index":null)"));
  EXPECT_EQ(after, 3u);
}

TEST(SessionStream, AReaderBehindTheRingIsToldOfTheGap) {
  SessionStream stream("agsess_1", 3, [] { return std::optional<SessionInfo>(idleSession()); });
  for (int i = 0; i < 6; ++i) stream.created(idleSession());
  std::uint64_t after = 1;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  stream.read(after, events, std::chrono::milliseconds(1), gap);
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
      [] { return std::vector<std::string>{"vlt_a"}; });
  RuntimeEvent ended;
  ended.type = "session.ended";
  ended.delta = "The session was evicted.";
  ended.session = std::make_shared<const SessionInfo>(idleSession());
  streams.onRuntimeEvent("agsess_1", ended);
  EXPECT_EQ(streams.find("agsess_1"), nullptr);
  std::uint64_t after = 0;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  EXPECT_FALSE(stream->read(after, events, std::chrono::milliseconds(1), gap));  // closed
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "agent.session.failed");
  EXPECT_THAT(events[0].data, HasSubstr(R"("status":"failed","error":"The session was evicted.")"));
  EXPECT_THAT(events[0].data, HasSubstr(R"("vault_ids":["vlt_a"])"));
}

TEST(SessionStream, SessionEventsCarryTheSessionsVaultIds) {
  SessionStream stream(
      "agsess_1", 10, [] { return std::optional<SessionInfo>(idleSession()); },
      [] {
        return std::vector<std::string>{"vlt_a", "vlt_b"};
      });
  stream.created(idleSession());
  std::uint64_t after = 0;
  std::vector<SessionStream::Event> events;
  bool gap = false;
  stream.read(after, events, std::chrono::milliseconds(1), gap);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THAT(events[0].data, HasSubstr(R"("vault_ids":["vlt_a","vlt_b"])"));
}

}  // namespace
}  // namespace abx::plugins::agents
