// QwenStreamParser: Qwen Code stream-json lines -> ParsedEvents.
#include "qwen_stream_parser.h"

#include "parsed_event.h"
#include "stream_delta_scan.h"
#include "tool_kinds.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;
using sdk::agents::TokenUsage;

namespace {

ParsedEvent fatalError(std::string text) {
  ParsedEvent e = parsedEvent(ParsedKind::error, {}, std::move(text));
  e.fatal = true;
  e.code = sdk::agents::classifyCommonFailure(1, e.text).code;
  return e;
}

TokenUsage readUsage(const sdk::Json& u) {
  TokenUsage usage;
  usage.input_tokens = json::integer(u, "input_tokens").value_or(0);
  usage.cached_input_tokens = json::integer(u, "cache_read_input_tokens").value_or(0);
  usage.output_tokens = json::integer(u, "output_tokens").value_or(0);
  return usage;
}

bool couldBeApiError(const std::string& text) {
  constexpr auto prefix = QwenStreamParser::kApiErrorPrefix;
  return text.starts_with(prefix) || prefix.starts_with(text);
}

}  // namespace

QwenStreamParser::QwenStreamParser(std::optional<std::string> resumed_session,
                                   TokenUsage earlier_usage)
    : resumed_session_(std::move(resumed_session)), earlier_usage_(earlier_usage) {}

void QwenStreamParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  if (line.empty()) return;
  if (auto delta = scanStreamDelta(line)) {
    if (delta->thinking)
      onThinkingDelta(std::move(delta->text), out);
    else
      onTextDelta(std::move(delta->text), out);
    return;
  }
  auto o = json::parseObject(line);
  if (!o.isObject()) {
    out.push_back(parsedEvent(ParsedKind::log, {}, std::string(line)));
    return;
  }
  const std::string type = json::str(o, "type");
  if (type == "system") {
    if (json::str(o, "subtype") == "init" && session_id_.empty()) {
      session_id_ = json::str(o, "session_id");
      out.push_back(parsedEvent(ParsedKind::session, session_id_));
    }
  } else if (type == "stream_event") {
    onStreamEvent(json::obj(o, "event"), out);
  } else if (type == "assistant") {
    onAssistant(o, out);
  } else if (type == "user") {
    onUser(o, out);
  } else if (type == "result") {
    onResult(o, out);
  }
}

void QwenStreamParser::onStreamEvent(const sdk::Json& ev, std::vector<ParsedEvent>& out) {
  const std::string type = json::str(ev, "type");
  if (type == "message_start") {
    std::string id = json::str(json::obj(ev, "message"), "id");
    message_id_ = id.empty() ? "msg" : id;
  } else if (type == "content_block_start") {
    // The block index is always 0 in qwen, so blocks are counted instead.
    const std::string block_type = json::str(json::obj(ev, "content_block"), "type");
    if (block_type == "text") {
      closeOpenText(out);
      open_text_ = OpenBlock{nextBlockId(), {}, {}, true};
    } else if (block_type == "thinking") {
      open_thinking_ = OpenBlock{nextBlockId(), {}, {}, false};
    }
  } else if (type == "content_block_delta") {
    auto delta = json::obj(ev, "delta");
    const std::string delta_type = json::str(delta, "type");
    if (delta_type == "text_delta")
      onTextDelta(json::str(delta, "text"), out);
    else if (delta_type == "thinking_delta")
      onThinkingDelta(json::str(delta, "thinking"), out);
  }
}

void QwenStreamParser::onThinkingDelta(std::string delta, std::vector<ParsedEvent>& out) {
  if (!open_thinking_) open_thinking_ = OpenBlock{nextBlockId(), {}, {}, false};
  open_thinking_->text += delta;
  out.push_back(parsedEvent(ParsedKind::reasoning_delta, open_thinking_->id, std::move(delta)));
}

void QwenStreamParser::onTextDelta(std::string delta, std::vector<ParsedEvent>& out) {
  if (!open_text_) open_text_ = OpenBlock{nextBlockId(), {}, {}, true};
  auto& block = *open_text_;
  block.text += delta;
  if (!block.holding) {
    out.push_back(parsedEvent(ParsedKind::text_delta, block.id, std::move(delta)));
    return;
  }
  block.held += delta;
  if (couldBeApiError(block.text)) return;
  block.holding = false;
  out.push_back(parsedEvent(ParsedKind::text_delta, block.id, std::move(block.held)));
  block.held.clear();
}

