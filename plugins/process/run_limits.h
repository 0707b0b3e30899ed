// Timeouts and output caps of the process routes: built-in defaults, which
// an endpoint's policy limits replace and a request body may only lower.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>

#include "abx/sdk/http_error.h"
#include "abx/sdk/json.h"
#include "abx/sdk/policy.h"
#include "abx/sdk/policy_limits.h"

namespace abx::plugins::process {

/** POST /shell and /shell/stream: 300 s (spec §4.4). */
inline constexpr std::chrono::milliseconds kShellTimeout{300000};
/** POST /shell: stdout + stderr kept per call. */
inline constexpr std::size_t kShellOutputBytes = 10u << 20;
/** POST /process/start: the output ring of each background process. */
inline constexpr std::size_t kProcessOutputBytes = 1u << 20;
/** GET /process/{pid}/output: bytes of output per answer, whatever the ring's size. */
inline constexpr std::size_t kOutputReadBytes = 1u << 20;

/** Whole milliseconds until @p deadline, rounded up; 0 once it passed. */
std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline);

/**
 * The timeout of one command: limits.timeout_seconds of @p policy (else
 * @p fallback), lowered by the body's "timeout" (seconds, a positive
 * number; a larger one is ignored). 400 when "timeout" is not a positive
 * number.
 */
std::variant<std::chrono::milliseconds, sdk::HttpError> commandTimeout(
    const sdk::Json& body, const sdk::EndpointPolicy* policy,
    std::chrono::milliseconds fallback = kShellTimeout);

/** "Command timed out after 1.5 seconds". */
std::string timeoutMessage(std::chrono::milliseconds timeout);

/** limits.max_output_bytes of @p policy, else @p fallback. */
std::size_t outputCap(const sdk::EndpointPolicy* policy, std::size_t fallback);

}  // namespace abx::plugins::process
