// /proc/meminfo and /proc/loadavg parsing on captured text, including old
// kernels without MemAvailable and malformed lines.
#include <gtest/gtest.h>

#include "proc_loadavg.h"
#include "proc_meminfo.h"
#include "proc_text.h"

namespace abx::plugins::system {
namespace {

// Captured from a Debian 12 VM (trimmed).
constexpr const char* kMeminfo =
    "MemTotal:       24683620 kB\n"
    "MemFree:        23731648 kB\n"
    "MemAvailable:   24230676 kB\n"
    "Buffers:            6784 kB\n"
    "Cached:           624784 kB\n"
    "SwapCached:            0 kB\n"
    "HugePages_Total:       0\n"
    "Hugepagesize:       2048 kB\n";

TEST(ProcMeminfo, ReadsTotalAndAvailable) {
  auto info = parseMeminfo(kMeminfo);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->total_kb, 24683620u);
  EXPECT_EQ(info->available_kb, 24230676u);
  EXPECT_EQ(info->totalMb(), 24105u);
  EXPECT_EQ(info->availableMb(), 23662u);
  EXPECT_EQ(info->usedKb(), 24683620u - 24230676u);
  EXPECT_EQ(info->usedMb(), (24683620u - 24230676u) / 1024);
  EXPECT_NEAR(info->usedPercent(), 1.835, 0.001);
}

TEST(ProcMeminfo, OldKernelWithoutMemAvailableAddsFreeBuffersCached) {
  auto info = parseMeminfo(
      "MemTotal: 1000000 kB\nMemFree: 200000 kB\nBuffers: 10000 kB\nCached: 90000 kB\n");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->available_kb, 300000u);
  EXPECT_DOUBLE_EQ(info->usedPercent(), 70.0);
}

TEST(ProcMeminfo, SkipsMalformedLinesAndKeepsTheFirstValue) {
  auto info = parseMeminfo(
      "garbage without colon\n"
      ": 5 kB\n"
      "MemTotal:\n"
      "MemTotal: abc kB\n"
      "MemTotal: 12 MB\n"
      "MemTotal: 2048 kB extra\n"
      "MemTotal:\t4096 kB\r\n"
      "MemTotal: 8192 kB\n"
      "MemAvailable: -5 kB\n"
      "MemAvailable: 1024 kB");  // no trailing newline
  ASSERT_TRUE(info);
  EXPECT_EQ(info->total_kb, 4096u);
  EXPECT_EQ(info->available_kb, 1024u);
}

TEST(ProcMeminfo, AvailableIsCappedAtTotalAndZeroTotalIsZeroPercent) {
  auto info = parseMeminfo("MemTotal: 100 kB\nMemAvailable: 500 kB\n");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->available_kb, 100u);
  EXPECT_EQ(info->usedKb(), 0u);
  auto zero = parseMeminfo("MemTotal: 0 kB\n");
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->usedPercent(), 0.0);
}

TEST(ProcMeminfo, NoMemTotalIsNotMeminfo) {
  EXPECT_FALSE(parseMeminfo(""));
  EXPECT_FALSE(parseMeminfo("MemFree: 5 kB\nMemAvailable: 5 kB\n"));
  EXPECT_FALSE(readMeminfo("/nonexistent/meminfo"));
}

TEST(ProcMeminfo, TheRealFileParses) {
  auto info = readMeminfo();
  ASSERT_TRUE(info);
  EXPECT_GT(info->total_kb, 0u);
  EXPECT_LE(info->available_kb, info->total_kb);
}

TEST(ProcLoadavg, ReadsThreeAverages) {
  auto load = parseLoadavg("5.20 4.93 3.34 1/91 14332\n");
  ASSERT_TRUE(load);
  EXPECT_DOUBLE_EQ(load->one, 5.20);
  EXPECT_DOUBLE_EQ(load->five, 4.93);
  EXPECT_DOUBLE_EQ(load->fifteen, 3.34);
  EXPECT_TRUE(parseLoadavg("0.00 0.01 0.05"));
}

TEST(ProcLoadavg, RejectsMalformedText) {
  EXPECT_FALSE(parseLoadavg(""));
  EXPECT_FALSE(parseLoadavg("0.15 0.10\n"));
  EXPECT_FALSE(parseLoadavg("0.15 x 0.05 1/2 3\n"));
  EXPECT_FALSE(parseLoadavg("-1.0 0.10 0.05 1/2 3\n"));
  EXPECT_FALSE(parseLoadavg("nan 0.10 0.05\n"));
  EXPECT_FALSE(parseLoadavg("\n0.15 0.10 0.05\n"));  // the first line counts
}

TEST(ProcLoadavg, FallsBackToGetloadavgWhenTheFileIsMissing) {
  auto load = readLoadavg("/nonexistent/loadavg");
  ASSERT_TRUE(load);
  EXPECT_GE(load->one, 0.0);
}

TEST(ProcText, SplitsAndParsesStrictly) {
  auto fields = splitFields("  a\tb   c \r");
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[2], "c");
  EXPECT_EQ(splitLines("a\nb\n").size(), 2u);
  EXPECT_EQ(splitLines("a\n\nb").size(), 3u);
  EXPECT_EQ(parseUnsigned("1F90", 16), 8080u);
  EXPECT_FALSE(parseUnsigned("1F90x", 16));
  EXPECT_FALSE(parseUnsigned(""));
  EXPECT_FALSE(parseUnsigned("-1"));
  EXPECT_FALSE(readTextFile("/nonexistent/file"));
}

}  // namespace
}  // namespace abx::plugins::system
