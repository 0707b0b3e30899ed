// The resume position a client sends back to a session's SSE stream
// (Last-Event-ID, ?after=, ?starting_after=) and the event ids the stream
// writes; tests/fuzz/resume_position_fuzz.cpp checks the same rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "wire/event_position.h"

namespace abx::plugins::agents {
namespace {

// The resume position (Last-Event-ID, ?after=, ?starting_after=): digits
// only. std::stoull took "-1" as 2^64-1, " 7" and "7abc" as 7.
TEST(EventPosition, OnlyDigitsAfterAnOptionalEvtPrefix) {
  EXPECT_EQ(parseEventPosition("42"), 42u);
  EXPECT_EQ(parseEventPosition("evt_00000042"), 42u);
  EXPECT_EQ(parseEventPosition("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "evt_", "-1", "+1", " 7", "7 ", "7abc", "evt_-1", "0x10",
                          "18446744073709551616", "evt_evt_1"})
    EXPECT_EQ(parseEventPosition(bad), std::nullopt) << bad;
  EXPECT_EQ(eventIdText(42), "evt_00000042");
  EXPECT_EQ(parseEventPosition(eventIdText(123456789012ull)), 123456789012ull);
}

}  // namespace
}  // namespace abx::plugins::agents
