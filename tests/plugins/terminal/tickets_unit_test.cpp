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
    auto t = store.issue("s1");
    ASSERT_EQ(t.size(), 32u);
    EXPECT_EQ(t.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(Tickets, WorkOnceOnly) {
  TicketStore store;
  auto t = store.issue("abc");
  EXPECT_TRUE(store.consume(t, "abc"));
  EXPECT_FALSE(store.consume(t, "abc"));
  EXPECT_FALSE(store.consume("", "abc"));
  EXPECT_FALSE(store.consume("00000000000000000000000000000000", "abc"));
}

TEST(Tickets, AreBoundToTheirSessionAndSpentByAWrongOne) {
  TicketStore store;
  auto t = store.issue("abc");
  EXPECT_FALSE(store.consume(t, "other"));
  EXPECT_FALSE(store.consume(t, "abc"));  // spent by the wrong attempt
}

TEST(Tickets, ExpireAfterTheirLifetime) {
  FakeClock clock;
  TicketStore store(std::chrono::seconds(60), 256, clock.fn());
  auto early = store.issue("s");
  auto late = store.issue("s");
  clock.now += std::chrono::seconds(59);
  EXPECT_TRUE(store.consume(early, "s"));
  clock.now += std::chrono::seconds(1);  // exactly 60 s
  EXPECT_FALSE(store.consume(late, "s"));
  EXPECT_EQ(store.size(), 0u);
}

TEST(Tickets, RevokedWithTheirSession) {
  TicketStore store;
  auto a = store.issue("a");
  auto b = store.issue("b");
  store.revoke("a");
  EXPECT_FALSE(store.consume(a, "a"));
  EXPECT_TRUE(store.consume(b, "b"));
}

TEST(Tickets, CapacityDropsTheOldest) {
  TicketStore store(std::chrono::seconds(60), 2);
  auto first = store.issue("s");
  auto second = store.issue("s");
  auto third = store.issue("s");
  EXPECT_EQ(store.size(), 2u);
  EXPECT_FALSE(store.consume(first, "s"));
  EXPECT_TRUE(store.consume(second, "s"));
  EXPECT_TRUE(store.consume(third, "s"));
}

}  // namespace
}  // namespace abx::plugins::terminal
