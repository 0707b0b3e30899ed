// How long a dev_tools child may run and how much output is kept: built-in
// defaults, the endpoint's policy limits, and (for POST /code/run) the body's
// "timeout" in seconds.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <variant>

#include "abx/sdk/http_error.h"
#include "abx/sdk/json.h"
#include "abx/sdk/policy.h"
#include "abx/sdk/policy_limits.h"

namespace abx::plugins::dev_tools {

/** POST /code/run without a "timeout": 30 s. */
inline constexpr std::chrono::milliseconds kCodeTimeout{30000};
/** The longest "timeout" a body may ask for when the policy sets none: 300 s. */
inline constexpr std::chrono::milliseconds kCodeTimeoutCeiling{300000};
/** git status / git diff: 30 s. */
inline constexpr std::chrono::milliseconds kGitTimeout{30000};
/** POST /code/run: stdout + stderr kept (the code is stopped past it). */
inline constexpr std::size_t kCodeOutputBytes = 10u << 20;
/** GET /git/diff: diff text kept (spec: _MAX_DIFF_BYTES). */
inline constexpr std::size_t kDiffBytes = 1u << 20;
/** GET /git/status and the --numstat run of /git/diff: machine output read. */
inline constexpr std::size_t kGitListingBytes = 32u << 20;

/**
 * The timeout of POST /code/run: the body's "timeout" (a positive number of
 * seconds) or kCodeTimeout, never more than limits.timeout_seconds of
 * @p policy (else kCodeTimeoutCeiling). 400 when "timeout" is not a positive
 * number.
 */
std::variant<std::chrono::milliseconds, sdk::HttpError> codeTimeout(
    const sdk::Json& body, const sdk::EndpointPolicy* policy);

/** limits.max_output_bytes of @p policy, else @p fallback. */
std::size_t outputCap(const sdk::EndpointPolicy* policy, std::size_t fallback);

/** "timed out after 1.5 seconds". */
std::string timedOutAfter(std::chrono::milliseconds timeout);

}  // namespace abx::plugins::dev_tools
