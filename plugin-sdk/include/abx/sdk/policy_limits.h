// An endpoint's policy limits and a request's "timeout" as the numbers a
// child run needs. Every group that starts children with a timeout reads
// them the same way: the policy's limit is a ceiling, the request may only
// lower it.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>

#include "abx/sdk/http_error.h"
#include "abx/sdk/json.h"
#include "abx/sdk/policy.h"

namespace abx::sdk {

/** Since 2.0. @p seconds as milliseconds, rounded up, at least 1 ms, at most
 *  about ten years (NaN → 1 ms). */
ABX_SDK_API std::chrono::milliseconds secondsToMilliseconds(double seconds);

/**
 * Since 2.0. The timeout of one run: limits.timeout_seconds of @p policy,
 * and since 2.3 never more than limits.max_duration_seconds (the smaller of
 * the two that some layer set above 0; a 0 sets nothing: the route's
 * default applies).
 */
ABX_SDK_API std::optional<std::chrono::milliseconds> policyTimeout(const EndpointPolicy* policy);

/**
 * Since 2.3. limits.max_duration_seconds of @p policy, when some layer set
 * it above 0: the hard wall-clock ceiling of whatever the request starts,
 * including work that outlives the request (a background process, a
 * terminal, an agent turn). Routes whose work ends with the request get it through
 * policyTimeout(); the others keep this deadline with the work.
 */
ABX_SDK_API std::optional<std::chrono::milliseconds> policyMaxDuration(
    const EndpointPolicy* policy);

/** Since 2.0. limits.max_output_bytes of @p policy, when some layer set it. */
ABX_SDK_API std::optional<std::size_t> policyOutputCap(const EndpointPolicy* policy);

/**
 * Since 2.0. The body's "timeout", a positive number of seconds: nullopt when
 * it is missing or null, a 400 naming the field when it is not a positive
 * number.
 */
ABX_SDK_API std::variant<std::optional<std::chrono::milliseconds>, HttpError> requestTimeout(
    const Json& body);

/** Since 2.0. @p duration in seconds for a message: "300", "1.5", "0.25". */
ABX_SDK_API std::string secondsText(std::chrono::milliseconds duration);

}  // namespace abx::sdk
