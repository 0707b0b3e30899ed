#include "pipeline/audit_log.h"

#include <fcntl.h>

#include <cstdio>

#include "abx/sdk/json.h"
#include "support/utc_time.h"

namespace abx::kernel {

std::string AuditLog::format(const AuditEntry& e) {
  const std::string stamp = utcTimestamp();
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.3f", e.duration_ms);
  // One writer sized for the whole line: two allocations a record (the text
  // and the writer's nesting stack), where concatenating quoted pieces took one
  // per field. The duration keeps its fixed three decimals, hence raw().
  sdk::JsonWriter line(e.request_id.size() + e.identity.size() + e.endpoint.size() + e.path.size() +
                       e.rule.size() + e.code.size() + 192);
  line.beginObject()
      .member("time", stamp)
      .member("request_id", e.request_id)
      .member("identity", e.identity)
      .member("endpoint", e.endpoint)
      .member("method", e.method)
      .member("path", e.path)
      .member("decision", e.allowed ? "allow" : "deny")
      .member("rule", e.rule);
  if (!e.code.empty()) line.member("code", e.code);
  line.member("status", e.status).key("duration_ms").raw(duration).endObject();
  std::string text = line.take();
  text += '\n';
  return text;
}

std::FILE* AuditLog::openFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  return ::fdopen(fd, "a");
}

void AuditLog::record(const AuditEntry& entry) {
  if ((!sink_ && !ring_) || (forced_ && !wants(entry.allowed))) return;
  auto line = format(entry);
  if (ring_) ring_->push(std::string_view(line).substr(0, line.size() - 1));  // no newline
  if (!sink_) return;
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), sink_);
  std::fflush(sink_);
}

}  // namespace abx::kernel
