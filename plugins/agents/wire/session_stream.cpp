#include "session_stream.h"

#include "abx/sdk/json.h"
#include "event_position.h"
#include "session_objects.h"

namespace abx::plugins::agents {

SessionStream::SessionStream(std::string session_id, std::size_t capacity, SessionLookup lookup,
                             ExtrasLookup extras)
    : session_id_(std::move(session_id)),
      capacity_(std::max<std::size_t>(capacity, 1)),
      lookup_(std::move(lookup)),
      extras_(std::move(extras)) {}

// The event id is its sequence number, given under the lock, so the JSON is
// made there too (@p data(event_id) makes it; anything that needs a lookup
// is made by the caller first).
template <class Data>
void SessionStream::append(const char* type, const Data& data) {
  bool wake;
  std::vector<std::shared_ptr<sdk::SseWaker>> wakers;
  {
    std::lock_guard lock(mutex_);
    const std::uint64_t seq = seq_ + 1;
    const std::string id = eventIdText(seq);
    // `id: <seq>` lets a client reconnect with Last-Event-ID.
    std::string frame;
    sdk::appendSseFrame(frame, type, data(std::string_view(id)), std::to_string(seq));
    events_.push_back({seq, type, std::move(frame)});
    seq_ = seq;
    if (events_.size() > capacity_) events_.pop_front();
    wake = sleepers_ > 0;
    wakers = openWakersLocked();
  }
  wakeAll(wakers);
  if (wake) changed_.notify_all();
}

// {"type", "event_id", ...the fields...}
template <class Fields>
void SessionStream::push(const char* type, const Fields& fields) {
  append(type, [&](std::string_view event_id) {
    sdk::JsonWriter data(256);
    data.beginObject().member("type", type).member("event_id", event_id);
    fields(data);
    data.endObject();
    return data.take();
  });
}

std::vector<std::shared_ptr<sdk::SseWaker>> SessionStream::openWakersLocked() {
  std::vector<std::shared_ptr<sdk::SseWaker>> open;
  open.reserve(wakers_.size());
  std::erase_if(wakers_, [&](const std::weak_ptr<sdk::SseWaker>& weak) {
    auto waker = weak.lock();
    if (!waker || !waker->open()) return true;
    open.push_back(std::move(waker));
    return false;
  });
  return open;
}

// With the lock let go: the event loop runs at a higher priority, so a wake
// under the lock would have it preempt this thread and then wait on the lock.
void SessionStream::wakeAll(const std::vector<std::shared_ptr<sdk::SseWaker>>& wakers) {
  for (const auto& waker : wakers) waker->wake();
}

void SessionStream::addWaker(std::weak_ptr<sdk::SseWaker> waker) {
  std::lock_guard lock(mutex_);
  wakers_.push_back(std::move(waker));
}

void SessionStream::writeIds(sdk::JsonWriter& w, const std::string& turn_id) const {
  w.member("session_id", session_id_).member("turn_id", turn_id);
}

std::string SessionStream::sessionNow() {
  auto session = lookup_();
  return session ? sessionJson(*session, extras(*session)) : std::string("null");
}

SessionExtras SessionStream::extras(const SessionInfo& session) const {
  return extras_ ? extras_(session) : SessionExtras{};
}

void SessionStream::pushSession(const char* type, const std::string& session_json) {
  push(type, [&](sdk::JsonWriter& w) { w.key("session").raw(session_json); });
}

void SessionStream::ended(const RuntimeEvent& e) {
  if (e.session) {
    auto last = *e.session;
    last.status = SessionStatus::failed;
    pushSession("agent.session.failed", sessionJson(last, extras(last), e.delta));
  }
  close();
}

std::string SessionStream::agentName() const {
  auto session = lookup_();
  return session ? session->agent : std::string();
}

void SessionStream::created(const SessionInfo& session) {
  pushSession("agent.session.created", sessionJson(session, extras(session)));
}

void SessionStream::pushTurn(const char* type, const Turn& turn, const std::string& turn_json) {
  push(type, [&](sdk::JsonWriter& w) {
    writeIds(w, turn.id);
    w.key("turn").raw(turn_json);
  });
}

void SessionStream::itemAdded(const std::string& turn_id, const Item& item) {
  const int index = next_output_index_[turn_id]++;
  items_[item.id].output_index = index;
  const std::string item_json = sessionItemJson(item, true);
  push("agent.session.turn.item.added", [&](sdk::JsonWriter& w) {
    writeIds(w, turn_id);
    w.member("output_index", index).key("item").raw(item_json);
  });
  auto part = [&](const char* index_key, const char* part_type) {
    return [&, index_key, part_type](sdk::JsonWriter& w) {
      writeIds(w, turn_id);
      w.member("item_id", item.id).member("output_index", index).member(index_key, 0);
      w.key("part").beginObject().member("type", part_type).member("text", "").endObject();
    };
  };
  if (item.type == "message")
    push("agent.session.turn.content_part.added", part("content_index", "output_text"));
  else if (item.type == "reasoning")
    push("agent.session.turn.reasoning_summary_part.added", part("summary_index", "summary_text"));
}

// The flood path: one event per delta, filled into its item's template of
// {"type", "event_id": <hole>, "session_id", "turn_id", "item_id",
// "output_index"[, "content_index" | "summary_index"], "delta": <hole>}.
void SessionStream::delta(const RuntimeEvent& e) {
  struct Kind {
    const char* type;
    const char* index_key;  // nullptr: none
  };
  static constexpr Kind kKinds[] = {
      {"agent.output.command_execution_output.delta", nullptr},
      {"agent.session.turn.output_text.delta", "content_index"},
      {"agent.session.turn.reasoning_summary_text.delta", "summary_index"}};
  const int kind = e.type == "item.text.delta" ? 1 : e.type == "item.reasoning.delta" ? 2 : 0;
  const auto [type, index_key] = kKinds[kind];
  auto slot = items_.find(e.item_id);
  JsonTemplate once;  // an item that was never added: no slot to keep it in
  JsonTemplate& fill = slot == items_.end() ? once : slot->second.delta;
  if (fill.empty() || (slot != items_.end() && slot->second.delta_kind != kind)) {
    sdk::JsonWriter w(256);
    w.beginObject().member("type", type).key("event_id");
    fill = {};
    fill.hole(w);
    writeIds(w, e.turn_id);
    w.member("item_id", e.item_id).member("output_index", outputIndexOf(e.item_id));
    if (index_key) w.member(index_key, 0);
    w.key("delta");
    fill.hole(w);
    w.endObject();
    fill.finish(w);
    if (slot != items_.end()) slot->second.delta_kind = kind;
  }
  append(type, [&](std::string_view event_id) {
    std::string data;
    data.reserve(fill.size() + event_id.size() + e.delta.size() + e.delta.size() / 8 + 8);
    data += fill.part(0);
    sdk::appendJsonQuoted(data, event_id);
    data += fill.part(1);
    sdk::appendJsonQuoted(data, e.delta);
    data += fill.part(2);
    return data;
  });
}

void SessionStream::itemDone(const std::string& turn_id, const Item& item) {
  const int index = outputIndexOf(item.id);
  // The done text, or (with @p part_type) the done part holding it.
  auto text = [&](const char* type, const char* index_key, const char* part_type,
                  bool null_status) {
    push(type, [&](sdk::JsonWriter& w) {
      writeIds(w, turn_id);
      w.member("item_id", item.id).member("output_index", index).member(index_key, 0);
      if (!part_type) {
        w.member("text", item.text);
        return;
      }
      w.key("part").beginObject().member("type", part_type).member("text", item.text);
      w.endObject();
      if (null_status) w.key("status").null();
    });
  };
  if (item.type == "message") {
    text("agent.session.turn.output_text.done", "content_index", nullptr, false);
    text("agent.session.turn.content_part.done", "content_index", "output_text", false);
  } else if (item.type == "reasoning") {
    text("agent.session.turn.reasoning_summary_text.done", "summary_index", nullptr, false);
    text("agent.session.turn.reasoning_summary_part.done", "summary_index", "summary_text", true);
  }
  if (auto slot = items_.find(item.id); slot != items_.end()) slot->second.delta = {};
  const std::string item_json = sessionItemJson(item);
  push("agent.session.turn.item.done", [&](sdk::JsonWriter& w) {
    writeIds(w, turn_id);
    w.member("output_index", index).key("item").raw(item_json);
  });
}

int SessionStream::outputIndexOf(const std::string& item_id) const {
  auto it = items_.find(item_id);
  return it == items_.end() ? 0 : it->second.output_index;
}

void SessionStream::onRuntimeEvent(const RuntimeEvent& e) {
  const std::string& t = e.type;
  if (t == "turn.queued" && e.turn) {
    const auto& turn = *e.turn;
    pushTurn("agent.session.turn.created", turn, turnJson(turn, agentName()));
    for (const auto& m : turn.input) {
      if (m.role != "user") continue;
      const std::string item_json = userItemJson(m, turn.id);
      push("agent.session.turn.item.added", [&](sdk::JsonWriter& w) {
        writeIds(w, turn.id);
        w.key("output_index").null().key("item").raw(item_json);
      });
    }
    return;
  }
  if (t == "turn.started" && e.turn) {
    pushSession("agent.session.in_progress", sessionNow());
    pushTurn("agent.session.turn.in_progress", *e.turn, turnJson(*e.turn, agentName()));
    return;
  }
  if (t == "item.added" && e.item) return itemAdded(e.turn_id, *e.item);
  if (t == "item.text.delta" || t == "item.reasoning.delta" || t == "item.output.delta")
    return delta(e);
  if (t == "item.done" && e.item) return itemDone(e.turn_id, *e.item);
  if (t == "error") return cliError(e);
  if (t == "turn.waiting") return;
  if (e.turn && isTerminal(e.turn->status)) {
    const auto& turn = *e.turn;
    const std::string type = "agent.session.turn." + std::string(turnStatusName(turn.status));
    const std::string usage = tokenUsageJson(turn.usage);
    const std::string turn_json = turnJson(turn, agentName());
    push(type.c_str(), [&](sdk::JsonWriter& w) {
      writeIds(w, turn.id);
      w.key("usage").raw(usage).key("turn").raw(turn_json);
    });
    next_output_index_.erase(turn.id);
    // A session with another turn queued stays in progress: no idle between.
    auto session = lookup_();
    if (session && session->status == SessionStatus::idle)
      pushSession("agent.session.idle", sessionJson(*session, extras(*session)));
  }
}

// An error the agent's CLI reported without ending its turn (a retried
// request, a tool it could not start): the SDK's session error event.
void SessionStream::cliError(const RuntimeEvent& e) {
  push("error", [&](sdk::JsonWriter& w) {
    w.member("session_id", session_id_).key("error").beginObject().key("code");
    e.code.empty() ? w.null() : w.value(e.code);
    w.member("message", e.delta).key("param").null().member("type", "agent_error").endObject();
  });
}

std::uint64_t SessionStream::lastSeq() const {
  std::lock_guard lock(mutex_);
  return seq_;
}

bool SessionStream::collect(std::uint64_t& after, bool& gap,
                            const std::function<bool(const Event&)>& take) const {
  std::lock_guard lock(mutex_);
  if (!events_.empty() && after + 1 < events_.front().seq) gap = true;
  // Sequence numbers are dense: the first event after `after` is found by index.
  std::size_t i = 0;
  if (!events_.empty() && after >= events_.front().seq)
    i = static_cast<std::size_t>(after - events_.front().seq + 1);
  for (; i < events_.size(); ++i) {
    if (!take(events_[i])) return true;
    after = events_[i].seq;
  }
  return !closed_;
}

void SessionStream::waitFor(std::uint64_t after, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  auto ready = [&] { return closed_ || seq_ > after; };
  if (ready()) return;
  ++sleepers_;
  changed_.wait_for(lock, wait, ready);
  --sleepers_;
}

bool SessionStream::subscribe() {
  std::lock_guard lock(mutex_);
  if (subscribers_ >= static_cast<int>(kMaxSubscribers)) return false;
  ++subscribers_;
  return true;
}

void SessionStream::unsubscribe() {
  std::lock_guard lock(mutex_);
  --subscribers_;
}

int SessionStream::subscribers() const {
  std::lock_guard lock(mutex_);
  return subscribers_;
}

void SessionStream::close() {
  std::vector<std::shared_ptr<sdk::SseWaker>> wakers;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    wakers = openWakersLocked();
  }
  wakeAll(wakers);
  changed_.notify_all();
}

