#include "run_limits.h"

#include <algorithm>

namespace abx::plugins::process {

std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return std::max(std::chrono::milliseconds(0), left);
}

std::variant<std::chrono::milliseconds, sdk::HttpError> commandTimeout(
    const sdk::Json& body, const sdk::EndpointPolicy* policy, std::chrono::milliseconds fallback) {
  const auto timeout = sdk::policyTimeout(policy).value_or(fallback);
  auto asked = sdk::requestTimeout(body);
  if (auto* error = std::get_if<sdk::HttpError>(&asked)) return std::move(*error);
  const auto& seconds = std::get<0>(asked);
  return seconds ? std::min(timeout, *seconds) : timeout;
}

std::string timeoutMessage(std::chrono::milliseconds timeout) {
  return "Command timed out after " + sdk::secondsText(timeout) + " seconds";
}

std::size_t outputCap(const sdk::EndpointPolicy* policy, std::size_t fallback) {
  return sdk::policyOutputCap(policy).value_or(fallback);
}

}  // namespace abx::plugins::process
