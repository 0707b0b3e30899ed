#include "support/log_sink.h"

namespace abx::kernel {

void LogSink::write(sdk::LogLevel level, std::string_view tag, std::string_view message) {
  if (level < min_level_) return;
  static constexpr const char* kNames[] = {"debug", "info", "warn", "error"};
  std::string line = "agent-sandbox-server [";
  line += kNames[static_cast<int>(level)];
  line += "] ";
  line += tag;
  line += ": ";
  line += redactor_.redact(message);
  line += '\n';
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace abx::kernel
