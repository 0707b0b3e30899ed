#include "shell_routes.h"

#include "abx/sdk/json.h"
#include "run_limits.h"

namespace abx::plugins::process {

namespace {

/** The members of the 200 body, into the object @p w is writing. */
void writeShellResult(sdk::JsonWriter& w, const CommandResult& result) {
  w.member("stdout", result.out)
      .member("stderr", result.err)
      .member("exit_code", result.exit_code)
      .member("truncated", result.truncated);
}

}  // namespace

sdk::Response runShell(const LaunchContext& context, const sdk::Request& request) {
  auto launch = prepareLaunch(request, context);
  if (auto* refusal = std::get_if<sdk::HttpError>(&launch)) return refusal->toResponse();
  auto timeout = commandTimeout(request.json, request.policy);
  if (auto* refusal = std::get_if<sdk::HttpError>(&timeout)) return refusal->toResponse();

  CommandLimits limits;
  limits.timeout = std::get<std::chrono::milliseconds>(timeout);
  limits.max_output_bytes = outputCap(request.policy, kShellOutputBytes);
  auto result = runCommand(std::get<Launch>(launch).spawn, limits);
  if (!result) return sdk::HttpError::fromStatus(500, result.status()).toResponse();
  if (result->timed_out) {
    // The error body, plus the fields of a result: what the command printed
    // before it was stopped.
    sdk::JsonWriter body(result->out.size() + result->err.size() + 128);
    body.beginObject()
        .member("error", timeoutMessage(limits.timeout))
        .member("type", "TimeoutError");
    writeShellResult(body, *result);
    return sdk::Response::json(body.endObject().take(), 500);
  }
  sdk::JsonWriter body(result->out.size() + result->err.size() + 64);
  body.beginObject();
  writeShellResult(body, *result);
  return sdk::Response::json(body.endObject().take());
}

}  // namespace abx::plugins::process