void QwenStreamParser::onAssistant(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  auto message = json::obj(line, "message");
  // Only the last block of each API response carries non-zero usage.
  TokenUsage call = readUsage(json::obj(message, "usage"));
  call_usage_.input_tokens += call.input_tokens;
  call_usage_.cached_input_tokens += call.cached_input_tokens;
  call_usage_.output_tokens += call.output_tokens;

  auto content = json::arr(message, "content");
  if (!content.isArray()) return;
  for (const auto& block : content.elements()) {
    const std::string type = json::str(block, "type");
    if (type == "text") {
      std::string id = open_text_ ? open_text_->id : nextBlockId();
      open_text_.reset();
      completeText(id, json::str(block, "text"), out);
    } else if (type == "thinking") {
      std::string id = open_thinking_ ? open_thinking_->id : nextBlockId();
      open_thinking_.reset();
      std::string text = json::str(block, "thinking");
      if (!text.empty()) out.push_back(parsedEvent(ParsedKind::reasoning, id, std::move(text)));
    } else if (type == "tool_use") {
      const std::string id = json::str(block, "id");
      ToolKind kind = classifyToolName(json::str(block, "name"));
      ParsedEvent s = parsedEvent(ParsedKind::tool_start, id);
      s.tool_kind = kind.kind;
      s.name = wireToolName(kind);
      s.server = kind.server;
      s.arguments = json::dump(block, "input");
      if (s.arguments.empty()) s.arguments = "{}";
      if (kind.kind == "command") s.command = json::str(json::obj(block, "input"), "command");
      tool_kinds_[id] = kind.kind;
      out.push_back(std::move(s));
    }
  }
}

void QwenStreamParser::completeText(const std::string& id, const std::string& text,
                                    std::vector<ParsedEvent>& out) {
  if (text.starts_with(kApiErrorPrefix)) {
    if (!fatal_error_sent_) out.push_back(fatalError(text));
    fatal_error_sent_ = true;
    return;
  }
  last_message_ = text;
  out.push_back(parsedEvent(ParsedKind::message, id, text));
}

void QwenStreamParser::closeOpenText(std::vector<ParsedEvent>& out) {
  if (!open_text_) return;
  OpenBlock block = std::move(*open_text_);
  open_text_.reset();
  completeText(block.id, block.text, out);
}

void QwenStreamParser::onUser(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  auto content = json::arr(json::obj(line, "message"), "content");
  if (!content.isArray()) return;
  for (const auto& block : content.elements()) {
    if (json::str(block, "type") != "tool_result") continue;
    ParsedEvent e = parsedEvent(ParsedKind::tool_end, json::str(block, "tool_use_id"));
    e.text = toolResultText(block);
    const bool failed = json::flag(block, "is_error");
    e.status = failed ? "failed" : "completed";
    if (failed) e.error = e.text;
    // A shell command's non-zero exit is is_error with "Exit Code: N" in the text.
    if (tool_kinds_[e.id] == "command")
      e.exit_code = failed ? exitCodeFromToolResult(e.text) : std::optional<int>(0);
    out.push_back(std::move(e));
  }
}

TokenUsage QwenStreamParser::turnUsage(const TokenUsage& cumulative) const {
  if (!resumed_session_ || resumed_session_->empty()) return cumulative;
  const bool same_session = session_id_.empty() || session_id_ == *resumed_session_;
  const bool consistent = cumulative.input_tokens >= earlier_usage_.input_tokens &&
                          cumulative.output_tokens >= earlier_usage_.output_tokens &&
                          cumulative.cached_input_tokens >= earlier_usage_.cached_input_tokens;
  if (!same_session || !consistent) return call_usage_;
  TokenUsage usage;
  usage.input_tokens = cumulative.input_tokens - earlier_usage_.input_tokens;
  usage.cached_input_tokens = cumulative.cached_input_tokens - earlier_usage_.cached_input_tokens;
  usage.output_tokens = cumulative.output_tokens - earlier_usage_.output_tokens;
  return usage;
}

void QwenStreamParser::onResult(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeOpenText(out);
  TokenUsage usage = turnUsage(readUsage(json::obj(line, "usage")));
  ParsedEvent ue = parsedEvent(ParsedKind::usage);
  ue.usage = usage;
  out.push_back(std::move(ue));

  const bool is_error = json::flag(line, "is_error");
  const std::string subtype = json::str(line, "subtype");
  std::string error_text = json::str(json::obj(line, "error"), "message");
  if (error_text.empty()) error_text = json::str(line, "result");
  if (error_text.empty()) error_text = subtype;
  if (is_error && !fatal_error_sent_) {
    out.push_back(fatalError(error_text));
    fatal_error_sent_ = true;
  }
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = parsedEvent(ParsedKind::result);
  r.ok = !is_error && (subtype.empty() || subtype == "success");
  r.text = r.ok ? json::str(line, "result") : error_text;
  if (r.ok && r.text.empty()) r.text = last_message_;
  r.stop_reason = subtype;
  r.usage = usage;
  out.push_back(std::move(r));
}

void QwenStreamParser::finish(int, std::vector<ParsedEvent>& out) {
  closeOpenText(out);
  if (result_sent_) return;
  result_sent_ = true;
  // No result line: qwen died mid-turn or refused to start (an unknown
  // --resume id prints only to stderr); the runtime classifies the exit.
  ParsedEvent r = parsedEvent(ParsedKind::result, {}, "qwen exited without a result line");
  r.ok = false;
  out.push_back(std::move(r));
}

std::string QwenStreamParser::nextBlockId() {
  std::string id;
  do {
    id = message_id_ + ":" + std::to_string(blocks_[message_id_]++);
  } while (!used_ids_.insert(id).second);
  return id;
}

}  // namespace abx::plugins::adapters
