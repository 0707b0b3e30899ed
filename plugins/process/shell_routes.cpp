#include "shell_routes.h"

#include "run_limits.h"

namespace abx::plugins::process {

std::string shellResultJson(const CommandResult& result) {
  std::string body;
  body.reserve(result.out.size() + result.err.size() + 64);
  body += "{\"stdout\":";
  body += sdk::jsonQuote(result.out);
  body += ",\"stderr\":";
  body += sdk::jsonQuote(result.err);
  body += ",\"exit_code\":";
  body += std::to_string(result.exit_code);
  body += result.truncated ? ",\"truncated\":true}" : ",\"truncated\":false}";
  return body;
}

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
    return sdk::Response::json("{\"error\":" + sdk::jsonQuote(timeoutMessage(limits.timeout)) +
                                   ",\"type\":\"TimeoutError\"," +
                                   shellResultJson(*result).substr(1),
                               500);
  }
  return sdk::Response::json(shellResultJson(*result));
}

}  // namespace abx::plugins::process
