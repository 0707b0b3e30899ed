// Logger: a plugin's log, tagged with its id and passed through the
// redactor by the host, so a plugin cannot leak a registered secret.
#pragma once

#include <string_view>

#include "abx/sdk/version.h"

namespace abx::sdk {

enum class LogLevel { debug, info, warn, error };

/** THREAD: safe. */
class ABX_SDK_API Logger {
 public:
  virtual void log(LogLevel level, std::string_view message) = 0;
  void debug(std::string_view m) { log(LogLevel::debug, m); }
  void info(std::string_view m) { log(LogLevel::info, m); }
  void warn(std::string_view m) { log(LogLevel::warn, m); }
  void error(std::string_view m) { log(LogLevel::error, m); }

 protected:
  ~Logger();
};

}  // namespace abx::sdk
