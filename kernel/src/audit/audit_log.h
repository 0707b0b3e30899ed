// AuditLog: one JSONL record per audited request (time, identity, endpoint,
// decision, rule, status, duration) — never bodies, headers or secrets.
// Mode "deny" (the default) records only rejected calls, "all" every call.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

namespace abx::kernel {

enum class AuditMode { off, deny, all };

struct AuditEntry {
  std::string_view identity;
  std::string_view endpoint;
  std::string_view method;
  std::string_view path;
  bool allowed = true;
  std::string_view rule;
  std::string_view code;
  int status = 200;
  double duration_ms = 0;
};

class AuditLog {
 public:
  /** Writes to @p sink (not owned; stderr by default). */
  explicit AuditLog(AuditMode mode = AuditMode::deny, std::FILE* sink = stderr)
      : mode_(mode), sink_(sink) {}

  bool wants(bool allowed) const {
    return mode_ == AuditMode::all || (mode_ == AuditMode::deny && !allowed);
  }
  void record(const AuditEntry& entry);
  static std::string format(const AuditEntry& entry);

 private:
  AuditMode mode_;
  std::FILE* sink_;
  std::mutex mutex_;
};

}  // namespace abx::kernel
