// POST /shell/stream: one command whose stdout and stderr lines are sent as
// SSE events in the order they arrive (`stdout` / `stderr` {"data": line}),
// each flushed at once, then `exit` {"exit_code"}. A timeout sends `error`
// {"error", "type": "TimeoutError"} before `exit`; a command that cannot be
// started sends only `error`. A client that goes away gets the command's
// process group killed. Once the command runs the handler detaches the
// stream to the server's event loop and returns: the plugin's ShellPump
// thread reads the command's output, so a running stream holds no worker.
#pragma once

#include <optional>

#include "abx/sdk/http.h"
#include "launch.h"
#include "shell_pump.h"
#include "stream_job.h"

namespace abx::plugins::process {

/**
 * The stream handler. A bad body or a policy refusal is answered with a JSON
 * Response before any event; everything else streams.
 */
std::optional<sdk::Response> shellStream(const LaunchContext& context, ShellPump& pump,
                                         const StreamSettings& settings,
                                         const sdk::Request& request, sdk::SseStream& stream);

}  // namespace abx::plugins::process
