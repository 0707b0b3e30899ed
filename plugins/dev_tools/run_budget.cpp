#include "run_budget.h"

#include <algorithm>

namespace abx::plugins::dev_tools {

std::variant<std::chrono::milliseconds, sdk::HttpError> codeTimeout(
    const sdk::Json& body, const sdk::EndpointPolicy* policy) {
  const auto ceiling = sdk::policyTimeout(policy).value_or(kCodeTimeoutCeiling);
  auto asked = sdk::requestTimeout(body);
  if (auto* error = std::get_if<sdk::HttpError>(&asked)) return std::move(*error);
  return std::min(ceiling, std::get<0>(asked).value_or(kCodeTimeout));
}

std::size_t outputCap(const sdk::EndpointPolicy* policy, std::size_t fallback) {
  return sdk::policyOutputCap(policy).value_or(fallback);
}

std::string timedOutAfter(std::chrono::milliseconds timeout) {
  return "timed out after " + sdk::secondsText(timeout) + " seconds";
}

}  // namespace abx::plugins::dev_tools
