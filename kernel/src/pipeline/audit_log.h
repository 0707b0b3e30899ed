// AuditLog: one JSONL record per audited request (time, identity, endpoint,
// decision, rule, status, duration) — never bodies, headers or secrets.
// Which calls are recorded is each endpoint's `audit` rule (off | deny |
// all; default deny) unless the log was built with a level that overrides
// it for every endpoint. Each record written also goes to the AuditRing the
// log was given (GET /audit/recent).
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/policy.h"
#include "pipeline/audit_ring.h"

namespace abx::kernel {

using AuditMode = sdk::AuditLevel;

struct AuditEntry {
  std::string_view request_id;
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
  /** Writes to @p sink and keeps in @p ring (neither owned; either may be
   *  null); each endpoint's rule decides what. */
  explicit AuditLog(std::FILE* sink = stderr, AuditRing* ring = nullptr)
      : sink_(sink), ring_(ring) {}
  /** Writes to @p sink with @p forced as every endpoint's level. */
  AuditLog(AuditMode forced, std::FILE* sink) : forced_(forced), sink_(sink) {}
  /** Opens @p path for appending (0600); nullptr sink on failure. */
  static std::FILE* openFile(const std::string& path);

  bool wants(bool allowed, AuditMode endpoint_level = AuditMode::deny) const {
    auto level = forced_.value_or(endpoint_level);
    return level == AuditMode::all || (level == AuditMode::deny && !allowed);
  }
  void record(const AuditEntry& entry);
  static std::string format(const AuditEntry& entry);

 private:
  std::optional<AuditMode> forced_;
  std::FILE* sink_;
  AuditRing* ring_ = nullptr;
  std::mutex mutex_;
};

}  // namespace abx::kernel
