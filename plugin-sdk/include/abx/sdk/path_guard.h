// PathGuard: the one gate every caller-supplied path goes through. Plugins
// never open a caller's path without it.
#pragma once

#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::sdk {

enum class PathOp { read, write, remove, list };

/** The verdict on one path. A denial never says whether the path exists. */
struct PathCheck {
  bool allowed = false;
  std::string resolved; /**< the real absolute path when allowed */
  int status = 403;     /**< HTTP status of a denial (403, or 400 for bad input) */
  std::string code;     /**< path_not_allowed, path_denied, read_only, symlink_denied */
  std::string message;
};

/** THREAD: safe. */
class ABX_SDK_API PathGuard {
 public:
  /** Resolves @p path for @p op on endpoint @p endpoint. Never follows into /proc, /sys, /dev. */
  virtual PathCheck check(std::string_view endpoint, std::string_view path, PathOp op) const = 0;
  /**
   * check() then open(2) with O_NOFOLLOW on the final component and
   * O_CLOEXEC. @return the fd (caller closes) or the denial as a Status whose
   * type is PermissionError and whose message is the check's code.
   */
  virtual Result<int> open(std::string_view endpoint, std::string_view path, PathOp op, int flags,
                           int mode = 0644) const = 0;

 protected:
  ~PathGuard();
};

}  // namespace abx::sdk
