// Session and SessionTable: the live PTY sessions, their cap (10 by
// default: spec §4.5), the idle timeout (1800 s) and the reaping of
// sessions whose shell ended.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/status.h"
#include "pty_process.h"

namespace abx::plugins::terminal {

using SteadyClock = std::function<std::chrono::steady_clock::time_point()>;

/** What GET /pty/sessions reports of one session. */
struct SessionInfo {
  std::string id;
  pid_t pid = -1;
  double created_at = 0; /**< Unix time, seconds */
  int cols = 80;
  int rows = 24;
  bool alive = true;
  bool connected = false; /**< a WebSocket client is attached */
};

/** {"id","pid","created_at","cols","rows","alive","connected"} */
std::string sessionJson(const SessionInfo& info);

/**
 * One shell on its PTY. Shared by the table and the WebSocket attached to
 * it, so its master fd stays open while either uses it.
 * THREAD: safe.
 */
class Session {
 public:
  /** @p owner: the identity that created it (terminal_owner.h). */
  Session(std::string id, std::string owner, std::unique_ptr<PtyProcess> process, int cols,
          int rows, SteadyClock clock);

  const std::string& id() const { return id_; }
  const std::string& owner() const { return owner_; }
  PtyProcess& process() { return *process_; }
  SessionInfo info();

  /** Resizes the terminal and remembers the size. */
  sdk::Status resize(int cols, int rows);
  /** Something happened (input, output, resize, attach): the idle clock restarts. */
  void touch();
  std::chrono::steady_clock::time_point lastActivity();
  /** The session ends @p lifetime from now, client or not (the policy's
   *  limits.max_duration_seconds). */
  void limitLifetime(std::chrono::milliseconds lifetime);
  std::optional<std::chrono::steady_clock::time_point> deadline();

  /**
   * A WebSocket client attaches; a previous one is superseded (it notices
   * attachedAs() turning false and closes). @return this attachment's number.
   */
  std::uint64_t attach();
  void detach(std::uint64_t attachment);
  bool attachedAs(std::uint64_t attachment) const { return attachment_.load() == attachment; }
  bool connected();

 private:
  const std::string id_;
  const std::string owner_;
  std::unique_ptr<PtyProcess> process_;
  const double created_at_;
  SteadyClock clock_;
  std::mutex mutex_;
  int cols_;
  int rows_;
  std::chrono::steady_clock::time_point last_activity_;
  bool connected_ = false;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::atomic<std::uint64_t> attachment_{0};
};

/** THREAD: safe. */
class SessionTable {
 public:
  struct Limits {
    std::size_t max_sessions = 10;
    std::chrono::seconds idle_timeout{1800};
  };

  explicit SessionTable(Limits limits, SteadyClock clock = {});

  /** A slot counted against the cap from reserve() until it is committed or dropped. */
  class Reservation {
   public:
    Reservation(Reservation&& other) noexcept : table_(std::exchange(other.table_, nullptr)) {}
    Reservation& operator=(Reservation&&) = delete;
    ~Reservation();

   private:
    friend class SessionTable;
    explicit Reservation(SessionTable* table) : table_(table) {}
    SessionTable* table_;
  };

  /**
   * Reaps dead sessions, then takes a slot. RuntimeError "Maximum PTY
   * sessions (N) reached" when the live sessions and slots in use fill the cap.
   * Sessions reaped are returned in @p reaped (to be cleaned up outside the lock).
   */
  sdk::Result<Reservation> reserve(std::vector<std::shared_ptr<Session>>* reaped = nullptr);
  /** Turns @p slot into a session of @p owner with a fresh 12-hex-digit id. */
  std::shared_ptr<Session> commit(Reservation slot, std::unique_ptr<PtyProcess> process, int cols,
                                  int rows, std::string owner);

  /** The session @p id (alive or not yet reaped), or null. */
  std::shared_ptr<Session> find(const std::string& id);
  /** Removes and returns @p id, or null. */
  std::shared_ptr<Session> remove(const std::string& id);
  /** Removes sessions whose shell ended and returns them. */
  std::vector<std::shared_ptr<Session>> reapDead();
  /** Live sessions, oldest first (reapDead() first). */
  std::vector<std::shared_ptr<Session>> list(
      std::vector<std::shared_ptr<Session>>* reaped = nullptr);
  /**
   * Removes sessions whose shell ended, sessions without a client idle
   * for longer than the timeout and sessions past their deadline; returns
   * them for the caller to terminate.
   */
  std::vector<std::shared_ptr<Session>> sweep();
  /** The earliest deadline of a session (when the sweeper must look next). */
  std::optional<std::chrono::steady_clock::time_point> nextDeadline();
  /** Removes everything (shutdown). */
  std::vector<std::shared_ptr<Session>> clear();

  std::size_t size();
  const Limits& limits() const { return limits_; }

 private:
  void release() noexcept;
  void reapDeadLocked(std::vector<std::shared_ptr<Session>>& out);

  const Limits limits_;
  SteadyClock clock_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
  std::vector<std::string> order_;  // creation order, for listing
  std::size_t reserved_ = 0;
};

}  // namespace abx::plugins::terminal
