// LogSink: the server's log (stderr, one line per message, redacted), and
// PluginLogger, the sdk::Logger each plugin gets, tagged with its id. A line
// carries its UTC time to the millisecond; as text
//   2026-12-03T04:50:00.123Z agent-sandbox-server [info] kernel: draining
// or, with ABX_LOG_FORMAT=json, one JSON object per line
//   {"time":"2026-12-03T04:50:00.123Z","level":"info","source":"kernel","message":"draining"}
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/logger.h"
#include "abx/sdk/redactor.h"

namespace abx::kernel {

enum class LogFormat { text, json };

/** "debug", "info", "warn", "error" (ABX_LOG_LEVEL); nullopt for anything else. */
std::optional<sdk::LogLevel> parseLogLevel(std::string_view name);
/** "text", "json" (ABX_LOG_FORMAT); nullopt for anything else. */
std::optional<LogFormat> parseLogFormat(std::string_view name);

class LogSink {
 public:
  LogSink(const sdk::Redactor& redactor, std::FILE* out = stderr,
          sdk::LogLevel min_level = sdk::LogLevel::info)
      : redactor_(redactor), out_(out), min_level_(min_level) {}
  /** Set once at start, before other threads log. */
  void configure(sdk::LogLevel min_level, LogFormat format) {
    min_level_ = min_level;
    format_ = format;
  }
  void write(sdk::LogLevel level, std::string_view tag, std::string_view message);

 private:
  const sdk::Redactor& redactor_;
  std::FILE* out_;
  sdk::LogLevel min_level_;
  LogFormat format_ = LogFormat::text;
  std::mutex mutex_;
};

class PluginLogger final : public sdk::Logger {
 public:
  PluginLogger(LogSink& sink, std::string tag) : sink_(sink), tag_(std::move(tag)) {}
  void log(sdk::LogLevel level, std::string_view message) override {
    sink_.write(level, tag_, message);
  }

 private:
  LogSink& sink_;
  std::string tag_;
};

}  // namespace abx::kernel
