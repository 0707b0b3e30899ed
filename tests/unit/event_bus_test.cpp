// EventBus tests: sequence numbers, replay, gap markers with exact counts,
// the subscriber limit, close(), and accounting under concurrent publishers.
#include "events/event_bus.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using abx::kernel::EventBus;
using abx::sdk::Event;
using abx::sdk::Subscription;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::unique_ptr<Subscription> mustSubscribe(EventBus& bus, std::string_view topic,
                                            std::optional<std::uint64_t> after = std::nullopt) {
  auto sub = bus.subscribe(topic, after);
  EXPECT_TRUE(sub.isOk()) << (sub.isOk() ? "" : sub.status().message());
  return sub.isOk() ? std::move(sub).value() : nullptr;
}

void publishN(EventBus& bus, std::string_view topic, int n) {
  for (int i = 0; i < n; ++i) bus.publish(topic, "tick", std::to_string(i));
}

std::vector<std::uint64_t> drainSeqs(Subscription& sub) {
  std::vector<std::uint64_t> seqs;
  while (auto e = sub.next(0ms)) {
    EXPECT_FALSE(e->gap);
    seqs.push_back(e->seq);
  }
  return seqs;
}

TEST(EventBus, SequencesArePerTopicAndStartAtOne) {
  EventBus bus;
  EXPECT_EQ(bus.lastSeq("a"), 0u);
  EXPECT_EQ(bus.publish("a", "t", "x"), 1u);
  EXPECT_EQ(bus.publish("a", "t", "y"), 2u);
  EXPECT_EQ(bus.publish("b", "t", "z"), 1u);
  EXPECT_EQ(bus.lastSeq("a"), 2u);
  EXPECT_EQ(bus.lastSeq("b"), 1u);
  EXPECT_EQ(bus.lastSeq("c"), 0u);
}

TEST(EventBus, SubscribeAtCurrentEndSeesOnlyNewEvents) {
  EventBus bus;
  publishN(bus, "t", 3);
  auto sub = mustSubscribe(bus, "t");
  EXPECT_FALSE(sub->next(0ms).has_value());
  bus.publish("t", "kind", "{\"n\":4}");
  auto e = sub->next(0ms);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->seq, 4u);
  EXPECT_EQ(e->type, "kind");
  EXPECT_EQ(e->data, "{\"n\":4}");
  EXPECT_FALSE(e->gap);
  EXPECT_FALSE(sub->closed());
}

TEST(EventBus, ReplaysWhatTheRingHolds) {
  EventBus bus;
  publishN(bus, "t", 5);
  auto after2 = mustSubscribe(bus, "t", 2);
  EXPECT_EQ(drainSeqs(*after2), (std::vector<std::uint64_t>{3, 4, 5}));
  auto from_start = mustSubscribe(bus, "t", 0);
  EXPECT_EQ(drainSeqs(*from_start), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  // A cursor from a previous server run (beyond the end) starts at the end.
  auto future = mustSubscribe(bus, "t", 99);
  EXPECT_FALSE(future->next(0ms).has_value());
  bus.publish("t", "tick", "");
  EXPECT_EQ(drainSeqs(*future), (std::vector<std::uint64_t>{6}));
}

TEST(EventBus, NextWaitsForAPublish) {
  EventBus bus;
  auto sub = mustSubscribe(bus, "t");
  std::thread publisher([&] {
    std::this_thread::sleep_for(50ms);
    bus.publish("t", "late", "");
  });
  const auto start = Clock::now();
  auto e = sub->next(5s);
  publisher.join();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->type, "late");
  EXPECT_LT(Clock::now() - start, 2s);

  const auto timeout_start = Clock::now();
  EXPECT_FALSE(sub->next(30ms).has_value());
  EXPECT_GE(Clock::now() - timeout_start, 30ms);
}

TEST(EventBus, ReplayBeyondTheRingStartsWithAGapMarker) {
  EventBus bus(4);
  publishN(bus, "t", 10);  // ring keeps 7..10
  auto sub = mustSubscribe(bus, "t", 0);
  auto gap = sub->next(0ms);
  ASSERT_TRUE(gap.has_value());
  EXPECT_TRUE(gap->gap);
  EXPECT_EQ(gap->missed, 6u);
  EXPECT_EQ(gap->seq, 7u);
  EXPECT_EQ(drainSeqs(*sub), (std::vector<std::uint64_t>{7, 8, 9, 10}));
}

TEST(EventBus, SlowSubscriberGetsOneGapMarkerWithTheExactCount) {
  EventBus bus(4);
  publishN(bus, "t", 10);
  auto sub = mustSubscribe(bus, "t");  // cursor at 10
  publishN(bus, "t", 3);               // 11..13, all kept
  auto e = sub->next(0ms);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->seq, 11u);
  publishN(bus, "t", 10);  // 14..23; ring keeps 20..23, so 12..19 are lost
  auto gap = sub->next(0ms);
  ASSERT_TRUE(gap.has_value());
  EXPECT_TRUE(gap->gap);
  EXPECT_EQ(gap->missed, 8u);
  EXPECT_EQ(gap->seq, 20u);
  EXPECT_EQ(drainSeqs(*sub), (std::vector<std::uint64_t>{20, 21, 22, 23}));
}

