// ChildEnvironment: the environment every child process starts from — the
// server's own at start-up without its secrets, plus what POST /env (or any
// plugin) set since. Shared by every plugin that spawns children. It is the
// one keeper of the protected names (ABX_SERVER_*, the policy's token
// variables, secrets taken with HostContext::takeSecretEnv): they are never
// in it, so a child spawned with snapshot() cannot see them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::sdk {

/** THREAD: safe. */
class ABX_SDK_API ChildEnvironment {
 public:
  /** "NAME=value" entries, sorted by name, never a protected name; pass
   *  to SpawnOptions::env. */
  virtual std::vector<std::string> snapshot() const = 0;
  virtual std::optional<std::string> get(std::string_view name) const = 0;
  /**
   * Sets @p name for children spawned afterwards. Refuses (PermissionError)
   * the server's protected names (ABX_SERVER_*, token variables) and
   * malformed names (ValueError). The server's own environment is untouched.
   */
  virtual Status set(std::string_view name, std::string_view value) = 0;
  /**
   * Since 2.0. True for a name no child may get: ABX_SERVER_*, token
   * variables, taken secrets. A plugin that adds variables of its own
   * choosing (a request's, a configuration file's) to snapshot() drops these.
   */
  virtual bool isProtected(std::string_view name) const = 0;

 protected:
  ~ChildEnvironment();
};

}  // namespace abx::sdk
