// The rules of POST /process/{pid}/signal (spec §8.2): which signals may be
// sent (the whitelist, or the policy's params.allowed_signals instead) and
// which pids may never be signalled (1 and the server itself).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/json.h"
#include "abx/sdk/policy.h"

namespace abx::plugins::process {

/** SIGINT, SIGKILL, SIGTERM, SIGCONT, SIGTSTP. */
inline constexpr std::int64_t kDefaultSignals[] = {2, 9, 15, 18, 20};

/** params.allowed_signals when set, else kDefaultSignals. */
std::vector<std::int64_t> allowedSignals(const sdk::Params& params);

/**
 * The body's "signal": 400 when missing or not an integer, 400 when not
 * allowed ("Signal 1 is not allowed; allowed: 2, 9, 15, 18, 20").
 */
std::variant<int, sdk::HttpError> requestedSignal(const sdk::Json& body, const sdk::Params& params);

/** A `{pid}` path segment: a decimal integer (sign allowed), else nullopt. */
std::optional<std::int64_t> parsePid(std::string_view text);

/** 403 PermissionError for pid 1 and for @p server_pid; nullopt otherwise. */
std::optional<sdk::HttpError> protectedPid(std::int64_t pid, pid_t server_pid);

}  // namespace abx::plugins::process
