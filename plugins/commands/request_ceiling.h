// The policy's limits.max_duration_seconds of the request a command runs
// for. sdk::CommandFn takes only the arguments, so runCommand hands the
// ceiling to this plugin's declarative commands through the thread that
// runs both: a RequestCeiling lives for the call, current() reads it.
#pragma once

#include <chrono>
#include <optional>
#include <utility>

namespace abx::plugins::commands {

class RequestCeiling {
 public:
  explicit RequestCeiling(std::optional<std::chrono::milliseconds> ceiling)
      : outer_(std::exchange(current_, ceiling)) {}
  ~RequestCeiling() { current_ = outer_; }
  RequestCeiling(const RequestCeiling&) = delete;
  RequestCeiling& operator=(const RequestCeiling&) = delete;

  /** The ceiling of the command running on this thread, if any. */
  static std::optional<std::chrono::milliseconds> current() { return current_; }

 private:
  static inline thread_local std::optional<std::chrono::milliseconds> current_;
  const std::optional<std::chrono::milliseconds> outer_;
};

}  // namespace abx::plugins::commands
