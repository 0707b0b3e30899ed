// ChildEnvironmentStore: the host's ChildEnvironment — a copy of the
// server's environment taken at start-up without its secrets, updated by
// set() (POST /env) and read by every plugin that spawns a child. The
// protected names live here and nowhere else: protect() erases them, set()
// refuses them, so snapshot() can never hand one to a child.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "abx/sdk/child_environment.h"

namespace abx::kernel {

class ChildEnvironmentStore final : public sdk::ChildEnvironment {
 public:
  /** Copies @p environ (NAME=value entries), dropping protected names. */
  explicit ChildEnvironmentStore(char** environ);

  std::vector<std::string> snapshot() const override;
  std::optional<std::string> get(std::string_view name) const override;
  sdk::Status set(std::string_view name, std::string_view value) override;
  /** ABX_SERVER_* and every name protect() was given. */
  bool isProtected(std::string_view name) const override;

  /**
   * Adds names (the policy's token_env, taken secrets) that are dropped now
   * and refused later. Never shrinks: a name a reload drops stays protected.
   */
  void protect(const std::vector<std::string>& names);

 private:
  bool isProtectedLocked(std::string_view name) const;

  mutable std::mutex mutex_;
  std::map<std::string, std::string, std::less<>> vars_;
  std::vector<std::string> protected_;
};

}  // namespace abx::kernel