std::shared_ptr<SessionStream> SessionStreams::open(const std::string& session_id,
                                                    SessionStream::SessionLookup lookup,
                                                    SessionStream::ExtrasLookup extras) {
  std::lock_guard lock(mutex_);
  auto& slot = streams_[session_id];
  if (!slot)
    slot = std::make_shared<SessionStream>(session_id, capacity_, std::move(lookup),
                                           std::move(extras));
  return slot;
}

std::shared_ptr<SessionStream> SessionStreams::find(const std::string& session_id) const {
  std::lock_guard lock(mutex_);
  auto it = streams_.find(session_id);
  return it == streams_.end() ? nullptr : it->second;
}

void SessionStreams::erase(const std::string& session_id) {
  std::shared_ptr<SessionStream> stream;
  {
    std::lock_guard lock(mutex_);
    auto it = streams_.find(session_id);
    if (it == streams_.end()) return;
    stream = it->second;
    streams_.erase(it);
  }
  stream->close();
}

void SessionStreams::onRuntimeEvent(const std::string& session_id, const RuntimeEvent& event) {
  if (event.type == "log" || event.type == "usage") return;
  if (event.type == "session.ended") {
    if (auto stream = find(session_id)) stream->ended(event);
    erase(session_id);
    return;
  }
  if (auto stream = find(session_id)) stream->onRuntimeEvent(event);
}

std::size_t SessionStreams::subscribers() const {
  std::vector<std::shared_ptr<SessionStream>> streams;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, stream] : streams_) streams.push_back(stream);
  }
  std::size_t total = 0;
  for (const auto& stream : streams) total += static_cast<std::size_t>(stream->subscribers());
  return total;
}

}  // namespace abx::plugins::agents
