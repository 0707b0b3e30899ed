// BaseDirPathGuard: the default PathGuard — every path must resolve (after
// realpath of its existing part) inside the base directory, and never into
// /proc, /sys or /dev or the root itself. The policy engine's guard, with
// per-endpoint allow/deny/read-only rules, replaces it behind the same
// sdk::PathGuard interface.
#pragma once

#include <string>

#include "abx/sdk/path_guard.h"

namespace abx::kernel {

class BaseDirPathGuard final : public sdk::PathGuard {
 public:
  explicit BaseDirPathGuard(std::string base_dir);

  sdk::PathCheck check(std::string_view endpoint, std::string_view path,
                       sdk::PathOp op) const override;
  sdk::Result<int> open(std::string_view endpoint, std::string_view path, sdk::PathOp op, int flags,
                        int mode) const override;

  const std::string& baseDir() const { return base_; }

 private:
  std::string base_;  // realpath of the configured base dir
};

}  // namespace abx::kernel
