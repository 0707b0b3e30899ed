// ToolContext: what the dev_tools handlers need from the host (the path
// guard, the child environment, the base directory). LIFETIME: the plugin's;
// handlers share it read-only on worker threads.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/http.h"
#include "abx/sdk/http_error.h"
#include "abx/sdk/path_guard.h"

namespace abx::plugins::dev_tools {

struct ToolContext {
  const sdk::PathGuard* paths = nullptr;
  sdk::ChildEnvironment* environment = nullptr;
  /** HostInfo::base_dir: the working directory when the guard gives none. */
  std::string base_dir;
  /** HostInfo::state_dir: where git's private views are made (git_view.h). */
  std::string state_dir;
};

/** Used when the child environment has no PATH. */
inline constexpr const char* kDefaultPathEntry = "PATH=/usr/local/bin:/usr/bin:/bin";

/**
 * The environment of a child: the host's child environment (what POST /env
 * set, never the server's secrets), plus kDefaultPathEntry when it has no
 * PATH, plus @p extra ("NAME=value", replacing a variable of that name).
 */
std::vector<std::string> childEnv(const ToolContext& context,
                                  const std::vector<std::string>& extra = {});

/**
 * A directory the caller named, judged by the PathGuard for @p endpoint with
 * PathOp::read: 400 when it holds a ".." segment or a NUL byte, 403 with the
 * guard's code when the guard refuses, 400 FileNotFoundError /
 * NotADirectoryError when it is not a directory. An empty @p path is the
 * guard's base directory ("."), else ToolContext::base_dir.
 * @p field names the parameter in messages ("path", "cwd").
 */
std::variant<std::string, sdk::HttpError> directoryOf(const ToolContext& context,
                                                      const std::string& endpoint,
                                                      std::string_view path,
                                                      std::string_view field);

/** True when @p path has a ".." segment ("..", "a/../b", "a/.."). */
bool hasDotDotSegment(std::string_view path);

}  // namespace abx::plugins::dev_tools
