// ResponseStore: the Responses wire's memory — the ResponseRun of recent
// responses (their echo fields and event history, newest kResponses kept;
// an older response is rebuilt from its turn) and the Idempotency-Key
// table (24 h, 256 keys, oldest dropped first; the wire keeps each
// identity's keys apart, see callerKey()).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "response_run.h"

namespace abx::plugins::agents {

/** THREAD: safe. */
class ResponseStore {
 public:
  static constexpr std::size_t kResponses = 1024;
  static constexpr std::size_t kIdempotencyKeys = 256;
  static constexpr std::int64_t kIdempotencyTtlS = 24 * 3600;

  void add(std::shared_ptr<ResponseRun> run);
  std::shared_ptr<ResponseRun> find(const std::string& response_id) const;
  void erase(const std::string& response_id);

  /** The response an Idempotency-Key created, if still remembered. */
  std::optional<std::string> idempotent(const std::string& key, std::int64_t now) const;
  void remember(const std::string& key, const std::string& response_id, std::int64_t now);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<ResponseRun>> runs_;
  std::deque<std::string> order_;  // response ids, oldest first
  struct Key {
    std::string response_id;
    std::int64_t at = 0;
  };
  std::map<std::string, Key> keys_;
  std::deque<std::string> key_order_;
};

}  // namespace abx::plugins::agents
