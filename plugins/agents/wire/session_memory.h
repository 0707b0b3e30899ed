// What the Agents wire remembers per session beside the runtime: the
// Idempotency-Keys of POST …/events, and the inline agent and environment
// settings a session was created (or updated) with (memory only: they may
// hold MCP header secrets). All are forgotten when the session ends. Its
// vault_ids are the runtime's (SessionInfo, kept in sessions.json).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::agents {

/** What a session's inline `agent` and `environment` give each of its turns. */
struct SessionOverrides {
  std::string instructions; /**< added to the turn's extra instructions */
  std::vector<sdk::agents::McpServerSpec> mcp_servers; /**< http only; headers secret */
  std::string reasoning_effort;
  std::string workdir; /**< "" = the definition's workspace */
};

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

/** The inline overrides of each session. THREAD: safe. */
class SessionOverridesStore {
 public:
  void set(const std::string& session_id, SessionOverrides overrides);
  SessionOverrides get(const std::string& session_id) const;
  void forget(const std::string& session_id);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, SessionOverrides> overrides_;
};

}  // namespace abx::plugins::agents
