#include "response_run.h"

#include <algorithm>
#include <charconv>

#include "abx/sdk/json.h"

namespace abx::plugins::agents {

ResponseRun::ResponseRun(std::string response_id, std::int64_t created_at, ResponseEcho echo)
    : id_(std::move(response_id)), created_at_(created_at), echo_(std::move(echo)) {
  std::lock_guard lock(mutex_);
  lifecycle("response.created", echo_.background ? "queued" : "in_progress", nullptr);
}

void ResponseRun::lifecycle(const char* type, const std::string& status, const Turn* turn) {
  // The output so far: only a finished turn's (the others show none yet).
  sdk::JsonWriter items;
  items.beginArray();
  if (turn)
    for (const auto& json : done_items_) items.raw(json);
  items.endArray();
  std::optional<TurnError> error;
  sdk::agents::TokenUsage usage;
  std::int64_t completed_at = 0;
  if (turn) {
    error = turn->error;
    usage = turn->usage;
    completed_at = turn->completed_at;
  }
  const std::string response =
      responseJson(id_, created_at_, status, echo_, items.text(), error, usage, completed_at);
  push(type, response.size(), [&](sdk::JsonWriter& w) { w.key("response").raw(response); });
}

template <class Fields>
void ResponseRun::push(const char* type, std::size_t bytes, const Fields& fields) {
  sdk::JsonWriter data(bytes + 128);
  data.beginObject().member("type", type).member("sequence_number", sequence_);
  fields(data);
  data.endObject();
  Event e = startEvent(type, data.text().size());
  e.frame += data.text();
  keep(std::move(e));
}

ResponseRun::Event ResponseRun::startEvent(const char* type, std::size_t data_bytes) {
  Event e{sequence_++, type, {}, 0};
  // The JSON is one line: the SSE text is the data with its two lines around it.
  e.frame.reserve(e.type.size() + data_bytes + 16);
  e.frame += "event: ";
  e.frame += e.type;
  e.frame += "\ndata: ";
  e.data_at = e.frame.size();
  return e;
}

void ResponseRun::keep(Event e) {
  e.frame += "\n\n";
  history_bytes_ += e.frame.size();
  history_.push_back(std::move(e));
  if (history_bytes_ > kMaxHistoryBytes) cutLaggardsLocked();
}

void ResponseRun::dropPassedLocked() {
  std::size_t keep_from = dropped_ + history_.size();
  for (const auto& [id, reader] : readers_)
    if (!reader.cut) keep_from = std::min(keep_from, reader.next);
  while (dropped_ < keep_from && !history_.empty()) {
    history_bytes_ -= history_.front().frame.size();
    history_.pop_front();
    ++dropped_;
  }
}

void ResponseRun::cutLaggardsLocked() {
  // Without the cut, a client that never reads would keep the whole
  // history of a flooding turn in memory for as long as its connection lives.
  for (dropPassedLocked(); history_bytes_ > kMaxHistoryBytes; dropPassedLocked()) {
    std::size_t behind = dropped_ + history_.size();
    for (const auto& [id, reader] : readers_)
      if (!reader.cut) behind = std::min(behind, reader.next);
    bool cut_any = false, pinned_here = false;
    for (auto& [id, reader] : readers_) {
      if (reader.cut || reader.next != behind) continue;
      if (reader.pinned)
        pinned_here = true;
      else
        reader.cut = cut_any = true;
    }
    if (pinned_here || !cut_any) return;
  }
}

ResponseRun::Event ResponseRun::droppedEvent(std::int64_t sequence_number) const {
  sdk::JsonWriter data(256);
  data.beginObject()
      .member("type", "error")
      .member("sequence_number", sequence_number)
      .member("code", "events_dropped")
      .member("message",
              "this stream fell too far behind its response's events; the response goes on: "
              "GET /v1/responses/" +
                  id_ + " gives it")
      .key("param")
      .null()
      .endObject();
  Event e{sequence_number, "error", "event: error\ndata: ", 0};
  e.data_at = e.frame.size();
  e.frame += data.text();
  e.frame += "\n\n";
  return e;
}

void ResponseRun::writeWhere(sdk::JsonWriter& w, const std::string& item_id, std::size_t index) {
  w.member("item_id", item_id).member("output_index", index);
}

void ResponseRun::itemAdded(const Item& item) {
  const std::size_t index = done_items_.size();
  items_[item.id] = {index, item.type, {}, true};
  done_items_.push_back(outputItemJson(item, true));
  const std::string& added = done_items_.back();
  push("response.output_item.added", added.size(),
       [&](sdk::JsonWriter& w) { w.member("output_index", index).key("item").raw(added); });
  if (item.type == "message") {
    push("response.content_part.added", 128, [&](sdk::JsonWriter& w) {
      writeWhere(w, item.id, index);
      w.member("content_index", 0).key("part").beginObject().member("type", "output_text");
      w.member("text", "").key("annotations").beginArray().endArray().endObject();
    });
  } else if (item.type == "reasoning") {
    push("response.reasoning_summary_part.added", 128, [&](sdk::JsonWriter& w) {
      writeWhere(w, item.id, index);
      w.member("summary_index", 0).key("part").beginObject().member("type", "summary_text");
      w.member("text", "").endObject();
    });
  } else {
    push("response.mcp_call.in_progress", 64,
         [&](sdk::JsonWriter& w) { writeWhere(w, item.id, index); });
  }
}

void ResponseRun::itemDone(const Item& item) {
  auto slot = items_.find(item.id);
  if (slot == items_.end()) return;
  const std::size_t index = slot->second.output_index;
  const std::size_t bytes = item.text.size() + 64;
  // The done text, then the done part holding it (with annotations for a message).
  auto text = [&](const char* type, const char* index_key, bool logprobs) {
    push(type, bytes, [&](sdk::JsonWriter& w) {
      writeWhere(w, item.id, index);
      w.member(index_key, 0).member("text", item.text);
      if (logprobs) w.key("logprobs").beginArray().endArray();
    });
  };
  auto part = [&](const char* type, const char* index_key, const char* part_type,
                  bool annotations) {
    push(type, bytes, [&](sdk::JsonWriter& w) {
      writeWhere(w, item.id, index);
      w.member(index_key, 0).key("part").beginObject().member("type", part_type);
      w.member("text", item.text);
      if (annotations) w.key("annotations").beginArray().endArray();
      w.endObject();
    });
  };
  if (item.type == "message") {
    text("response.output_text.done", "content_index", true);
    part("response.content_part.done", "content_index", "output_text", true);
  } else if (item.type == "reasoning") {
    text("response.reasoning_summary_text.done", "summary_index", false);
    part("response.reasoning_summary_part.done", "summary_index", "summary_text", false);
  } else {
    push("response.mcp_call_arguments.done", item.arguments.size() + 64, [&](sdk::JsonWriter& w) {
      writeWhere(w, item.id, index);
      w.member("arguments", item.arguments);
    });
    const char* end =
        item.status == "failed" ? "response.mcp_call.failed" : "response.mcp_call.completed";
    push(end, 64, [&](sdk::JsonWriter& w) { writeWhere(w, item.id, index); });
  }
  done_items_[index] = outputItemJson(item);
  const std::string& done = done_items_[index];
  push("response.output_item.done", done.size(),
       [&](sdk::JsonWriter& w) { w.member("output_index", index).key("item").raw(done); });
}

// {"type", "sequence_number": <hole>, "item_id", "output_index",
// "content_index" | "summary_index", "delta": <hole>[, "logprobs": []]}
JsonTemplate ResponseRun::deltaTemplate(const char* type, const std::string& item_id,
                                        std::size_t index, bool text) {
  JsonTemplate out;
  sdk::JsonWriter w(256);
  w.beginObject().member("type", type).key("sequence_number");
  out.hole(w);
  writeWhere(w, item_id, index);
  w.member(text ? "content_index" : "summary_index", 0).key("delta");
  out.hole(w);
  if (text) w.key("logprobs").beginArray().endArray();
  w.endObject();
  out.finish(w);
  return out;
}

// The flood path: one event per text delta, filled into its item's template.
void ResponseRun::delta(const RuntimeEvent& event) {
  auto slot = items_.find(event.item_id);
  if (slot == items_.end()) return;
  const bool text = event.type == "item.text.delta";
  const char* type = text ? "response.output_text.delta" : "response.reasoning_summary_text.delta";
  auto& fill = slot->second.delta;
  if (fill.empty() || slot->second.delta_is_text != text) {
    fill = deltaTemplate(type, event.item_id, slot->second.output_index, text);
    slot->second.delta_is_text = text;
  }
  char number[24];
  const auto number_end = std::to_chars(number, number + sizeof number, sequence_).ptr;
  Event e = startEvent(type, fill.size() + event.delta.size() + event.delta.size() / 8 + 24);
  e.frame += fill.part(0);
  e.frame.append(number, number_end);
  e.frame += fill.part(1);
  sdk::appendJsonQuoted(e.frame, event.delta);
  e.frame += fill.part(2);
  keep(std::move(e));
}

void ResponseRun::onEvent(const RuntimeEvent& event) {
  bool wake = false;
  std::vector<std::shared_ptr<sdk::SseWaker>> wakers;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    const std::int64_t sequence_before = sequence_;
    const auto& type = event.type;
    if (type == "item.text.delta" || type == "item.reasoning.delta") {
      delta(event);
    } else if (type == "item.added" && event.item) {
      itemAdded(*event.item);
    } else if (type == "item.done" && event.item) {
      itemDone(*event.item);
    } else if (type == "turn.waiting") {
      lifecycle("response.queued", "queued", nullptr);
    } else if (type == "turn.started") {
      lifecycle("response.in_progress", "in_progress", nullptr);
    } else if (event.turn && isTerminal(event.turn->status)) {
      const auto status = responseStatus(*event.turn);
      // OpenAI's catalogue has no response.cancelled: a cancelled response
      // ends with response.failed whose response says status "cancelled".
      const char* name = status == "completed"    ? "response.completed"
                         : status == "incomplete" ? "response.incomplete"
                                                  : "response.failed";
      lifecycle(name, status, event.turn.get());
      finished_ = true;
    }
    wake = finished_ || sleepers_ > 0;
    if (sequence_ != sequence_before) wakers = readerWakersLocked();
  }
  // Woken with the lock let go: the event loop runs at a higher priority,
  // so a wake under the lock would have it preempt this thread and then
  // wait on the lock for it.
  for (const auto& waker : wakers) waker->wake();
  if (wake) changed_.notify_all();
}

