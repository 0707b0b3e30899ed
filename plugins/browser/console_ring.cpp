#include "console_ring.h"

#include <cstdio>

#include "abx/sdk/json.h"

namespace abx::plugins::browser {

void ConsoleRing::add(ConsoleEntry entry) {
  if (entries_.size() == kCapacity) entries_.pop_front();
  entries_.push_back(std::move(entry));
}

std::vector<ConsoleEntry> ConsoleRing::take() {
  std::vector<ConsoleEntry> out(std::make_move_iterator(entries_.begin()),
                                std::make_move_iterator(entries_.end()));
  entries_.clear();
  return out;
}

std::string consoleJson(const std::vector<ConsoleEntry>& entries) {
  sdk::JsonWriter out;
  out.beginObject().key("logs").beginArray();
  for (const auto& entry : entries) {
    // Seconds with exactly three decimals (milliseconds): "1758412800.000".
    char ts[40];
    std::snprintf(ts, sizeof ts, "%.3f", entry.timestamp);
    out.beginObject().member("type", entry.type).member("text", entry.text);
    out.key("timestamp").raw(ts).endObject();
  }
  return out.endArray().endObject().take();
}

}  // namespace abx::plugins::browser
