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
  std::string out = "{\"logs\":[";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ',';
    char ts[40];
    std::snprintf(ts, sizeof ts, "%.3f", entries[i].timestamp);
    out += "{\"type\":" + sdk::jsonQuote(entries[i].type) +
           ",\"text\":" + sdk::jsonQuote(entries[i].text) + ",\"timestamp\":" + ts + "}";
  }
  return out + "]}";
}

}  // namespace abx::plugins::browser
