// Tickets: 128-bit, bound to one session, single use, 60 s, with an
// injected clock.
#include <gtest/gtest.h>

#include <set>

#include "tickets.h"

namespace abx::plugins::terminal {
namespace {

struct FakeClock {
  std::chrono::steady_clock::time_point now{std::chrono::seconds(1000)};
  TicketStore::Clock fn() {
    return [this] { return now; };
  }
};

TEST(Tickets, AreRandom128BitHex) {
  TicketStore store;
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto t = store.issue("s1", "alice");
    ASSERT_EQ(t.size(), 32u);
    EXPECT_EQ(t.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(Tickets, WorkOnceOnly) {
  TicketStore store;
  auto t = store.issue("abc", "alice");
  EXPECT_TRUE(store.consume(t, "abc"));
  EXPECT_FALSE(store.consume(t, "abc"));
  EXPECT_FALSE(store.consume("", "abc"));
  EXPECT_FALSE(store.consume("00000000000000000000000000000000", "abc"));
}

TEST(Tickets, SpeakForTheIdentityTheyWereIssuedTo) {
  TicketStore store;
  auto a = store.issue("s", "alice");
  auto b = store.issue("s", "bob");
  EXPECT_EQ(store.consume(b, "s"), std::optional<std::string>("bob"));
  EXPECT_EQ(store.consume(a, "s"), std::optional<std::string>("alice"));
  EXPECT_EQ(store.consume(a, "s"), std::nullopt);
}

TEST(Tickets, AreBoundToTheirSessionAndSpentByAWrongOne) {
  TicketStore store;
  auto t = store.issue("abc", "alice");
  EXPECT_FALSE(store.consume(t, "other"));
  EXPECT_FALSE(store.consume(t, "abc"));  // spent by the wrong attempt
}

TEST(Tickets, ExpireAfterTheirLifetime) {
  FakeClock clock;
  TicketStore store(std::chrono::seconds(60), 256, clock.fn());
  auto early = store.issue("s", "alice");
  auto late = store.issue("s", "alice");
  clock.now += std::chrono::seconds(59);
  EXPECT_TRUE(store.consume(early, "s"));
  clock.now += std::chrono::seconds(1);  // exactly 60 s
  EXPECT_FALSE(store.consume(late, "s"));
  EXPECT_EQ(store.size(), 0u);
}

TEST(Tickets, RevokedWithTheirSession) {
  TicketStore store;
  auto a = store.issue("a", "alice");
  auto b = store.issue("b", "alice");
  store.revoke("a");
  EXPECT_FALSE(store.consume(a, "a"));
  EXPECT_TRUE(store.consume(b, "b"));
}

TEST(Tickets, CapacityDropsTheOldest) {
  TicketStore store(std::chrono::seconds(60), 2);
  auto first = store.issue("s", "alice");
  auto second = store.issue("s", "alice");
  auto third = store.issue("s", "alice");
  EXPECT_EQ(store.size(), 2u);
  EXPECT_FALSE(store.consume(first, "s"));
  EXPECT_TRUE(store.consume(second, "s"));
  EXPECT_TRUE(store.consume(third, "s"));
}

}  // namespace
}  // namespace abx::plugins::terminal
