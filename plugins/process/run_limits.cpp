#include "run_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace abx::plugins::process {

std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return std::max(std::chrono::milliseconds(0), left);
}

std::chrono::milliseconds secondsToMs(double seconds) {
  constexpr double kLongest = 10.0 * 365 * 24 * 3600 * 1000;
  double ms = std::ceil(seconds * 1000.0);
  if (!(ms >= 1.0)) ms = 1.0;  // also NaN
  if (ms > kLongest) ms = kLongest;
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

std::optional<std::chrono::milliseconds> explicitTimeout(const sdk::EndpointPolicy* policy) {
  if (!policy || !policy->limits.timeout_seconds) return std::nullopt;
  return secondsToMs(*policy->limits.timeout_seconds);
}

std::optional<std::size_t> explicitOutputCap(const sdk::EndpointPolicy* policy) {
  if (!policy || !policy->limits.max_output_bytes) return std::nullopt;
  const auto cap = *policy->limits.max_output_bytes;
  if (cap > std::numeric_limits<std::size_t>::max()) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(cap);
}

std::variant<std::chrono::milliseconds, sdk::HttpError> commandTimeout(
    const sdk::Json& body, const sdk::EndpointPolicy* policy, std::chrono::milliseconds fallback) {
  auto timeout = explicitTimeout(policy).value_or(fallback);
  const auto kind = body.kind("timeout");
  if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null) return timeout;
  if (kind != sdk::JsonKind::integer && kind != sdk::JsonKind::number)
    return sdk::HttpError::badRequest("Field 'timeout' must be a number of seconds");
  auto seconds = body.number("timeout");
  if (!seconds) return sdk::HttpError::badRequest(seconds.status().message());
  if (!(*seconds > 0))
    return sdk::HttpError::badRequest("Field 'timeout' must be a positive number of seconds");
  return std::min(timeout, secondsToMs(*seconds));
}

std::string timeoutMessage(std::chrono::milliseconds timeout) {
  const double seconds = static_cast<double>(timeout.count()) / 1000.0;
  std::string text = std::to_string(seconds);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return "Command timed out after " + text + " seconds";
}

std::size_t outputCap(const sdk::EndpointPolicy* policy, std::size_t fallback) {
  return explicitOutputCap(policy).value_or(fallback);
}

}  // namespace abx::plugins::process
