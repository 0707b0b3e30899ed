#include "response_run.h"

#include <algorithm>

#include "json_text.h"

namespace abx::plugins::agents {

ResponseRun::ResponseRun(std::string response_id, std::int64_t created_at, ResponseEcho echo)
    : id_(std::move(response_id)), created_at_(created_at), echo_(std::move(echo)) {
  std::lock_guard lock(mutex_);
  push("response.created",
       lifecycle("response.created", echo_.background ? "queued" : "in_progress", nullptr));
}

std::string ResponseRun::head(const char* type) {
  std::string out = "{\"type\":\"";
  out += type;
  out += "\",\"sequence_number\":";
  out += std::to_string(sequence_++);
  return out;
}

std::string ResponseRun::lifecycle(const char* type, const std::string& status, const Turn* turn) {
  std::string items = "[";
  if (turn)
    for (const auto& json : done_items_) {
      if (items.size() > 1) items += ',';
      items += json;
    }
  items += ']';
  std::optional<TurnError> error;
  sdk::agents::TokenUsage usage;
  std::int64_t completed_at = 0;
  if (turn) {
    error = turn->error;
    usage = turn->usage;
    completed_at = turn->completed_at;
  }
  return head(type) + ",\"response\":" +
         responseJson(id_, created_at_, status, echo_, items, error, usage, completed_at) + "}";
}

void ResponseRun::push(std::string type, std::string data) {
  Event e{sequence_ - 1, std::move(type), {}, 0};
  // The JSON is one line: the SSE text is the data with its two lines around it.
  e.frame.reserve(e.type.size() + data.size() + 16);
  e.frame += "event: ";
  e.frame += e.type;
  e.frame += "\ndata: ";
  e.data_at = e.frame.size();
  e.frame += data;
  e.frame += "\n\n";
  history_bytes_ += e.frame.size();
  history_.push_back(std::move(e));
  wakeReadersLocked();
  if (history_bytes_ > kMaxHistoryBytes) {
    std::size_t keep_from = dropped_ + history_.size();
    for (const auto& [id, reader] : readers_) keep_from = std::min(keep_from, reader.next);
    while (dropped_ < keep_from && !history_.empty()) {
      history_bytes_ -= history_.front().frame.size();
      history_.pop_front();
      ++dropped_;
    }
  }
}

void ResponseRun::itemAdded(const Item& item) {
  const std::size_t index = done_items_.size();
  items_[item.id] = {index, item.type};
  done_items_.push_back(outputItemJson(item, true));
  const std::string where =
      ",\"item_id\":" + sdk::jsonQuote(item.id) + ",\"output_index\":" + std::to_string(index);
  push("response.output_item.added", head("response.output_item.added") +
                                         ",\"output_index\":" + std::to_string(index) +
                                         ",\"item\":" + outputItemJson(item, true) + "}");
  if (item.type == "message") {
    push("response.content_part.added",
         head("response.content_part.added") + where +
             R"(,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}})");
  } else if (item.type == "reasoning") {
    push("response.reasoning_summary_part.added",
         head("response.reasoning_summary_part.added") + where +
             R"(,"summary_index":0,"part":{"type":"summary_text","text":""}})");
  } else {
    push("response.mcp_call.in_progress", head("response.mcp_call.in_progress") + where + "}");
  }
}

void ResponseRun::itemDone(const Item& item) {
  auto slot = items_.find(item.id);
  if (slot == items_.end()) return;
  const std::size_t index = slot->second.output_index;
  const std::string where =
      ",\"item_id\":" + sdk::jsonQuote(item.id) + ",\"output_index\":" + std::to_string(index);
  const std::string text = sdk::jsonQuote(item.text);
  if (item.type == "message") {
    push("response.output_text.done", head("response.output_text.done") + where +
                                          ",\"content_index\":0,\"text\":" + text +
                                          ",\"logprobs\":[]}");
    push("response.content_part.done",
         head("response.content_part.done") + where +
             ",\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":" + text +
             ",\"annotations\":[]}}");
  } else if (item.type == "reasoning") {
    push("response.reasoning_summary_text.done", head("response.reasoning_summary_text.done") +
                                                     where +
                                                     ",\"summary_index\":0,\"text\":" + text + "}");
    push("response.reasoning_summary_part.done",
         head("response.reasoning_summary_part.done") + where +
             ",\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":" + text + "}}");
  } else {
    push("response.mcp_call_arguments.done",
         head("response.mcp_call_arguments.done") + where +
             ",\"arguments\":" + sdk::jsonQuote(item.arguments) + "}");
    const char* end =
        item.status == "failed" ? "response.mcp_call.failed" : "response.mcp_call.completed";
    push(end, head(end) + where + "}");
  }
  done_items_[index] = outputItemJson(item);
  push("response.output_item.done", head("response.output_item.done") +
                                        ",\"output_index\":" + std::to_string(index) +
                                        ",\"item\":" + done_items_[index] + "}");
}

void ResponseRun::onEvent(const RuntimeEvent& event) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    const auto& type = event.type;
    if (type == "item.text.delta" || type == "item.reasoning.delta") {
      auto slot = items_.find(event.item_id);
      if (slot != items_.end()) {
        const bool text = type == "item.text.delta";
        const char* name =
            text ? "response.output_text.delta" : "response.reasoning_summary_text.delta";
        push(name, head(name) + ",\"item_id\":" + sdk::jsonQuote(event.item_id) +
                       ",\"output_index\":" + std::to_string(slot->second.output_index) +
                       (text ? ",\"content_index\":0" : ",\"summary_index\":0") + ",\"delta\":" +
                       sdk::jsonQuote(event.delta) + (text ? ",\"logprobs\":[]}" : "}"));
      }
    } else if (type == "item.added" && event.item) {
      itemAdded(*event.item);
    } else if (type == "item.done" && event.item) {
      itemDone(*event.item);
    } else if (type == "turn.started") {
      push("response.in_progress", lifecycle("response.in_progress", "in_progress", nullptr));
    } else if (event.turn && isTerminal(event.turn->status)) {
      const auto status = responseStatus(event.turn->status);
      // OpenAI's catalogue has no response.cancelled: a cancelled response
      // ends with response.failed whose response says status "cancelled".
      const char* name =
          event.turn->status == TurnStatus::completed ? "response.completed" : "response.failed";
      push(name, lifecycle(name, status, event.turn.get()));
      finished_ = true;
    }
    wake = finished_ || sleepers_ > 0;
  }
  if (wake) changed_.notify_all();
}

int ResponseRun::attach() {
  std::lock_guard lock(mutex_);
  if (dropped_ > 0) return -1;
  const int reader = next_reader_++;
  readers_[reader] = Reader{};
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

void ResponseRun::wakeReadersLocked() {
  for (auto& [id, reader] : readers_)
    if (auto waker = reader.waker.lock()) waker->wake();
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
