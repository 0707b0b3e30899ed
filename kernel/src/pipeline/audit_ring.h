// AuditRing: the newest audit records in memory, for GET /audit/recent —
// each the JSON object the audit log writes as one line, so the route and
// the log never disagree. Bounded: a busy server keeps a fixed number.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace abx::kernel {

class AuditRing {
 public:
  static constexpr std::size_t kDefaultCapacity = 256;

  explicit AuditRing(std::size_t capacity = kDefaultCapacity) : slots_(capacity) {}

  /** Keeps @p record (one JSON object), forgetting the oldest when full. */
  void push(std::string_view record);
  /** At most @p limit records, newest first. */
  std::vector<std::string> newest(std::size_t limit) const;
  std::size_t capacity() const { return slots_.size(); }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> slots_;
  std::size_t next_ = 0;  // the slot the next push overwrites
  std::size_t size_ = 0;
};

}  // namespace abx::kernel
