// plugins_fuzz sub-target: the resume position of a session's SSE stream
// (Last-Event-ID, ?after=, ?starting_after=: parseEventPosition) and the
// event ids the stream writes (eventIdText).
//
// Input: the header or query value. Checked against a model of the rule
// (optional "evt_", then only decimal digits, the number fits 64 bits):
// accepted exactly then, with the model's number; the id the server writes
// for that number, and its plain decimal, read back as the same number.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "wire/event_position.h"

namespace abx::fuzz {
namespace {

std::optional<std::uint64_t> model(std::string_view text) {
  if (text.substr(0, 4) == "evt_") text.remove_prefix(4);
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

void fuzzResumePosition(std::string_view data) {
  using plugins::agents::eventIdText;
  using plugins::agents::parseEventPosition;
  const auto position = parseEventPosition(data);
  check(position == model(data), "the position follows the rule", data);
  if (!position) return;
  check(parseEventPosition(eventIdText(*position)) == position, "an event id reads back", data);
  check(parseEventPosition(std::to_string(*position)) == position, "a decimal reads back", data);
}

}  // namespace abx::fuzz
