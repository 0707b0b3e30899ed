// SessionStream: one session's events on the Agents wire (openai-wire.md
// §9.6, §9.10) — runtime events mapped to agent.session.* events with
// unique, stable event ids (evt_<zero-padded seq>), kept in a bounded ring
// so a live tail can start at the current position or replay after a
// sequence number (Last-Event-ID). Each event is encoded as SSE text once,
// when it happens, and that text is what every subscriber is sent.
// SessionStreams holds them by session id and is the runtime's listener.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/json.h"
#include "json_template.h"
#include "runtime/runtime_types.h"
#include "session_objects.h"

namespace abx::plugins::agents {

class SessionStream {
 public:
  static constexpr std::size_t kMaxSubscribers = 32;

  struct Event {
    std::uint64_t seq = 0;
    std::string type;
    std::string frame;  // the SSE text: `id: <seq>`, `event: <type>`, `data: <json>`
  };
  using SessionLookup = std::function<std::optional<SessionInfo>()>;
  using ExtrasLookup = std::function<SessionExtras(const SessionInfo&)>;

  SessionStream(std::string session_id, std::size_t capacity, SessionLookup lookup,
                ExtrasLookup extras = {});

  /** agent.session.created (the first event of a create-and-stream). */
  void created(const SessionInfo& session);
  /** Maps one runtime event of this session. THREAD: the turn's thread. */
  void onRuntimeEvent(const RuntimeEvent& event);
  /** The session is gone (deleted, expired, evicted): agent.session.failed
   *  with the reason as its error, then the stream closes. */
  void ended(const RuntimeEvent& session_ended);

  std::uint64_t lastSeq() const;
  /**
   * Gives @p take the events with seq > @p after in order, advancing
   * @p after past each one it takes, until it returns false (that event is
   * not taken). @p gap is set when events after @p after were already
   * dropped. @return false once the stream is closed and nothing is left.
   * THREAD: @p take runs under the stream's lock: copy, never block.
   */
  bool collect(std::uint64_t& after, bool& gap,
               const std::function<bool(const Event&)>& take) const;
  /** Waits up to @p wait for an event after @p after, or the close. */
  void waitFor(std::uint64_t after, std::chrono::milliseconds wait);
  /** @p waker is woken by each new event and by the close, while it is open. */
  void addWaker(std::weak_ptr<sdk::SseWaker> waker);
  /** False when kMaxSubscribers are already attached. */
  bool subscribe();
  void unsubscribe();
  int subscribers() const;
  void close();

 private:
  /** Appends an event whose JSON @p data(event_id) returns, under the lock
   *  (so it must not look anything up). */
  template <class Data>
  void append(const char* type, const Data& data);
  /** Appends an event: @p fields(sdk::JsonWriter&) writes its members after
   *  "type" and "event_id", under the lock. */
  template <class Fields>
  void push(const char* type, const Fields& fields);
  void pushSession(const char* type, const std::string& session_json);
  void pushTurn(const char* type, const Turn& turn, const std::string& turn_json);
  void itemAdded(const std::string& turn_id, const Item& item);
  void delta(const RuntimeEvent& event);
  void itemDone(const std::string& turn_id, const Item& item);
  void cliError(const RuntimeEvent& e);
  int outputIndexOf(const std::string& item_id) const;
  /** The open subscribers' wakers (closed ones forgotten), to wake after the lock. */
  std::vector<std::shared_ptr<sdk::SseWaker>> openWakersLocked();
  static void wakeAll(const std::vector<std::shared_ptr<sdk::SseWaker>>& wakers);
  /** "session_id" and "turn_id", the first fields of a turn's events. */
  void writeIds(sdk::JsonWriter& w, const std::string& turn_id) const;
  /** The session as it is now (JSON; null when it is gone). */
  std::string sessionNow();
  SessionExtras extras(const SessionInfo& session) const;
  std::string agentName() const;

  const std::string session_id_;
  const std::size_t capacity_;
  SessionLookup lookup_;
  ExtrasLookup extras_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Event> events_;
  std::uint64_t seq_ = 0;
  bool closed_ = false;
  int subscribers_ = 0;
  int sleepers_ = 0;
  std::vector<std::weak_ptr<sdk::SseWaker>> wakers_;
  // Mapping state, touched only by the turn threads (one at a time per session).
  std::map<std::string, int> next_output_index_;  // per turn
  struct ItemSlot {
    int output_index = 0;
    JsonTemplate delta;  // its deltas' JSON, made at the first one
    int delta_kind = 0;  // the kind of delta that template is for
  };
  std::map<std::string, ItemSlot> items_;
};

/** THREAD: safe. */
class SessionStreams {
 public:
  explicit SessionStreams(std::size_t capacity) : capacity_(capacity) {}

  /** The stream of @p session_id, created with the lookups if new. */
  std::shared_ptr<SessionStream> open(const std::string& session_id,
                                      SessionStream::SessionLookup lookup,
                                      SessionStream::ExtrasLookup extras = {});
  std::shared_ptr<SessionStream> find(const std::string& session_id) const;
  void erase(const std::string& session_id);
  /** The runtime's listener: feeds the session's stream if it has one;
   *  session.ended ends that stream and drops it. */
  void onRuntimeEvent(const std::string& session_id, const RuntimeEvent& event);
  /** Subscribers of every stream now (a metric). */
  std::size_t subscribers() const;

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<SessionStream>> streams_;
};

}  // namespace abx::plugins::agents
