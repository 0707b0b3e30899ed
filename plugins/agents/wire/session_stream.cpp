#include "session_stream.h"

#include <cstdio>

#include "json_text.h"
#include "session_objects.h"

namespace abx::plugins::agents {

SessionStream::SessionStream(std::string session_id, std::size_t capacity, SessionLookup lookup,
                             VaultIdsLookup vault_ids)
    : session_id_(std::move(session_id)),
      capacity_(std::max<std::size_t>(capacity, 1)),
      lookup_(std::move(lookup)),
      vault_ids_(std::move(vault_ids)) {}

void SessionStream::push(const char* type, const std::string& fields) {
  bool wake;
  {
    std::lock_guard lock(mutex_);
    const std::uint64_t seq = seq_ + 1;
    char id[32];
    std::snprintf(id, sizeof id, "evt_%08llu", static_cast<unsigned long long>(seq));
    std::string data = "{\"type\":\"";
    data += type;
    data += "\",\"event_id\":\"";
    data += id;
    data += '"';
    if (!fields.empty()) {
      data += ',';
      data += fields;
    }
    data += '}';
    // `id: <seq>` lets a client reconnect with Last-Event-ID.
    std::string frame;
    sdk::appendSseFrame(frame, type, data, std::to_string(seq));
    events_.push_back({seq, type, std::move(frame)});
    seq_ = seq;
    if (events_.size() > capacity_) events_.pop_front();
    wake = sleepers_ > 0;
    wakeSubscribersLocked();
  }
  if (wake) changed_.notify_all();
}

void SessionStream::wakeSubscribersLocked() {
  std::erase_if(wakers_, [](const std::weak_ptr<sdk::SseWaker>& weak) {
    auto waker = weak.lock();
    if (!waker || !waker->open()) return true;
    waker->wake();
    return false;
  });
}

void SessionStream::addWaker(std::weak_ptr<sdk::SseWaker> waker) {
  std::lock_guard lock(mutex_);
  wakers_.push_back(std::move(waker));
}

std::string SessionStream::ids(const std::string& turn_id) const {
  return "\"session_id\":" + sdk::jsonQuote(session_id_) +
         ",\"turn_id\":" + sdk::jsonQuote(turn_id);
}

std::string SessionStream::sessionEvent() {
  auto session = lookup_();
  return "\"session\":" + (session ? sessionJson(*session, vaultIds()) : std::string("null"));
}

std::vector<std::string> SessionStream::vaultIds() const {
  return vault_ids_ ? vault_ids_() : std::vector<std::string>{};
}

void SessionStream::ended(const RuntimeEvent& e) {
  if (e.session) {
    auto last = *e.session;
    last.status = SessionStatus::failed;
    push("agent.session.failed", "\"session\":" + sessionJson(last, vaultIds(), e.delta));
  }
  close();
}

std::string SessionStream::agentName() const {
  auto session = lookup_();
  return session ? session->agent : std::string();
}

void SessionStream::created(const SessionInfo& session) {
  push("agent.session.created", "\"session\":" + sessionJson(session, vaultIds()));
}

void SessionStream::onRuntimeEvent(const RuntimeEvent& e) {
  const std::string& t = e.type;
  if (t == "turn.queued" && e.turn) {
    const auto& turn = *e.turn;
    push("agent.session.turn.created", ids(turn.id) + ",\"turn\":" + turnJson(turn, agentName()));
    for (const auto& m : turn.input)
      if (m.role == "user")
        push("agent.session.turn.item.added",
             ids(turn.id) + ",\"output_index\":null,\"item\":" + userItemJson(m, turn.id));
    return;
  }
  if (t == "turn.started" && e.turn) {
    push("agent.session.in_progress", sessionEvent());
    push("agent.session.turn.in_progress",
         ids(e.turn_id) + ",\"turn\":" + turnJson(*e.turn, agentName()));
    return;
  }
  if (t == "item.added" && e.item) {
    const int index = next_output_index_[e.turn_id]++;
    output_index_[e.item->id] = index;
    const std::string where = ids(e.turn_id) + ",\"output_index\":" + std::to_string(index);
    push("agent.session.turn.item.added", where + ",\"item\":" + sessionItemJson(*e.item, true));
    const std::string item_where = ids(e.turn_id) + ",\"item_id\":" + sdk::jsonQuote(e.item->id) +
                                   ",\"output_index\":" + std::to_string(index);
    if (e.item->type == "message")
      push("agent.session.turn.content_part.added",
           item_where + R"(,"content_index":0,"part":{"type":"output_text","text":""})");
    else if (e.item->type == "reasoning")
      push("agent.session.turn.reasoning_summary_part.added",
           item_where + R"(,"summary_index":0,"part":{"type":"summary_text","text":""})");
    return;
  }
  auto indexOf = [&](const std::string& item_id) {
    auto it = output_index_.find(item_id);
    return it == output_index_.end() ? 0 : it->second;
  };
  if (t == "item.text.delta" || t == "item.reasoning.delta" || t == "item.output.delta") {
    const std::string where = ids(e.turn_id) + ",\"item_id\":" + sdk::jsonQuote(e.item_id) +
                              ",\"output_index\":" + std::to_string(indexOf(e.item_id));
    if (t == "item.text.delta")
      push("agent.session.turn.output_text.delta",
           where + ",\"content_index\":0,\"delta\":" + sdk::jsonQuote(e.delta));
    else if (t == "item.reasoning.delta")
      push("agent.session.turn.reasoning_summary_text.delta",
           where + ",\"summary_index\":0,\"delta\":" + sdk::jsonQuote(e.delta));
    else
      push("agent.output.command_execution_output.delta",
           where + ",\"delta\":" + sdk::jsonQuote(e.delta));
    return;
  }
  if (t == "item.done" && e.item) {
    const auto& item = *e.item;
    const int index = indexOf(item.id);
    const std::string item_where = ids(e.turn_id) + ",\"item_id\":" + sdk::jsonQuote(item.id) +
                                   ",\"output_index\":" + std::to_string(index);
    const std::string text = sdk::jsonQuote(item.text);
    if (item.type == "message") {
      push("agent.session.turn.output_text.done",
           item_where + ",\"content_index\":0,\"text\":" + text);
      push("agent.session.turn.content_part.done",
           item_where + ",\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":" + text +
               "}");
    } else if (item.type == "reasoning") {
      push("agent.session.turn.reasoning_summary_text.done",
           item_where + ",\"summary_index\":0,\"text\":" + text);
      push("agent.session.turn.reasoning_summary_part.done",
           item_where + ",\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":" +
               text + "},\"status\":null");
    }
    push("agent.session.turn.item.done", ids(e.turn_id) +
                                             ",\"output_index\":" + std::to_string(index) +
                                             ",\"item\":" + sessionItemJson(item));
    return;
  }
  if (e.turn && isTerminal(e.turn->status)) {
    const auto& turn = *e.turn;
    const std::string type = "agent.session.turn." + std::string(turnStatusName(turn.status));
    push(type.c_str(), ids(turn.id) + ",\"usage\":" + tokenUsageJson(turn.usage) +
                           ",\"turn\":" + turnJson(turn, agentName()));
    next_output_index_.erase(turn.id);
    push("agent.session.idle", sessionEvent());
  }
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

void SessionStream::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    wakeSubscribersLocked();
  }
  changed_.notify_all();
}

std::shared_ptr<SessionStream> SessionStreams::open(const std::string& session_id,
                                                    SessionStream::SessionLookup lookup,
                                                    SessionStream::VaultIdsLookup vault_ids) {
  std::lock_guard lock(mutex_);
  auto& slot = streams_[session_id];
  if (!slot)
    slot = std::make_shared<SessionStream>(session_id, capacity_, std::move(lookup),
                                           std::move(vault_ids));
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

}  // namespace abx::plugins::agents
