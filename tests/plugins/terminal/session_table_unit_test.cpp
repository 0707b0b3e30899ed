// SessionTable: the cap counts live sessions and slots being created, dead
// sessions are reaped before counting, idle sessions without a client are
// swept after the timeout (injected clock), a session past its
// max_duration_seconds deadline is swept even with a client, ids are 12 hex
// digits.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "pty_test_support.h"
#include "session_table.h"
#include "terminal_owner.h"

namespace abx::plugins::terminal {
namespace {

using testing::spawnOrDie;

struct FakeClock {
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  SteadyClock fn() {
    return [this] { return now; };
  }
};

std::shared_ptr<Session> add(SessionTable& table,
                             std::vector<std::string> argv = {"/bin/sleep", "60"}) {
  auto slot = table.reserve();
  if (!slot) throw std::runtime_error(slot.status().message());
  return table.commit(std::move(*slot), spawnOrDie(std::move(argv)), 80, 24, "alice");
}

TEST(SessionTable, CapsLiveSessionsAndReservations) {
  SessionTable table({3, std::chrono::seconds(1800)});
  auto a = add(table);
  auto b = add(table);
  {
    auto slot = table.reserve();  // the third slot, held while "spawning"
    ASSERT_TRUE(slot);
    auto refused = table.reserve();
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.status().type(), "RuntimeError");
    EXPECT_EQ(refused.status().message(), "Maximum PTY sessions (3) reached");
  }
  // The dropped reservation freed its slot.
  auto c = add(table);
  EXPECT_EQ(table.size(), 3u);
  EXPECT_FALSE(table.reserve());
  ASSERT_TRUE(table.remove(b->id()));
  EXPECT_TRUE(table.reserve());
}

TEST(SessionTable, DefaultCapIsTen) {
  SessionTable table({});
  std::vector<std::shared_ptr<Session>> held;
  for (int i = 0; i < 10; ++i) held.push_back(add(table));
  EXPECT_FALSE(table.reserve());
  EXPECT_EQ(table.limits().max_sessions, 10u);
  EXPECT_EQ(table.limits().idle_timeout, std::chrono::seconds(1800));
}

TEST(SessionTable, IdsAreTwelveHexDigitsAndUnique) {
  SessionTable table({10, std::chrono::seconds(1800)});
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto s = add(table);
    EXPECT_EQ(s->id().size(), 12u);
    EXPECT_EQ(s->id().find_first_not_of("0123456789abcdef"), std::string::npos);
    ids.insert(s->id());
    EXPECT_EQ(table.find(s->id()), s);
  }
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(table.find("000000000000"), nullptr);
}

TEST(SessionTable, DeadSessionsAreReapedBeforeCountingAndListing) {
  SessionTable table({2, std::chrono::seconds(1800)});
  auto live = add(table);
  auto dead = add(table, {"/bin/true"});
  ASSERT_TRUE(dead->process().waitFor(std::chrono::seconds(5)));
  std::vector<std::shared_ptr<Session>> reaped;
  auto listed = table.list(&reaped);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0], live);
  ASSERT_EQ(reaped.size(), 1u);
  EXPECT_EQ(reaped[0], dead);
  EXPECT_TRUE(table.reserve());  // the dead one no longer counts
}

TEST(SessionTable, ListKeepsCreationOrderAndReportsInfo) {
  SessionTable table({10, std::chrono::seconds(1800)});
  auto a = add(table);
  auto b = add(table);
  ASSERT_TRUE(b->resize(132, 50));
  auto listed = table.list();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0], a);
  auto info = listed[1]->info();
  EXPECT_EQ(info.cols, 132);
  EXPECT_EQ(info.rows, 50);
  EXPECT_TRUE(info.alive);
  EXPECT_FALSE(info.connected);
  EXPECT_EQ(info.pid, b->process().pid());
  EXPECT_GT(info.created_at, 1.6e9);
  const std::string json = sessionJson(info);
  EXPECT_NE(json.find("\"id\":\"" + b->id() + "\""), std::string::npos);
  EXPECT_NE(json.find("\"cols\":132,\"rows\":50,\"alive\":true,\"connected\":false"),
            std::string::npos);
}

