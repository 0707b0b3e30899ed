#include "launch.h"

#include <sys/stat.h>

#include <algorithm>

#include "command_chain.h"
#include "command_rules.h"
#include "process_vocabulary.h"
#include "shell_words.h"

namespace abx::plugins::process {
namespace {

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

sdk::HttpError guardRefusal(const sdk::PathCheck& check, const std::string& path) {
  sdk::HttpError r;
  r.status = check.status;
  r.type = check.status == 400 ? "ValueError" : "PermissionError";
  r.code = check.code;
  r.message = check.message.empty() ? "Working directory not allowed: " + path : check.message;
  return r;
}

}  // namespace

std::variant<std::vector<std::string>, sdk::HttpError> commandArgv(const sdk::Json& body) {
  std::vector<std::string> argv;
  switch (body.kind("command")) {
    case sdk::JsonKind::missing:
    case sdk::JsonKind::null:
      return sdk::HttpError::badRequest("Missing required field 'command'");
    case sdk::JsonKind::string: {
      auto text = body.string("command");
      if (!text) return sdk::HttpError::badRequest(text.status().message());
      auto words = splitShellWords(*text);
      if (!words) return sdk::HttpError::badRequest("Invalid command: " + words.status().message());
      argv = std::move(*words);
      break;
    }
    case sdk::JsonKind::array: {
      auto list = body.stringList("command");
      if (!list)
        return sdk::HttpError::badRequest(
            "Field 'command' must be a string or an array of strings");
      argv = std::move(*list);
      break;
    }
    default:
      return sdk::HttpError::badRequest("Field 'command' must be a string or an array of strings");
  }
  if (argv.empty() || argv[0].empty()) return sdk::HttpError::badRequest("Command is empty");
  for (const auto& arg : argv)
    if (arg.find('\0') != std::string::npos)
      return sdk::HttpError::badRequest("Command cannot contain NUL bytes");
  return argv;
}

std::variant<std::string, sdk::HttpError> workingDirectory(const sdk::Json& body,
                                                           const std::string& endpoint,
                                                           const LaunchContext& context) {
  const auto kind = body.kind("cwd");
  if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null) {
    if (context.paths) {
      auto base = context.paths->check(endpoint, ".", sdk::PathOp::read);
      if (base.allowed && isDirectory(base.resolved)) return base.resolved;
    }
    if (!context.base_dir.empty() && isDirectory(context.base_dir)) return context.base_dir;
    return std::string();
  }
  if (kind != sdk::JsonKind::string)
    return sdk::HttpError::badRequest("Field 'cwd' must be a string");
  auto cwd = body.string("cwd");
  if (!cwd) return sdk::HttpError::badRequest(cwd.status().message());
  if (cwd->empty()) return sdk::HttpError::badRequest("Field 'cwd' must not be empty");
  if (cwd->find('\0') != std::string::npos)
    return sdk::HttpError::badRequest("Field 'cwd' cannot contain NUL bytes");
  if (!context.paths)
    return sdk::HttpError{403, "Working directory not allowed: " + *cwd, "PermissionError",
                          "path_not_allowed"};
  auto check = context.paths->check(endpoint, *cwd, sdk::PathOp::read);
  if (!check.allowed) return guardRefusal(check, *cwd);
  struct stat st {};
  if (::stat(check.resolved.c_str(), &st) != 0)
    return sdk::HttpError{
        400, "Working directory does not exist: " + *cwd, "FileNotFoundError", {}};
  if (!S_ISDIR(st.st_mode))
    return sdk::HttpError{
        400, "Working directory is not a directory: " + *cwd, "NotADirectoryError", {}};
  return check.resolved;
}

std::variant<Launch, sdk::HttpError> prepareLaunch(const sdk::Request& request,
                                                   const LaunchContext& context) {
  auto argv = commandArgv(request.json);
  if (auto* refusal = std::get_if<sdk::HttpError>(&argv)) return *refusal;
  auto cwd = workingDirectory(request.json, request.endpoint, context);
  if (auto* refusal = std::get_if<sdk::HttpError>(&cwd)) return *refusal;

  Launch launch;
  launch.spawn.argv = std::move(std::get<0>(argv));
  launch.spawn.cwd = std::move(std::get<0>(cwd));
  launch.spawn.stdin_pipe = false;
  const sdk::Params& params = request.policyParams();
  std::vector<std::string> env;
  if (context.environment) env = context.environment->snapshot();
  env = withoutDenied(std::move(env), params.strings(kEnvDeny));
  if (std::none_of(env.begin(), env.end(),
                   [](const std::string& e) { return e.starts_with("PATH="); }))
    env.emplace_back(kDefaultPathEntry);
  launch.spawn.env = std::move(env);

  if (hasCommandPolicy(params)) {
    if (auto refusal = judgeCommand(launch.spawn.argv, launch.spawn.env, launch.spawn.cwd, params))
      return *refusal;
  }

  if (request.json.kind("command") == sdk::JsonKind::string)
    launch.command = *request.json.string("command");
  else
    launch.command = joinShellWords(launch.spawn.argv);
  return launch;
}

}  // namespace abx::plugins::process
