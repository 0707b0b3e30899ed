// ResponseRun: one response of the Responses wire while its turn runs. It
// maps the turn's RuntimeEvents onto the Responses stream (agents spec §6.3,
// openai-wire.md §7.4: created → in_progress → per item added / parts /
// deltas / done → completed | failed) with a sequence_number on every event,
// and keeps the events so several readers (the POST's own stream, GET
// ?stream=true replays) can follow from any point. The kept history is
// bounded: past kMaxHistoryBytes the events every reader has passed are
// dropped, and a replay is then rebuilt from the finished turn instead; a
// reader that falls more than kMaxHistoryBytes behind (a client that stopped
// reading) is cut: it gets an `error` event (events_dropped) and its end.
// Each event is encoded as SSE text once, when it happens; readers are sent
// that text (pulled by the server's event loop through a ResponseFeed).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/json.h"
#include "json_template.h"
#include "response_object.h"
#include "runtime/runtime_types.h"

namespace abx::plugins::agents {

class ResponseRun {
 public:
  static constexpr std::size_t kMaxHistoryBytes = 8u << 20;
  /** How long a busy reader waits for more events before it sends what it has. */
  static constexpr std::chrono::microseconds kBatchWindow{500};

  struct Event {
    std::int64_t sequence_number = 0;
    std::string type;
    std::string frame;        // `event: <type>\ndata: <json>\n\n`
    std::size_t data_at = 0;  // where the JSON starts in frame
    std::string_view data() const {
      return std::string_view(frame).substr(data_at, frame.size() - data_at - 2);
    }
  };

  ResponseRun(std::string response_id, std::int64_t created_at, ResponseEcho echo);

  /** Feeds one runtime event of this response's turn. THREAD: the turn's thread. */
  void onEvent(const RuntimeEvent& event);

  /**
   * A reader from the first event; -1 when the start was already dropped.
   * A @p pinned reader keeps every event after its position, however far
   * behind it is (what builds a replay); any other is cut when it falls
   * more than kMaxHistoryBytes behind.
   */
  int attach(bool pinned = false);
  void detach(int reader);
  /**
   * Appends the reader's next events to @p out, waiting up to @p wait for
   * some. @return false once the reader has seen the terminal event.
   */
  bool read(int reader, std::vector<Event>& out, std::chrono::milliseconds wait);
  /**
   * Appends the SSE text of the reader's next events with a sequence number
   * above @p after, about @p budget bytes at most, without waiting.
   * THREAD: any; never blocks on the producer.
   */
  sdk::SseFeed::Pull pull(int reader, std::int64_t after, std::string& out, std::size_t budget);
  /** @p waker is woken by the reader's next events and the end. */
  void setWaker(int reader, std::weak_ptr<sdk::SseWaker> waker);

  bool finished() const;
  const ResponseEcho& echo() const { return echo_; }
  const std::string& id() const { return id_; }

 private:
  struct ItemSlot {
    std::size_t output_index = 0;
    std::string type;
    JsonTemplate delta;  // its text or reasoning deltas' JSON, made at the first one
    bool delta_is_text = true;
  };
  /** Appends an event: @p fields(sdk::JsonWriter&) writes its members after
   *  "type" and "sequence_number"; @p bytes is about their size. */
  template <class Fields>
  void push(const char* type, std::size_t bytes, const Fields& fields);
  /** An event's SSE text up to its JSON (sequence number taken). */
  Event startEvent(const char* type, std::size_t data_bytes);
  /** Ends @p e's SSE text and keeps it in the history (readers woken). */
  void keep(Event e);
  /** Drops the events every reader not cut has passed. */
  void dropPassedLocked();
  /** Cuts the readers furthest behind while the history is over its bound. */
  void cutLaggardsLocked();
  /** What a cut reader gets last: an `error` event at its position. */
  Event droppedEvent(std::int64_t sequence_number) const;
  static JsonTemplate deltaTemplate(const char* type, const std::string& item_id, std::size_t index,
                                    bool text);
  /** The lifecycle events: the Response object as it stands. */
  void lifecycle(const char* type, const std::string& status, const Turn* turn);
  /** "item_id" and "output_index", the first fields of an item's events. */
  static void writeWhere(sdk::JsonWriter& w, const std::string& item_id, std::size_t index);
  void delta(const RuntimeEvent& event);
  void itemAdded(const Item& item);
  void itemDone(const Item& item);

  const std::string id_;
  const std::int64_t created_at_;
  const ResponseEcho echo_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Event> history_;
  std::size_t dropped_ = 0;  // events dropped from the front of history_
  std::size_t history_bytes_ = 0;
  struct Reader {
    std::size_t next = 0;  // index of its next event
    bool active = false;   // its last read found events
    bool pinned = false;   // never cut
    bool cut = false;      // fell too far behind: gets droppedEvent() and its end
    std::weak_ptr<sdk::SseWaker> waker;
  };
  /** The readers' wakers, to wake once the lock is let go. */
  std::vector<std::shared_ptr<sdk::SseWaker>> readerWakersLocked() const;
  std::map<int, Reader> readers_;
  int sleepers_ = 0;  // readers in a long wait, who need a notify
  int next_reader_ = 0;
  std::int64_t sequence_ = 0;
  bool finished_ = false;
  std::map<std::string, ItemSlot> items_;
  std::vector<std::string> done_items_;  // output_item.done JSON by output_index
};

}  // namespace abx::plugins::agents