int ResponseRun::attach(bool pinned) {
  std::lock_guard lock(mutex_);
  if (dropped_ > 0) return -1;
  const int reader = next_reader_++;
  readers_[reader] = Reader{};
  readers_[reader].pinned = pinned;
  return reader;
}

void ResponseRun::detach(int reader) {
  std::lock_guard lock(mutex_);
  readers_.erase(reader);
}

bool ResponseRun::read(int reader, std::vector<Event>& out, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  auto it = readers_.find(reader);
  if (it == readers_.end()) return false;
  Reader& state = it->second;
  if (state.cut) {
    out.push_back(droppedEvent(static_cast<std::int64_t>(state.next)));
    return false;
  }
  auto available = [&] { return state.next < dropped_ + history_.size(); };
  auto ready = [&] { return available() || finished_; };
  // A reader that just found events polls again shortly instead of being
  // woken per event: a flooding agent then costs one wake-up per batch, not
  // one per delta. An idle reader sleeps until the producer wakes it.
  if (!ready() && state.active) changed_.wait_for(lock, kBatchWindow, ready);
  if (!ready()) {
    ++sleepers_;
    changed_.wait_for(lock, wait, ready);
    --sleepers_;
  }
  state.active = available();
  while (available()) {
    out.push_back(history_[state.next - dropped_]);
    ++state.next;
  }
  return !(finished_ && !available());
}

