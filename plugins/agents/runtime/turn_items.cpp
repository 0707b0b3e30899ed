#include "turn_items.h"

#include "abx/sdk/json.h"

namespace abx::plugins::agents {
namespace {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

// Tool items keep at most this much output; the turn's max_output_bytes
// bounds the whole turn, this bounds what one item holds in memory.
constexpr std::size_t kMaxToolOutput = 4u << 20;

std::string toolItemType(const std::string& kind) {
  if (kind == "command") return "command_execution";
  if (kind == "file_change" || kind == "web_search" || kind == "todo_list") return kind;
  return "mcp_call";
}

void appendBounded(std::string& target, const std::string& text) {
  if (target.size() >= kMaxToolOutput) return;
  target.append(text, 0, kMaxToolOutput - target.size());
}

}  // namespace

TurnItems::TurnItems(std::string turn_id, std::string runtime_label, const TextRedaction& redaction,
                     IdFactory ids, const RuntimeClock& clock, Sink sink)
    : turn_id_(std::move(turn_id)),
      runtime_label_(std::move(runtime_label)),
      redaction_(redaction),
      ids_(std::move(ids)),
      clock_(clock),
      sink_(std::move(sink)) {}

void TurnItems::emit(std::string type, const Item& item, std::string delta) {
  RuntimeEvent event;
  event.type = std::move(type);
  event.turn_id = turn_id_;
  event.item_id = item.id;
  event.delta = std::move(delta);
  if (event.type == "item.added" || event.type == "item.done")
    event.item = std::make_shared<const Item>(item);
  sink_(std::move(event));
}

TurnItems::Open& TurnItems::ensure(const std::string& key, const std::string& type,
                                   const std::string& prefix) {
  auto it = open_.find(key);
  if (it != open_.end()) return it->second;
  Item item;
  item.id = ids_(prefix);
  item.turn_id = turn_id_;
  item.type = type;
  item.created_at = clock_.unixSeconds();
  if (type != "message" && type != "reasoning") item.server_label = runtime_label_;
  items_.push_back(item);
  Open open;
  open.index = items_.size() - 1;
  open.stream = redaction_.newStream();
  auto& slot = open_.emplace(key, std::move(open)).first->second;
  emit("item.added", items_[slot.index]);
  return slot;
}

void TurnItems::finishItem(Open& open, const std::string& status) {
  if (open.done) return;
  Item& item = items_[open.index];
  if (auto tail = open.stream->flush(); !tail.empty()) {
    const bool tool = item.type != "message" && item.type != "reasoning";
    if (tool) {
      appendBounded(item.output, tail);
      emit("item.output.delta", item, tail);
    } else {
      item.text += tail;
      emit(item.type == "message" ? "item.text.delta" : "item.reasoning.delta", item, tail);
    }
  }
  if (item.type != "message" && item.type != "reasoning") return endTool(open, status);
  item.status = status;
  open.done = true;
  emit("item.done", item);
}

void TurnItems::endTool(Open& open, const std::string& status) {
  Item& item = items_[open.index];
  item.status = status;
  item.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - open.began)
                         .count();
  open.done = true;
  emit("item.done", item);
}

void TurnItems::textDelta(const std::string& key, const std::string& type,
                          const std::string& prefix, const std::string& event_type,
                          const std::string& delta) {
  Open& open = ensure(key, type, prefix);
  if (open.done || delta.empty()) return;
  open.raw += delta;
  auto safe = open.stream->push(delta);
  if (safe.empty()) return;
  Item& item = items_[open.index];
  item.text += safe;
  emit(event_type, item, std::move(safe));
}

void TurnItems::fullText(const std::string& key, const std::string& type, const std::string& prefix,
                         const std::string& event_type, const std::string& text) {
  // A CLI that also streamed deltas repeats the whole text at the end (and
  // cursor repeats it once more): what was streamed already is not sent again.
  auto it = open_.find(key);
  if (it != open_.end() && it->second.done) return;
  Open& open = ensure(key, type, prefix);
  if (text.starts_with(open.raw)) {
    textDelta(key, type, prefix, event_type, text.substr(open.raw.size()));
    finishItem(open, "completed");
    return;
  }
  // The full text disagrees with the deltas: the full text wins.
  open.stream->flush();
  open.done = true;
  Item& item = items_[open.index];
  item.text = redaction_.redact(text);
  item.status = "completed";
  emit("item.done", item);
}

