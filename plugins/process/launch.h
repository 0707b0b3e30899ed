// From a request body ({"command", "cwd"?}) and the endpoint's policy to
// what gets spawned: the argv (shell words, or a JSON array taken as is),
// the working directory through the PathGuard, the child environment
// without params.env_deny, and the command rules. Every refusal happens here,
// before a process exists.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/http.h"
#include "abx/sdk/http_error.h"
#include "abx/sdk/path_guard.h"
#include "abx/sdk/subprocess.h"

namespace abx::plugins::process {

/** What the process routes need from the host. LIFETIME: the plugin's. */
struct LaunchContext {
  const sdk::PathGuard* paths = nullptr;
  sdk::ChildEnvironment* environment = nullptr;
  /** HostInfo::base_dir: the working directory when the guard's base is refused. */
  std::string base_dir;
};

struct Launch {
  sdk::SpawnOptions spawn; /**< argv, env and cwd filled; stdin /dev/null */
  std::string command;     /**< the command as the caller gave it (display form) */
};

/** Used when the child environment has no PATH. */
inline constexpr const char* kDefaultPathEntry = "PATH=/usr/local/bin:/usr/bin:/bin";

/**
 * The argv of the body's "command": a string split by splitShellWords, or an
 * array of strings used as is. 400 when missing, of another type, empty, or
 * holding a NUL byte, or when the quoting is unbalanced.
 */
std::variant<std::vector<std::string>, sdk::HttpError> commandArgv(const sdk::Json& body);

/**
 * The working directory: the body's "cwd" judged by the PathGuard for
 * @p endpoint with PathOp::read (403 with the guard's code; 400
 * FileNotFoundError / NotADirectoryError when it is not a directory), or,
 * without "cwd", the guard's base directory ("."), else
 * @p context.base_dir, else the server's own.
 */
std::variant<std::string, sdk::HttpError> workingDirectory(const sdk::Json& body,
                                                           const std::string& endpoint,
                                                           const LaunchContext& context);

/** Everything above plus the environment and the command policy (judgeCommand()). */
std::variant<Launch, sdk::HttpError> prepareLaunch(const sdk::Request& request,
                                                   const LaunchContext& context);

}  // namespace abx::plugins::process
