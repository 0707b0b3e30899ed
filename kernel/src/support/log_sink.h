// LogSink: the server's log (stderr, one line per message, redacted), and
// PluginLogger, the sdk::Logger each plugin gets, tagged with its id.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "abx/sdk/logger.h"
#include "abx/sdk/redactor.h"

namespace abx::kernel {

class LogSink {
 public:
  LogSink(const sdk::Redactor& redactor, std::FILE* out = stderr,
          sdk::LogLevel min_level = sdk::LogLevel::info)
      : redactor_(redactor), out_(out), min_level_(min_level) {}
  void write(sdk::LogLevel level, std::string_view tag, std::string_view message);

 private:
  const sdk::Redactor& redactor_;
  std::FILE* out_;
  sdk::LogLevel min_level_;
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
