#include "run_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace abx::plugins::dev_tools {

std::chrono::milliseconds secondsToMs(double seconds) {
  constexpr double kLongest = 10.0 * 365 * 24 * 3600 * 1000;
  double ms = std::ceil(seconds * 1000.0);
  if (!(ms >= 1.0)) ms = 1.0;  // also NaN
  if (ms > kLongest) ms = kLongest;
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

std::chrono::milliseconds policyTimeout(const sdk::EndpointPolicy* policy,
                                        std::chrono::milliseconds fallback) {
  if (!policy || !policy->limits.timeout_seconds) return fallback;
  return secondsToMs(*policy->limits.timeout_seconds);
}

std::variant<std::chrono::milliseconds, sdk::HttpError> codeTimeout(
    const sdk::Json& body, const sdk::EndpointPolicy* policy) {
  const auto ceiling = policyTimeout(policy, kCodeTimeoutCeiling);
  const auto kind = body.kind("timeout");
  if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null)
    return std::min(kCodeTimeout, ceiling);
  if (kind != sdk::JsonKind::integer && kind != sdk::JsonKind::number)
    return sdk::HttpError::badRequest("Field 'timeout' must be a number of seconds");
  auto seconds = body.number("timeout");
  if (!seconds) return sdk::HttpError::badRequest(seconds.status().message());
  if (!(*seconds > 0))
    return sdk::HttpError::badRequest("Field 'timeout' must be a positive number of seconds");
  return std::min(ceiling, secondsToMs(*seconds));
}

std::size_t outputCap(const sdk::EndpointPolicy* policy, std::size_t fallback) {
  if (!policy || !policy->limits.max_output_bytes) return fallback;
  const auto cap = *policy->limits.max_output_bytes;
  if (cap > std::numeric_limits<std::size_t>::max()) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(cap);
}

std::string timedOutAfter(std::chrono::milliseconds timeout) {
  std::string text = std::to_string(static_cast<double>(timeout.count()) / 1000.0);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return "timed out after " + text + " seconds";
}

std::size_t utf8SafeCut(std::string_view text, std::size_t cut) {
  cut = std::min(cut, text.size());
  if (cut == text.size()) return cut;
  // Step back over continuation bytes (at most 3) to the start of the
  // sequence the cut falls into.
  std::size_t at = cut;
  for (int i = 0; i < 3 && at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80; ++i)
    --at;
  return (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80 ? cut : at;
}

}  // namespace abx::plugins::dev_tools