TEST(EventBus, SubscriberLimitIsPerTopicAndFreedOnDestroy) {
  EventBus bus(16, 2);
  auto a = mustSubscribe(bus, "t");
  auto b = mustSubscribe(bus, "t");
  auto refused = bus.subscribe("t");
  ASSERT_FALSE(refused.isOk());
  EXPECT_EQ(refused.status().type(), "ResourceError");
  EXPECT_TRUE(bus.subscribe("other").isOk());  // other topics keep their own slots
  a.reset();
  auto c = bus.subscribe("t");
  EXPECT_TRUE(c.isOk());
  EXPECT_FALSE(bus.subscribe("t").isOk());
}

TEST(EventBus, CloseWakesAWaitingSubscriber) {
  EventBus bus;
  auto sub = mustSubscribe(bus, "t");
  std::optional<Event> got;
  std::atomic<bool> returned{false};
  const auto start = Clock::now();
  std::thread waiter([&] {
    got = sub->next(10s);
    returned = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(returned.load());
  bus.close();
  waiter.join();
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_FALSE(got.has_value());
  EXPECT_TRUE(sub->closed());
  EXPECT_TRUE(bus.isClosed());

  // Buffered events are not delivered after close, and late subscribers are closed too.
  bus.publish("t", "after", "");
  EXPECT_FALSE(sub->next(1s).has_value());
  auto late = mustSubscribe(bus, "new-topic", 0);
  EXPECT_TRUE(late->closed());
  const auto late_start = Clock::now();
  EXPECT_FALSE(late->next(5s).has_value());
  EXPECT_LT(Clock::now() - late_start, 1s);
}

// Every subscriber must account for every event: either it saw it, or a gap
// marker counted it; sequences never go backwards.
TEST(EventBus, ConcurrentPublishersAndSubscribersAccountForEveryEvent) {
  constexpr int kPublishers = 4;
  constexpr int kPerPublisher = 5000;
  constexpr int kSubscribers = 4;
  constexpr std::uint64_t kTotal = std::uint64_t{kPublishers} * kPerPublisher;
  EventBus bus(256, kSubscribers);

  struct Tally {
    std::uint64_t seen = 0;
    std::uint64_t missed = 0;
    std::uint64_t gaps = 0;
    bool ordered = true;
    bool publisher_order = true;
  };
  std::vector<Tally> tallies(kSubscribers);
  std::vector<std::unique_ptr<Subscription>> subs;
  for (int s = 0; s < kSubscribers; ++s) subs.push_back(mustSubscribe(bus, "t"));

  std::vector<std::thread> readers;
  for (int s = 0; s < kSubscribers; ++s) {
    readers.emplace_back([&, s] {
      Tally& tally = tallies[s];
      std::uint64_t expected = 1;
      std::vector<int> last_counter(kPublishers, -1);
      while (expected <= kTotal) {
        auto e = subs[s]->next(5s);
        if (!e) break;
        if (e->gap) {
          ++tally.gaps;
          tally.missed += e->missed;
          if (e->seq != expected + e->missed) tally.ordered = false;
          expected = e->seq;
          continue;
        }
        if (e->seq != expected) tally.ordered = false;
        expected = e->seq + 1;
        ++tally.seen;
        const int publisher = e->type[0] - '0';
        const int counter = std::stoi(e->data);
        if (counter <= last_counter[publisher]) tally.publisher_order = false;
        last_counter[publisher] = counter;
        // Subscriber 0 is deliberately slow so the ring overruns it.
        if (s == 0 && tally.seen % 16 == 0) std::this_thread::sleep_for(1ms);
      }
    });
  }
  std::vector<std::thread> publishers;
  for (int p = 0; p < kPublishers; ++p) {
    publishers.emplace_back([&, p] {
      const std::string type = std::to_string(p);
      for (int i = 0; i < kPerPublisher; ++i) bus.publish("t", type, std::to_string(i));
    });
  }
  for (auto& t : publishers) t.join();
  for (auto& t : readers) t.join();

  EXPECT_EQ(bus.lastSeq("t"), kTotal);
  for (int s = 0; s < kSubscribers; ++s) {
    SCOPED_TRACE("subscriber " + std::to_string(s));
    EXPECT_TRUE(tallies[s].ordered);
    EXPECT_TRUE(tallies[s].publisher_order);
    EXPECT_EQ(tallies[s].seen + tallies[s].missed, kTotal);
  }
  // Keeping up would take it over a second; the publishers need milliseconds.
  EXPECT_GT(tallies[0].gaps, 0u);
}

TEST(EventBus, ConcurrentTopicCreationAndSubscriptionChurn) {
  EventBus bus(8, 1000);
  constexpr int kThreads = 4;
  constexpr int kTopics = 20;
  constexpr int kRounds = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const std::string topic = "topic-" + std::to_string((r + t) % kTopics);
        auto sub = bus.subscribe(topic, 0);
        ASSERT_TRUE(sub.isOk());
        bus.publish(topic, "x", "");
        // At least our own publish (or a gap covering it) is there.
        EXPECT_TRUE(sub.value()->next(1s).has_value());
      }
    });
  }
  for (auto& th : threads) th.join();
  std::uint64_t total = 0;
  for (int i = 0; i < kTopics; ++i) total += bus.lastSeq("topic-" + std::to_string(i));
  EXPECT_EQ(total, std::uint64_t{kThreads} * kRounds);
}

}  // namespace