void TurnItems::toolStart(const ParsedEvent& event) {
  const std::string key = "t:" + event.id;
  if (open_.count(key)) return;
  // Fill the item before ensure() publishes item.added with it.
  Item item;
  item.type = toolItemType(event.tool_kind);
  item.name = event.name.empty() ? item.type : redaction_.redact(event.name);
  item.server_label = event.server.empty() ? runtime_label_ : redaction_.redact(event.server);
  if (!event.arguments.empty())
    item.arguments = redaction_.redact(event.arguments);
  else if (!event.command.empty())
    item.arguments = sdk::JsonWriter()
                         .beginObject()
                         .member("command", redaction_.redact(event.command))
                         .endObject()
                         .take();
  else
    item.arguments = "{}";
  item.id = ids_("mcp");
  if (item.type == "command_execution") item.cwd = workdir_;
  item.turn_id = turn_id_;
  item.created_at = clock_.unixSeconds();
  items_.push_back(item);
  Open open;
  open.index = items_.size() - 1;
  open.stream = redaction_.newStream();
  open_.emplace(key, std::move(open));
  emit("item.added", items_.back());
}

TurnItems::Open& TurnItems::openTool(const ParsedEvent& event) {
  const std::string key = "t:" + event.id;
  if (!open_.count(key)) {
    ParsedEvent start = event;
    start.kind = ParsedKind::tool_start;
    toolStart(start);
  }
  return open_.at(key);
}

void TurnItems::toolOutput(const ParsedEvent& event) {
  Open& open = openTool(event);
  if (open.done) return;
  auto safe = open.stream->push(event.text);
  if (safe.empty()) return;
  Item& item = items_[open.index];
  appendBounded(item.output, safe);
  emit("item.output.delta", item, std::move(safe));
}

void TurnItems::toolEnd(const ParsedEvent& event) {
  Open& open = openTool(event);
  if (open.done) return;
  Item& item = items_[open.index];
  item.exit_code = event.exit_code;
  if (!event.error.empty()) item.error = redaction_.redact(event.error);
  const std::string status = event.status == "failed" ? "failed" : "completed";
  if (!event.text.empty()) {
    // The final output replaces the streamed one (it is the complete text).
    open.stream->flush();
    item.output.clear();
    appendBounded(item.output, redaction_.redact(event.text));
    return endTool(open, status);
  }
  finishItem(open, status);
}

void TurnItems::apply(const ParsedEvent& event) {
  switch (event.kind) {
    case ParsedKind::session:
      if (!event.id.empty()) native_session_id_ = event.id;
      break;
    case ParsedKind::text_delta:
      textDelta("m:" + event.id, "message", "msg", "item.text.delta", event.text);
      break;
    case ParsedKind::message:
      fullText("m:" + event.id, "message", "msg", "item.text.delta", event.text);
      break;
    case ParsedKind::reasoning_delta:
      textDelta("r:" + event.id, "reasoning", "rs", "item.reasoning.delta", event.text);
      break;
    case ParsedKind::reasoning:
      fullText("r:" + event.id, "reasoning", "rs", "item.reasoning.delta", event.text);
      break;
    case ParsedKind::tool_start:
      toolStart(event);
      break;
    case ParsedKind::tool_output:
      toolOutput(event);
      break;
    case ParsedKind::tool_end:
      toolEnd(event);
      break;
    case ParsedKind::usage:
      if (event.usage) usage_ = *event.usage;
      break;
    case ParsedKind::error:
      if (event.fatal && !failure_)
        failure_ = TurnError{event.code.empty() ? "internal_error" : event.code,
                             redaction_.redact(event.text)};
      [[fallthrough]];
    case ParsedKind::log: {
      // An error that does not end the turn is news for the client; a fatal
      // one reaches it as the turn's failure.
      RuntimeEvent log;
      const bool warning = event.kind == ParsedKind::error && !event.fatal;
      log.type = warning ? "error" : "log";
      log.turn_id = turn_id_;
      log.code = warning ? event.code : std::string();
      log.delta = redaction_.redact(event.text);
      sink_(std::move(log));
      break;
    }
    case ParsedKind::result:
      if (event.usage) usage_ = *event.usage;
      if (!event.ok && !failure_)
        failure_ =
            TurnError{event.code.empty() ? "internal_error" : event.code,
                      redaction_.redact(event.text.empty() ? event.stop_reason : event.text)};
      break;
  }
}

void TurnItems::closeOpen(bool success) {
  for (auto& [key, open] : open_)
    if (!open.done) finishItem(open, success ? "completed" : "incomplete");
}

}  // namespace abx::plugins::agents
