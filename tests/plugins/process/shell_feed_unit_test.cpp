// ShellFeed: the bounded queue between the shell pump and a stream — whole
// events per pull, the producer held at the bound and poked at half of it,
// the end, a client that leaves, and serve() for a stream that cannot be
// detached.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "abx/sdk/testing/fakes.h"
#include "shell_feed.h"

namespace abx::plugins::process {
namespace {

using Pull = sdk::SseFeed::Pull;
using std::chrono::milliseconds;

std::string frame(const std::string& data) {
  std::string out;
  sdk::appendSseFrame(out, "stdout", data);
  return out;
}

TEST(ShellFeed, HoldsTheProducerAtTheBoundAndPokesItAtHalf) {
  int pokes = 0;
  ShellFeed feed(90, [&] { ++pokes; });
  const std::string f = frame("0123456789");  // 32 bytes
  EXPECT_EQ(feed.push(f), ShellFeed::Push::ok);
  EXPECT_EQ(feed.push(f), ShellFeed::Push::ok);
  EXPECT_EQ(feed.push(f), ShellFeed::Push::full);
  EXPECT_TRUE(feed.holdsProducer());

  std::string out;
  EXPECT_EQ(feed.pull(out, 50), Pull::more);  // one whole event, not 50 bytes
  EXPECT_EQ(out, f);
  EXPECT_EQ(pokes, 0);  // 64 left: more than half
  out.clear();
  EXPECT_EQ(feed.pull(out, 50), Pull::more);
  EXPECT_EQ(pokes, 1);
  EXPECT_FALSE(feed.holdsProducer());
  out.clear();
  EXPECT_EQ(feed.pull(out, 1000), Pull::wait);
  EXPECT_EQ(out, f);
  EXPECT_EQ(pokes, 1);
}

TEST(ShellFeed, PullsWholeEventsWithinTheBudget) {
  ShellFeed feed(1 << 20, {});
  const std::string a = frame("a"), b = frame("bb"), big = frame(std::string(500, 'x'));
  feed.push(a + b + big + a);
  std::string out;
  EXPECT_EQ(feed.pull(out, a.size() + b.size() + 10), Pull::more);
  EXPECT_EQ(out, a + b);
  out.clear();
  EXPECT_EQ(feed.pull(out, 10), Pull::more);  // larger than the budget: still whole
  EXPECT_EQ(out, big);
  out.clear();
  EXPECT_EQ(feed.pull(out, 1), Pull::wait);
  EXPECT_EQ(out, a);
}

TEST(ShellFeed, FinishEndsAfterTheLastText) {
  ShellFeed feed(10, {});
  feed.push(frame("line"));
  feed.finish(frame("end"));
  EXPECT_TRUE(feed.gone());
  std::string out;
  EXPECT_EQ(feed.pull(out, 1 << 16), Pull::end);
  EXPECT_EQ(out, frame("line") + frame("end"));
  EXPECT_EQ(feed.push(frame("late")), ShellFeed::Push::gone);
  out.clear();
  EXPECT_EQ(feed.pull(out, 1 << 16), Pull::end);
  EXPECT_TRUE(out.empty());
}

TEST(ShellFeed, AClientThatLeavesDropsTheQueueAndPokesTheProducer) {
  int pokes = 0;
  ShellFeed feed(10, [&] { ++pokes; });
  EXPECT_EQ(feed.push(frame("held")), ShellFeed::Push::full);
  feed.closed();
  EXPECT_EQ(pokes, 1);
  EXPECT_TRUE(feed.gone());
  EXPECT_FALSE(feed.holdsProducer());
  EXPECT_EQ(feed.push(frame("more")), ShellFeed::Push::gone);
  feed.closed();
  EXPECT_EQ(pokes, 1);

  // The loop closes every stream it ended: after the end that is no news.
  ShellFeed ended(10, [&] { ++pokes; });
  ended.finish({});
  ended.closed();
  EXPECT_EQ(pokes, 1);
}

TEST(ShellFeed, ServeWritesTheFeedOnTheCallersThreadUntilItEnds) {
  ShellFeed feed(1 << 20, {});
  sdk::testing::RecordingStream stream;
  std::thread producer([&] {
    for (int i = 0; i < 100; ++i) {
      feed.push(frame(std::to_string(i)));
      feed.wake();
      if (i % 10 == 0) std::this_thread::sleep_for(milliseconds(2));
    }
    feed.finish(frame("end"));
  });
  feed.serve(stream, milliseconds(50));
  producer.join();
  std::string expected;
  for (int i = 0; i < 100; ++i) expected += frame(std::to_string(i));
  EXPECT_EQ(stream.text, expected + frame("end"));
}

TEST(ShellFeed, ServeProbesASilentStreamAndReportsAClientThatLeft) {
  int pokes = 0;
  ShellFeed feed(1 << 20, [&] { ++pokes; });
  sdk::testing::RecordingStream stream;
  std::thread leaver([&] {
    std::this_thread::sleep_for(milliseconds(120));
    stream.accept = false;
  });
  feed.serve(stream, milliseconds(20));
  leaver.join();
  EXPECT_GE(stream.comments.load(), 2);
  EXPECT_TRUE(feed.gone());
  EXPECT_EQ(pokes, 1);
}

}  // namespace
}  // namespace abx::plugins::process
