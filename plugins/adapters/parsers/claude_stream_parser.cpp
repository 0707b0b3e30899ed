// ClaudeStreamParser: Claude Code / Qwen Code stream-json lines -> ParsedEvents.
#include "claude_stream_parser.h"

#include "parsed_event.h"
#include "stream_delta_scan.h"
#include "tool_kinds.h"

namespace abx::plugins::adapters {

using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

namespace {

// Qwen streams a provider error as ordinary model text with this prefix.
constexpr std::string_view kApiErrorPrefix = "[API Error";

std::string failureCode(const std::string& text) {
  return sdk::agents::classifyCommonFailure(1, text).code;
}

// Claude's answer to `--resume <id>` when the session is gone (HOME wiped).
constexpr std::string_view kNoConversation = "No conversation found with session ID";

// The code of an error line that may carry Claude's api_error_status. The
// status decides when there is one: the text can hold a session id, and a
// uuid may well contain "401".
std::string lineFailureCode(const sdk::Json& line, const std::string& text) {
  if (text.find(kNoConversation) != std::string::npos) return "invalid_request";
  if (auto status = json::integer(line, "api_error_status")) {
    if (*status == 401 || *status == 403) return "authentication_error";
    if (*status == 429) return "rate_limit_exceeded";
  }
  return failureCode(text);
}

// The text of a failed result: error.message (qwen), errors[] (claude's
// "No conversation found ..."), the result text, else what the subtype means.
std::string resultErrorText(const sdk::Json& line) {
  std::string text = json::str(json::obj(line, "error"), "message");
  if (auto errors = json::arr(line, "errors"); errors.isArray() && text.empty()) {
    for (const auto& value : errors.elements()) {
      if (!value.isString()) continue;
      text += (text.empty() ? "" : "; ") + std::string(value.stringView());
    }
  }
  if (text.empty()) text = json::str(line, "result");
  if (!text.empty()) return text;
  const std::string subtype = json::str(line, "subtype");
  if (subtype == "error_max_turns") return "the agent stopped at its max_turns limit";
  if (subtype == "error_max_budget_usd") return "the agent stopped at its max_budget_usd limit";
  return subtype.empty() ? "the agent reported an error" : "the agent stopped: " + subtype;
}

}  // namespace

void ClaudeStreamParser::feed(std::string_view line, std::vector<ParsedEvent>& out) {
  if (line.empty()) return;
  if (auto delta = scanStreamDelta(line)) {
    if (delta->thinking)
      onThinkingDelta(std::move(delta->text), out);
    else
      onTextDelta(delta->text, out);
    return;
  }
  auto o = json::parseObject(line);
  if (!o.isObject()) {
    out.push_back(parsedEvent(ParsedKind::log, {}, std::string(line)));
    return;
  }
  const std::string type = json::str(o, "type");
  if (type == "system") {
    onSystem(o, out);
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

void ClaudeStreamParser::onSystem(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  const std::string subtype = json::str(line, "subtype");
  if (subtype == "init" && !session_sent_) {
    session_sent_ = true;
    out.push_back(parsedEvent(ParsedKind::session, json::str(line, "session_id")));
  } else if (subtype == "api_retry") {
    std::string text = "API request failed (" + json::text(line, "error") + ", status " +
                       json::text(line, "error_status") + "); retry " +
                       json::text(line, "attempt") + "/" + json::text(line, "max_retries");
    ParsedEvent e = parsedEvent(ParsedKind::error, {}, text);
    e.code = failureCode(text);
    last_retry_ = e;
    out.push_back(std::move(e));
  }
}

void ClaudeStreamParser::onStreamEvent(const sdk::Json& ev, std::vector<ParsedEvent>& out) {
  const std::string type = json::str(ev, "type");
  if (type == "message_start") {
    stream_message_id_ = json::str(json::obj(ev, "message"), "id");
  } else if (type == "content_block_start") {
    // Block indexes are not usable as ids: Qwen sends index 0 for every block.
    auto block = json::obj(ev, "content_block");
    const std::string block_type = json::str(block, "type");
    std::string id = newBlockId(stream_message_id_);
    if (block_type == "text") {
      closeOpenText(out);
      open_text_ = OpenBlock{id, {}, {}, true};
    } else if (block_type == "thinking") {
      open_thinking_ = OpenBlock{id, {}, {}, false};
    }
  } else if (type == "content_block_delta") {
    auto delta = json::obj(ev, "delta");
    const std::string delta_type = json::str(delta, "type");
    if (delta_type == "text_delta") {
      onTextDelta(json::str(delta, "text"), out);
    } else if (delta_type == "thinking_delta") {
      if (!open_thinking_)
        open_thinking_ = OpenBlock{newBlockId(stream_message_id_), {}, {}, false};
      std::string text = json::str(delta, "thinking");
      open_thinking_->text += text;
      out.push_back(parsedEvent(ParsedKind::reasoning_delta, open_thinking_->id, std::move(text)));
    }
  }
}

void ClaudeStreamParser::onThinkingDelta(std::string delta, std::vector<ParsedEvent>& out) {
  if (!open_thinking_) open_thinking_ = OpenBlock{newBlockId(stream_message_id_), {}, {}, false};
  open_thinking_->text += delta;
  out.push_back(parsedEvent(ParsedKind::reasoning_delta, open_thinking_->id, std::move(delta)));
}

void ClaudeStreamParser::onTextDelta(const std::string& delta, std::vector<ParsedEvent>& out) {
  if (!open_text_) open_text_ = OpenBlock{newBlockId(stream_message_id_), {}, {}, true};
  auto& block = *open_text_;
  block.text += delta;
  if (!block.holding) {
    out.push_back(parsedEvent(ParsedKind::text_delta, block.id, delta));
    return;
  }
  block.held += delta;
  const bool could_be_error =
      block.text.starts_with(kApiErrorPrefix) || kApiErrorPrefix.starts_with(block.text);
  if (could_be_error) return;
  block.holding = false;
  out.push_back(parsedEvent(ParsedKind::text_delta, block.id, std::move(block.held)));
  block.held.clear();
}

void ClaudeStreamParser::onAssistant(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  auto message = json::obj(line, "message");
  const std::string message_id = json::str(message, "id");
  auto content = json::arr(message, "content");
  if (!content.isArray()) return;
  // Claude's retries-exhausted message is `<synthetic>` text with these marks.
  const bool synthetic_error =
      json::flag(line, "is_api_error_message") || !json::str(line, "error").empty();

  for (const auto& block : content.elements()) {
    const std::string type = json::str(block, "type");
    if (type == "text") {
      std::string text = json::str(block, "text");
      std::string id;
      if (open_text_) {
        id = open_text_->id;
        open_text_.reset();
      } else {
        id = newBlockId(message_id);
      }
      completeText(id, text, synthetic_error || text.starts_with(kApiErrorPrefix), line, out);
    } else if (type == "thinking") {
      std::string id = open_thinking_ ? open_thinking_->id : newBlockId(message_id);
      open_thinking_.reset();
      std::string text = json::str(block, "thinking");
      if (!text.empty()) out.push_back(parsedEvent(ParsedKind::reasoning, id, std::move(text)));
    } else if (type == "tool_use") {
      const std::string id = json::str(block, "id");
      const std::string name = json::str(block, "name");
      ToolKind kind = classifyToolName(name);
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

void ClaudeStreamParser::completeText(const std::string& id, const std::string& text,
                                      bool api_error, const sdk::Json& line,
                                      std::vector<ParsedEvent>& out) {
  if (api_error) {
    ParsedEvent e = parsedEvent(ParsedKind::error, {}, text);
    e.fatal = true;
    // Claude's `error` ("authentication_failed") names the cause better than
    // its text ("Invalid API key · Fix external API key").
    e.code = lineFailureCode(line, json::str(line, "error") + " " + text);
    fatal_error_sent_ = true;
    out.push_back(std::move(e));
    return;
  }
  last_message_ = text;
  out.push_back(parsedEvent(ParsedKind::message, id, text));
}

void ClaudeStreamParser::closeOpenText(std::vector<ParsedEvent>& out) {
  if (!open_text_) return;
  OpenBlock block = std::move(*open_text_);
  open_text_.reset();
  completeText(block.id, block.text, block.text.starts_with(kApiErrorPrefix), sdk::Json(), out);
}

void ClaudeStreamParser::onUser(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  auto content = json::arr(json::obj(line, "message"), "content");
  if (!content.isArray()) return;
  for (const auto& block : content.elements()) {
    if (json::str(block, "type") != "tool_result") continue;
    ParsedEvent e = parsedEvent(ParsedKind::tool_end, json::str(block, "tool_use_id"));
    e.text = toolResultText(block);
    // The CLIs print a tool's output once, when it is done: one output delta
    // (streamed command output on the Agents wire), then the end.
    if (!e.text.empty()) out.push_back(parsedEvent(ParsedKind::tool_output, e.id, e.text));
    const bool failed = json::flag(block, "is_error");
    e.status = failed ? "failed" : "completed";
    if (failed) e.error = e.text;
    // Both CLIs mark a non-zero exit of a shell tool as is_error.
    if (tool_kinds_[e.id] == "command")
      e.exit_code = failed ? exitCodeFromToolResult(e.text) : std::optional<int>(0);
    out.push_back(std::move(e));
  }
}

void ClaudeStreamParser::onResult(const sdk::Json& line, std::vector<ParsedEvent>& out) {
  closeOpenText(out);
  auto u = json::obj(line, "usage");
  sdk::agents::TokenUsage usage;
  // Anthropic counts cache reads and writes apart from input_tokens; the
  // OpenAI wires count them in (cached_tokens is a part of input_tokens).
  usage.cached_input_tokens = json::integer(u, "cache_read_input_tokens").value_or(0);
  usage.input_tokens = json::integer(u, "input_tokens").value_or(0) + usage.cached_input_tokens +
                       json::integer(u, "cache_creation_input_tokens").value_or(0);
  usage.output_tokens = json::integer(u, "output_tokens").value_or(0);
  usage.reasoning_tokens =
      json::integer(json::obj(u, "output_tokens_details"), "thinking_tokens").value_or(0);
  // total_cost_usd is cumulative over the session; the per-invocation figure
  // is the sum over model_usage_since_last_result when Claude sends it.
  usage.cost_usd = json::number(line, "total_cost_usd");
  if (auto since = json::obj(line, "model_usage_since_last_result"); since.isObject()) {
    double cost = 0;
    for (const auto& [model, value] : since.members()) cost += json::number(value, "costUSD");
    usage.cost_usd = cost;
  }
  ParsedEvent ue = parsedEvent(ParsedKind::usage);
  ue.usage = usage;
  out.push_back(std::move(ue));

  const bool is_error = json::flag(line, "is_error");
  const std::string subtype = json::str(line, "subtype");
  const bool failed = is_error || (!subtype.empty() && subtype != "success");
  const std::string error_text = failed ? resultErrorText(line) : std::string();
  if (failed && !fatal_error_sent_) {
    ParsedEvent e = parsedEvent(ParsedKind::error, {}, error_text);
    e.fatal = true;
    e.code = lineFailureCode(line, error_text);
    fatal_error_sent_ = true;
    out.push_back(std::move(e));
  }
  if (result_sent_) return;
  result_sent_ = true;
  ParsedEvent r = parsedEvent(ParsedKind::result);
  r.ok = !failed;
  r.text = r.ok ? json::str(line, "result") : error_text;
  if (r.ok && r.text.empty()) r.text = last_message_;
  r.stop_reason = json::str(line, "stop_reason");
  if (r.stop_reason.empty()) r.stop_reason = subtype;
  r.usage = usage;
  out.push_back(std::move(r));
}

void ClaudeStreamParser::finish(int, std::vector<ParsedEvent>& out) {
  closeOpenText(out);
  if (result_sent_) return;
  result_sent_ = true;
  // No result line: the CLI died mid-turn; the runtime classifies the exit.
  // Killed while retrying (Claude retries a 401 for minutes by default): the
  // failure it was retrying is the cause.
  ParsedEvent r = parsedEvent(ParsedKind::result, {}, last_message_);
  r.ok = false;
  if (last_retry_) {
    r.code = last_retry_->code;
    r.text = "ended while retrying: " + last_retry_->text;
  }
  out.push_back(std::move(r));
}

std::string ClaudeStreamParser::newBlockId(const std::string& message_id) {
  const std::string base = message_id.empty() ? "msg" : message_id;
  std::string id;
  do {
    id = base + ":" + std::to_string(blocks_per_message_[base]++);
  } while (!used_ids_.insert(id).second);
  return id;
}

}  // namespace abx::plugins::adapters
