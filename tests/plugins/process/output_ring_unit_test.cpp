// OutputRing offsets (next, dropped) across wrap-around.
#include <gtest/gtest.h>

#include "output_ring.h"

namespace abx::plugins::process {
namespace {

TEST(OutputRing, KeepsEverythingBelowCapacity) {
  OutputRing ring(16);
  ring.append("hello ");
  ring.append("world");
  EXPECT_EQ(ring.start(), 0u);
  EXPECT_EQ(ring.end(), 11u);
  auto all = ring.read(0);
  EXPECT_EQ(all.bytes, "hello world");
  EXPECT_EQ(all.from, 0u);
  EXPECT_EQ(all.next, 11u);
  EXPECT_EQ(all.dropped, 0u);
  auto tail = ring.read(6);
  EXPECT_EQ(tail.bytes, "world");
  EXPECT_EQ(tail.next, 11u);
  auto none = ring.read(11);
  EXPECT_EQ(none.bytes, "");
  EXPECT_EQ(none.next, 11u);
}

TEST(OutputRing, WrapsAndReportsDroppedBytes) {
  OutputRing ring(8);
  ring.append("0123456789");  // longer than the ring: the last 8 bytes stay
  EXPECT_EQ(ring.start(), 2u);
  EXPECT_EQ(ring.end(), 10u);
  auto r = ring.read(0);
  EXPECT_EQ(r.bytes, "23456789");
  EXPECT_EQ(r.from, 2u);
  EXPECT_EQ(r.dropped, 2u);
  EXPECT_EQ(r.next, 10u);

  ring.append("abc");  // overwrites the oldest 3 bytes
  EXPECT_EQ(ring.start(), 5u);
  EXPECT_EQ(ring.read(0).bytes, "56789abc");
  EXPECT_EQ(ring.read(0).dropped, 5u);
  EXPECT_EQ(ring.read(7).bytes, "789abc");
  EXPECT_EQ(ring.read(7).dropped, 0u);
  EXPECT_EQ(ring.read(12).bytes, "c");

  // Many small appends going round several times.
  for (int i = 0; i < 50; ++i) ring.append(std::string(1, static_cast<char>('A' + i % 26)));
  EXPECT_EQ(ring.end(), 63u);
  EXPECT_EQ(ring.start(), 55u);
  std::string expected;
  for (int i = 42; i < 50; ++i) expected += static_cast<char>('A' + i % 26);
  EXPECT_EQ(ring.read(0).bytes, expected);
  EXPECT_EQ(ring.read(60).bytes, expected.substr(5));
}

TEST(OutputRing, ReadsAtMostMaxBytesAndClampsOffsets) {
  OutputRing ring(8);
  ring.append("abcdefgh");
  auto part = ring.read(2, 3);
  EXPECT_EQ(part.bytes, "cde");
  EXPECT_EQ(part.next, 5u);
  auto beyond = ring.read(100);
  EXPECT_EQ(beyond.bytes, "");
  EXPECT_EQ(beyond.next, 8u);
}

TEST(OutputRing, ZeroCapacityCountsButKeepsNothing) {
  OutputRing ring(0);
  ring.append("abc");
  EXPECT_EQ(ring.end(), 3u);
  auto r = ring.read(0);
  EXPECT_EQ(r.bytes, "");
  EXPECT_EQ(r.dropped, 3u);
  EXPECT_EQ(r.next, 3u);
}

}  // namespace
}  // namespace abx::plugins::process
