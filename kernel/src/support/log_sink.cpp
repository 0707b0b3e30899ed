#include "support/log_sink.h"

#include "abx/sdk/json.h"
#include "support/request_id.h"
#include "support/utc_time.h"

namespace abx::kernel {
namespace {

constexpr const char* kLevelNames[] = {"debug", "info", "warn", "error"};

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
  const std::string_view request_id = currentRequestId();
  std::string line;
  if (format_ == LogFormat::json) {
    sdk::JsonWriter json;
    json.beginObject()
        .member("time", utcTimestamp())
        .member("level", level_name)
        .member("source", tag)
        .member("message", redactor_.redact(message));
    if (!request_id.empty()) json.member("request_id", request_id);
    line = json.endObject().take();
  } else {
    line = utcTimestamp() + " agent-sandbox-server [" + level_name + "] ";
    line += tag;
    line += ": ";
    line += redactor_.redact(message);
    if (!request_id.empty()) {
      line += " request_id=";
      line += request_id;
    }
  }
  line += '\n';
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace abx::kernel
