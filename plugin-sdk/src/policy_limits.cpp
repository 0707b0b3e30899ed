#include "abx/sdk/policy_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace abx::sdk {

std::chrono::milliseconds secondsToMilliseconds(double seconds) {
  constexpr double kLongest = 10.0 * 365 * 24 * 3600 * 1000;
  double ms = std::ceil(seconds * 1000.0);
  if (!(ms >= 1.0)) ms = 1.0;  // also NaN
  if (ms > kLongest) ms = kLongest;
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

std::optional<std::chrono::milliseconds> policyTimeout(const EndpointPolicy* policy) {
  auto ceiling = policyMaxDuration(policy);
  // 0 sets no timeout of its own: the route's default applies, as documented.
  if (!policy || !(policy->limits.timeout_seconds.value_or(0) > 0)) return ceiling;
  const auto timeout = secondsToMilliseconds(*policy->limits.timeout_seconds);
  return ceiling ? std::min(timeout, *ceiling) : timeout;
}

std::optional<std::chrono::milliseconds> policyMaxDuration(const EndpointPolicy* policy) {
  // 0 sets no ceiling, as a timeout of 0 takes the default elsewhere.
  if (!policy || !(policy->limits.max_duration_seconds.value_or(0) > 0)) return std::nullopt;
  return secondsToMilliseconds(*policy->limits.max_duration_seconds);
}

std::optional<std::size_t> policyOutputCap(const EndpointPolicy* policy) {
  if (!policy || !policy->limits.max_output_bytes) return std::nullopt;
  const auto cap = *policy->limits.max_output_bytes;
  if (cap > std::numeric_limits<std::size_t>::max()) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(cap);
}

std::variant<std::optional<std::chrono::milliseconds>, HttpError> requestTimeout(const Json& body) {
  const auto kind = body.kind("timeout");
  if (kind == JsonKind::missing || kind == JsonKind::null)
    return std::optional<std::chrono::milliseconds>();
  if (kind != JsonKind::integer && kind != JsonKind::number)
    return HttpError::badRequest("Field 'timeout' must be a number of seconds");
  auto seconds = body.number("timeout");
  if (!seconds) return HttpError::badRequest(seconds.status().message());
  if (!(*seconds > 0))
    return HttpError::badRequest("Field 'timeout' must be a positive number of seconds");
  return std::optional(secondsToMilliseconds(*seconds));
}

std::string secondsText(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  std::string text = std::to_string(ms / 1000);
  if (ms % 1000 == 0) return text;
  std::string fraction = std::to_string(1000 + std::llabs(ms % 1000)).substr(1);
  fraction.erase(fraction.find_last_not_of('0') + 1);
  return text + "." + fraction;
}

}  // namespace abx::sdk