TEST(SessionTable, IdleSessionsWithoutAClientAreSwept) {
  FakeClock clock;
  SessionTable table({10, std::chrono::seconds(1800)}, clock.fn());
  auto idle = add(table);
  auto attached = add(table);
  auto busy = add(table);
  const auto attachment = attached->attach();
  clock.now += std::chrono::seconds(1000);
  busy->touch();
  clock.now += std::chrono::seconds(799);
  EXPECT_TRUE(table.sweep().empty());
  clock.now += std::chrono::seconds(1);  // idle for exactly 1800 s
  auto swept = table.sweep();
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(swept[0], idle);
  // A client keeps a session alive; once it leaves, the clock restarts.
  clock.now += std::chrono::seconds(5000);
  swept = table.sweep();
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(swept[0], busy);
  attached->detach(attachment);
  clock.now += std::chrono::seconds(1799);
  EXPECT_TRUE(table.sweep().empty());
  clock.now += std::chrono::seconds(1);
  EXPECT_EQ(table.sweep().size(), 1u);
  EXPECT_EQ(table.size(), 0u);
}

TEST(SessionTable, ASessionPastItsMaxDurationIsSweptClientOrNot) {
  FakeClock clock;
  SessionTable table({10, std::chrono::seconds(1800)}, clock.fn());
  auto limited = add(table);
  auto free = add(table);
  EXPECT_EQ(table.nextDeadline(), std::nullopt);
  limited->limitLifetime(std::chrono::milliseconds(2500));
  EXPECT_EQ(table.nextDeadline(), clock.now + std::chrono::milliseconds(2500));
  const auto attachment = limited->attach();  // a client does not keep it
  limited->touch();
  clock.now += std::chrono::milliseconds(2499);
  EXPECT_TRUE(table.sweep().empty());
  clock.now += std::chrono::milliseconds(1);
  auto swept = table.sweep();
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(swept[0], limited);
  EXPECT_TRUE(table.find(free->id()));
  EXPECT_EQ(table.nextDeadline(), std::nullopt);
  limited->detach(attachment);
}

TEST(SessionTable, ANewClientSupersedesTheOldOne) {
  SessionTable table({10, std::chrono::seconds(1800)});
  auto s = add(table);
  const auto first = s->attach();
  EXPECT_TRUE(s->attachedAs(first));
  const auto second = s->attach();
  EXPECT_FALSE(s->attachedAs(first));
  EXPECT_TRUE(s->attachedAs(second));
  s->detach(first);  // the old one leaving does not disconnect the new one
  EXPECT_TRUE(s->connected());
  s->detach(second);
  EXPECT_FALSE(s->connected());
}

TEST(SessionTable, ConcurrentReservationsNeverPassTheCap) {
  SessionTable table({4, std::chrono::seconds(1800)});
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  std::mutex m;
  std::vector<SessionTable::Reservation> held;
  for (int i = 0; i < 16; ++i)
    threads.emplace_back([&] {
      auto slot = table.reserve();
      if (!slot) return;
      ++granted;
      std::lock_guard lock(m);
      held.push_back(std::move(*slot));
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(granted.load(), 4);
}

TEST(SessionTable, SessionsKeepTheirCreatorAsOwner) {
  SessionTable table({3, std::chrono::seconds(1800)});
  auto a = add(table);
  EXPECT_EQ(a->owner(), "alice");
  EXPECT_EQ(table.find(a->id())->owner(), "alice");
}

TEST(SessionOwner, TheCreatorOrAdminActsOnASession) {
  EXPECT_TRUE(mayActOn("alice", false, "alice"));
  EXPECT_FALSE(mayActOn("bob", false, "alice"));
  EXPECT_TRUE(mayActOn("root", true, "alice"));
  EXPECT_FALSE(mayActOn("", false, ""));  // no owner recorded: admin's only
  EXPECT_TRUE(mayActOn(sdk::Identity{"root", {"admin"}}, "alice"));
  EXPECT_TRUE(mayActOn(sdk::Identity{"legacy", {"*"}}, "alice"));
  EXPECT_FALSE(mayActOn(sdk::Identity{"bob", {"terminal:*", "agents:admin"}}, "alice"));
}

}  // namespace
}  // namespace abx::plugins::terminal
