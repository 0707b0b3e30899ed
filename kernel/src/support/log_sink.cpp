#include "support/log_sink.h"

#include <chrono>
#include <ctime>

#include "abx/sdk/json.h"

namespace abx::kernel {
namespace {

constexpr const char* kLevelNames[] = {"debug", "info", "warn", "error"};

// RFC 3339 in UTC with milliseconds: sortable, and what log shippers parse.
std::string utcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(millis));
  return text;
}

}  // namespace

std::optional<sdk::LogLevel> parseLogLevel(std::string_view name) {
  for (int i = 0; i < 4; ++i)
    if (name == kLevelNames[i]) return static_cast<sdk::LogLevel>(i);
  return std::nullopt;
}

std::optional<LogFormat> parseLogFormat(std::string_view name) {
  if (name == "text") return LogFormat::text;
  if (name == "json") return LogFormat::json;
  return std::nullopt;
}

void LogSink::write(sdk::LogLevel level, std::string_view tag, std::string_view message) {
  if (level < min_level_) return;
  const char* level_name = kLevelNames[static_cast<int>(level)];
  std::string line;
  if (format_ == LogFormat::json) {
    line = sdk::JsonWriter()
               .beginObject()
               .member("time", utcNow())
               .member("level", level_name)
               .member("source", tag)
               .member("message", redactor_.redact(message))
               .endObject()
               .take();
  } else {
    line = utcNow() + " agent-sandbox-server [" + level_name + "] ";
    line += tag;
    line += ": ";
    line += redactor_.redact(message);
  }
  line += '\n';
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace abx::kernel
