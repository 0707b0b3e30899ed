// The console messages the page logged since the last GET /browser/console:
// at most 1 000 (spec _MAX_CONSOLE_LOGS); the oldest go first when full.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace abx::plugins::browser {

struct ConsoleEntry {
  std::string type; /**< log, info, warning, error, debug, ... (CDP's names) */
  std::string text;
  double timestamp = 0; /**< seconds since the epoch */
};

class ConsoleRing {
 public:
  static constexpr std::size_t kCapacity = 1000;
  void add(ConsoleEntry entry);
  /** Everything buffered, oldest first; the ring is empty afterwards. */
  std::vector<ConsoleEntry> take();
  std::size_t size() const { return entries_.size(); }

 private:
  std::deque<ConsoleEntry> entries_;
};

/** {"logs": [{"type", "text", "timestamp"}]} */
std::string consoleJson(const std::vector<ConsoleEntry>& entries);

}  // namespace abx::plugins::browser
