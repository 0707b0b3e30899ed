// TicketStore: short-lived, single-use credentials for the WebSocket
// handshake of one PTY session. POST /pty/sessions puts one into the ws_url
// it returns, so a browser (which cannot set headers on a WebSocket) can
// connect without the long-lived token ever appearing in a URL. A ticket
// speaks for the identity it was issued to (the session's creator).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abx::plugins::terminal {

/** THREAD: safe. */
class TicketStore {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  /** @p ttl: how long a ticket stays valid; @p capacity: live tickets kept
   *  (the oldest is dropped beyond it). @p now: injectable for tests. */
  explicit TicketStore(std::chrono::seconds ttl = std::chrono::seconds(60),
                       std::size_t capacity = 256, Clock now = {});

  /** A new random 128-bit ticket (32 hex digits) for @p session_id, issued to @p identity. */
  std::string issue(std::string_view session_id, std::string_view identity);
  /**
   * The identity a ticket was issued to, once, for a ticket issued for
   * @p session_id that has not expired; nullopt otherwise. A presented
   * ticket is spent whether or not it matched the session. Comparison is
   * constant-time over every live ticket.
   */
  std::optional<std::string> consume(std::string_view ticket, std::string_view session_id);
  /** Drops every ticket of @p session_id (the session was closed). */
  void revoke(std::string_view session_id);
  /** Live (unexpired) tickets. */
  std::size_t size();

 private:
  struct Entry {
    std::string ticket;
    std::string session_id;
    std::string identity;
    std::chrono::steady_clock::time_point expires;
  };
  void purgeLocked(std::chrono::steady_clock::time_point now);

  std::chrono::seconds ttl_;
  std::size_t capacity_;
  Clock now_;
  std::mutex mutex_;
  std::vector<Entry> entries_;  // issue order: oldest first
};

}  // namespace abx::plugins::terminal
