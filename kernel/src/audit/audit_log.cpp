#include "audit/audit_log.h"

#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "abx/sdk/json.h"

namespace abx::kernel {

std::string AuditLog::format(const AuditEntry& e) {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis.count()));
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.3f", e.duration_ms);
  std::string line = "{\"time\":\"";
  line += stamp;
  line += "\",\"identity\":" + sdk::jsonQuote(e.identity);
  line += ",\"endpoint\":" + sdk::jsonQuote(e.endpoint);
  line += ",\"method\":" + sdk::jsonQuote(e.method);
  line += ",\"path\":" + sdk::jsonQuote(e.path);
  line += ",\"decision\":\"";
  line += e.allowed ? "allow" : "deny";
  line += "\",\"rule\":" + sdk::jsonQuote(e.rule);
  if (!e.code.empty()) line += ",\"code\":" + sdk::jsonQuote(e.code);
  line += ",\"status\":" + std::to_string(e.status);
  line += ",\"duration_ms\":";
  line += duration;
  line += "}\n";
  return line;
}

std::FILE* AuditLog::openFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  return ::fdopen(fd, "a");
}

void AuditLog::record(const AuditEntry& entry) {
  if (!sink_ || (forced_ && !wants(entry.allowed))) return;
  auto line = format(entry);
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), sink_);
  std::fflush(sink_);
}

}  // namespace abx::kernel
