// What the Agents wire remembers per session beside the runtime: the
// Idempotency-Keys of POST …/events and the vault_ids a session was created
// with. Both are forgotten when the session ends.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace abx::plugins::agents {

/** Per-session Idempotency-Key memory (24 h, 256 keys a session; the wire
 *  passes each caller's keys apart, see callerKey()). THREAD: safe. */
class SessionKeys {
 public:
  /** True the first time @p key is seen for @p session_id (and remembers it). */
  bool firstUse(const std::string& session_id, const std::string& key, std::int64_t now);
  void forget(const std::string& session_id);

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<std::pair<std::string, std::int64_t>>> keys_;
};

/** The vault_ids each session was created with. THREAD: safe. */
class SessionVaultIds {
 public:
  void set(const std::string& session_id, std::vector<std::string> ids);
  std::vector<std::string> get(const std::string& session_id) const;
  void forget(const std::string& session_id);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<std::string>> ids_;
};

}  // namespace abx::plugins::agents
