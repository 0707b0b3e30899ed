#include "code_run_route.h"

#include <cstdio>

#include "abx/sdk/json.h"
#include "abx/sdk/subprocess.h"
#include "code_language.h"
#include "run_budget.h"

namespace abx::plugins::dev_tools {
namespace {

using Clock = std::chrono::steady_clock;

std::string milliseconds(Clock::duration elapsed) {
  const double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", ms);
  return text;
}

std::variant<std::string, sdk::HttpError> readString(const sdk::Json& body, const char* key,
                                                     std::optional<std::string> fallback) {
  const auto kind = body.kind(key);
  if ((kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null) && fallback) return *fallback;
  auto value = body.string(key);
  if (!value) return sdk::HttpError::badRequest(value.status().message());
  return *value;
}

}  // namespace

sdk::Response runCode(const ToolContext& context, const sdk::Request& request) {
  const sdk::Json& body = request.json;
  auto code = readString(body, "code", std::nullopt);
  if (auto* refusal = std::get_if<sdk::HttpError>(&code)) return refusal->toResponse();
  auto language = readString(body, "language", std::string("python"));
  if (auto* refusal = std::get_if<sdk::HttpError>(&language)) return refusal->toResponse();
  const std::string& source = std::get<std::string>(code);
  const std::string& lang = std::get<std::string>(language);
  if (source.find('\0') != std::string::npos)
    return sdk::HttpError::badRequest("Field 'code' cannot contain NUL bytes").toResponse();
  if (auto refusal = checkLanguage(lang, request.policyParams())) return refusal->toResponse();
  auto timeout = codeTimeout(body, request.policy);
  if (auto* refusal = std::get_if<sdk::HttpError>(&timeout)) return refusal->toResponse();

  std::string cwd_text;
  if (body.kind("cwd") != sdk::JsonKind::missing && body.kind("cwd") != sdk::JsonKind::null) {
    auto cwd_field = body.string("cwd");
    if (!cwd_field) return sdk::HttpError::badRequest(cwd_field.status().message()).toResponse();
    if (cwd_field->empty())
      return sdk::HttpError::badRequest("Field 'cwd' must not be empty").toResponse();
    cwd_text = *cwd_field;
  }
  auto cwd = directoryOf(context, request.endpoint, cwd_text, "cwd");
  if (auto* refusal = std::get_if<sdk::HttpError>(&cwd)) return refusal->toResponse();

  auto command = codeCommand(lang, source);  // checkLanguage() vouched for it
  sdk::SpawnOptions spawn;
  spawn.argv = command->argv;
  spawn.env = childEnv(context);
  spawn.cwd = std::get<std::string>(cwd);
  spawn.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = std::get<std::chrono::milliseconds>(timeout);
  limits.max_output_bytes = outputCap(request.policy, kCodeOutputBytes);
  limits.stdin_data = command->stdin_data;
  limits.ladder = {std::chrono::milliseconds(500), std::chrono::milliseconds(500)};

  const auto started = Clock::now();
  auto run = sdk::Subprocess::run(spawn, limits);
  const auto elapsed = Clock::now() - started;
  if (!run) {
    const auto& s = run.status();
    std::string message = s.message();
    if (s.type() == "FileNotFoundError")
      message = "Runtime for " + lang + " not found: " + spawn.argv[0] + " is not installed";
    return sdk::Response::error(500, message, s.type().empty() ? "OSError" : s.type());
  }
  if (run->timed_out)
    return sdk::Response::error(408, "Code execution " + timedOutAfter(limits.timeout),
                                "TimeoutError");

  // execution_time_ms keeps its one decimal (milliseconds()), hence raw().
  sdk::JsonWriter out(run->out.size() + run->err.size() + 128);
  out.beginObject()
      .member("stdout", run->out)
      .member("stderr", run->err)
      .member("exit_code", run->exit_code)
      .member("language", lang)
      .key("execution_time_ms")
      .raw(milliseconds(elapsed))
      .member("truncated", run->truncated)
      .endObject();
  return sdk::Response::json(out.take());
}

}  // namespace abx::plugins::dev_tools
