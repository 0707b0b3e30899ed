// Unit: the AuditRing behind GET /audit/recent — newest first, bounded, the
// oldest forgotten — and the AuditLog putting into it exactly the lines it
// writes, also when it writes to no stream.
#include "pipeline/audit_ring.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "pipeline/audit_log.h"

namespace {

using abx::kernel::AuditEntry;
using abx::kernel::AuditLog;
using abx::kernel::AuditRing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(AuditRing, NewestFirstUpToTheLimit) {
  AuditRing ring(4);
  EXPECT_TRUE(ring.newest(10).empty());
  ring.push("a");
  ring.push("b");
  ring.push("c");
  EXPECT_THAT(ring.newest(10), ElementsAre("c", "b", "a"));
  EXPECT_THAT(ring.newest(2), ElementsAre("c", "b"));
  EXPECT_TRUE(ring.newest(0).empty());
}

TEST(AuditRing, ForgetsTheOldestWhenFull) {
  AuditRing ring(3);
  for (const char* r : {"1", "2", "3", "4", "5"}) ring.push(r);
  EXPECT_EQ(ring.capacity(), 3u);
  EXPECT_THAT(ring.newest(100), ElementsAre("5", "4", "3"));
}

TEST(AuditRing, TheLogKeepsWhatItWritesWithoutTheNewline) {
  AuditRing ring;
  EXPECT_EQ(ring.capacity(), AuditRing::kDefaultCapacity);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  AuditLog log(f, &ring);
  AuditEntry entry;
  entry.request_id = "req-1";
  entry.identity = "alice";
  entry.endpoint = "shell";
  entry.method = "POST";
  entry.path = "/shell";
  entry.rule = "default:process";
  log.record(entry);
  std::rewind(f);
  char line[1024] = {};
  ASSERT_NE(std::fgets(line, sizeof line, f), nullptr);
  std::fclose(f);
  const auto kept = ring.newest(5);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0] + "\n", std::string(line));
  EXPECT_THAT(kept[0], HasSubstr(R"("identity":"alice","endpoint":"shell")"));
}

TEST(AuditRing, TheLogFillsTheRingWithoutAStream) {
  AuditRing ring;
  AuditLog log(nullptr, &ring);
  AuditEntry entry;
  entry.allowed = false;
  entry.endpoint = "files_read";
  log.record(entry);
  ASSERT_EQ(ring.newest(5).size(), 1u);
  EXPECT_THAT(ring.newest(5)[0], HasSubstr(R"("decision":"deny")"));
}

}  // namespace
