#include "event_position.h"

#include <charconv>
#include <cstdio>

namespace abx::plugins::agents {

std::string eventIdText(std::uint64_t seq) {
  char id[32];
  std::snprintf(id, sizeof id, "evt_%08llu", static_cast<unsigned long long>(seq));
  return id;
}

std::optional<std::uint64_t> parseEventPosition(std::string_view text) {
  if (text.starts_with("evt_")) text.remove_prefix(4);
  // Digits only: std::stoull, used before, took blanks, '+' and a wrapping '-'.
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace abx::plugins::agents