std::vector<std::shared_ptr<sdk::SseWaker>> ResponseRun::readerWakersLocked() const {
  std::vector<std::shared_ptr<sdk::SseWaker>> wakers;
  wakers.reserve(readers_.size());
  for (const auto& [id, reader] : readers_)
    if (auto waker = reader.waker.lock()) wakers.push_back(std::move(waker));
  return wakers;
}

void ResponseRun::setWaker(int reader, std::weak_ptr<sdk::SseWaker> waker) {
  std::lock_guard lock(mutex_);
  if (auto it = readers_.find(reader); it != readers_.end()) it->second.waker = std::move(waker);
}

sdk::SseFeed::Pull ResponseRun::pull(int reader, std::int64_t after, std::string& out,
                                     std::size_t budget) {
  std::lock_guard lock(mutex_);
  auto it = readers_.find(reader);
  if (it == readers_.end()) return sdk::SseFeed::Pull::end;
  Reader& state = it->second;
  if (state.cut) {
    out += droppedEvent(static_cast<std::int64_t>(state.next)).frame;
    return sdk::SseFeed::Pull::end;
  }
  const std::size_t start = out.size();
  while (state.next < dropped_ + history_.size()) {
    if (out.size() - start >= budget) return sdk::SseFeed::Pull::more;
    const Event& e = history_[state.next - dropped_];
    if (e.sequence_number > after) out += e.frame;
    ++state.next;
  }
  return finished_ ? sdk::SseFeed::Pull::end : sdk::SseFeed::Pull::wait;
}

bool ResponseRun::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

}  // namespace abx::plugins::agents
