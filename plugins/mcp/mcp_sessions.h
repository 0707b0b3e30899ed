// The MCP sessions: an unguessable id issued on initialize, bound to the
// identity that initialized it (another identity presenting the id is told
// it does not exist), with the negotiated protocol revision. Bounded: at
// most max_sessions open, and a session idle for idle_seconds ends.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace abx::plugins::mcp {

class SessionTable {
 public:
  using Clock = std::chrono::steady_clock;

  struct Session {
    std::string identity;
    std::string protocol_version;
    bool initialized = false;  // notifications/initialized arrived
    Clock::time_point last_used;
  };

  /** @p now: the clock (tests pass their own). */
  SessionTable(std::size_t max_sessions, std::chrono::seconds idle,
               std::function<Clock::time_point()> now = &Clock::now);

  /** A new session for @p identity, or nullopt when max_sessions are open. */
  std::optional<std::string> open(const std::string& identity, const std::string& version);

  enum class Lookup { found, unknown };
  /** Finds @p id for @p identity and marks it used. A session of another
   *  identity is `unknown`, exactly like an id never issued. */
  Lookup use(const std::string& id, const std::string& identity, Session* out = nullptr);
  void markInitialized(const std::string& id);
  /** Ends @p id when it belongs to @p identity. @return whether it did. */
  bool close(const std::string& id, const std::string& identity);
  std::size_t size();

 private:
  void expireLocked(Clock::time_point now);

  std::size_t max_;
  std::chrono::seconds idle_;
  std::function<Clock::time_point()> now_;
  std::mutex mutex_;
  std::map<std::string, Session, std::less<>> sessions_;
};

}  // namespace abx::plugins::mcp
