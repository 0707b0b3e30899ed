// POST /shell/stream: one command whose stdout and stderr lines are sent as
// SSE events in the order they arrive (`stdout` / `stderr` {"data": line}),
// each flushed at once, then `exit` {"exit_code"}. A timeout sends `error`
// {"error", "type": "TimeoutError"} before `exit`; a command that cannot be
// started sends only `error`. A client that goes away (a write fails) gets
// the command's process group killed. While the command is silent a comment
// is written every probe interval: a closed connection is noticed only by a
// write that fails.
#pragma once

#include <chrono>
#include <optional>

#include "abx/sdk/http.h"
#include "abx/sdk/subprocess.h"
#include "launch.h"

namespace abx::plugins::process {

struct StreamSettings {
  /** Silence after which a `: keep-alive` comment probes the connection. */
  std::chrono::milliseconds probe_interval{500};
  /** The ladder when the client went away. */
  sdk::KillLadder disconnect_ladder{std::chrono::milliseconds(200), std::chrono::milliseconds(200)};
  /** The ladder at the timeout. */
  sdk::KillLadder timeout_ladder{std::chrono::milliseconds(1000), std::chrono::milliseconds(1000)};
  /** Longer lines arrive as several events. */
  std::size_t max_line = 1u << 20;
};

/**
 * The stream handler. A bad body or a policy refusal is answered with a JSON
 * Response before any event; everything else streams.
 */
std::optional<sdk::Response> shellStream(const LaunchContext& context,
                                         const StreamSettings& settings,
                                         const sdk::Request& request, sdk::SseStream& stream);

}  // namespace abx::plugins::process
