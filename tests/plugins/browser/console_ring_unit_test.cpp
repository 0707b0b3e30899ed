// GET /browser/console's buffer: oldest first, read-and-clear, at most 1 000
// entries with the oldest dropped, and its JSON body.
#include <gtest/gtest.h>

#include "console_ring.h"

namespace abx::plugins::browser {
namespace {

ConsoleEntry entry(int i, std::string type = "log") {
  return ConsoleEntry{std::move(type), "message " + std::to_string(i), 1700000000.0 + i};
}

TEST(ConsoleRing, TakeReturnsOldestFirstAndClears) {
  ConsoleRing ring;
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_TRUE(ring.take().empty());
  ring.add(entry(1, "log"));
  ring.add(entry(2, "warning"));
  ring.add(entry(3, "error"));
  EXPECT_EQ(ring.size(), 3u);
  auto logs = ring.take();
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs[0].text, "message 1");
  EXPECT_EQ(logs[0].type, "log");
  EXPECT_EQ(logs[1].type, "warning");
  EXPECT_EQ(logs[2].text, "message 3");
  EXPECT_DOUBLE_EQ(logs[2].timestamp, 1700000003.0);
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_TRUE(ring.take().empty());
}

TEST(ConsoleRing, KeepsCollectingAfterATake) {
  ConsoleRing ring;
  ring.add(entry(1));
  ring.take();
  ring.add(entry(2));
  auto logs = ring.take();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].text, "message 2");
}

TEST(ConsoleRing, HoldsExactlyTheCapacity) {
  ConsoleRing ring;
  EXPECT_EQ(ConsoleRing::kCapacity, 1000u);
  for (int i = 0; i < 1000; ++i) ring.add(entry(i));
  EXPECT_EQ(ring.size(), 1000u);
  auto logs = ring.take();
  ASSERT_EQ(logs.size(), 1000u);
  EXPECT_EQ(logs.front().text, "message 0");
  EXPECT_EQ(logs.back().text, "message 999");
}

TEST(ConsoleRing, DropsTheOldestWhenFull) {
  ConsoleRing ring;
  for (int i = 0; i < 1005; ++i) ring.add(entry(i));
  EXPECT_EQ(ring.size(), 1000u);
  auto logs = ring.take();
  ASSERT_EQ(logs.size(), 1000u);
  EXPECT_EQ(logs.front().text, "message 5");
  EXPECT_EQ(logs.back().text, "message 1004");
  for (std::size_t i = 1; i < logs.size(); ++i)
    ASSERT_LT(logs[i - 1].timestamp, logs[i].timestamp) << "out of order at " << i;
  EXPECT_EQ(ring.size(), 0u);
}

TEST(ConsoleJson, EmptyBody) { EXPECT_EQ(consoleJson({}), R"J({"logs":[]})J"); }

TEST(ConsoleJson, FieldsInOrderWithMillisecondTimestamps) {
  std::vector<ConsoleEntry> logs{{"log", "hello 7", 1700000000.1234},
                                 {"warning", "careful", 1700000001.5}};
  EXPECT_EQ(consoleJson(logs),
            R"J({"logs":[{"type":"log","text":"hello 7","timestamp":1700000000.123},)J"
            R"J({"type":"warning","text":"careful","timestamp":1700000001.500}]})J");
}

TEST(ConsoleJson, EscapesTheText) {
  std::vector<ConsoleEntry> logs{{"error", "say \"hi\"\nback\\slash", 0}};
  EXPECT_EQ(consoleJson(logs),
            R"J({"logs":[{"type":"error","text":"say \"hi\"\nback\\slash","timestamp":0.000}]})J");
}

}  // namespace
}  // namespace abx::plugins::browser
