#include "response_object.h"

#include "json_text.h"

namespace abx::plugins::agents {
namespace {

std::string numberText(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

std::string textPart(const std::string& text) {
  return JsonText().str("type", "output_text").str("text", text).raw("annotations", "[]").done();
}

}  // namespace

std::string responseIdForTurn(const std::string& turn_id) {
  return turn_id.starts_with("turn_") ? "resp_" + turn_id.substr(5) : std::string();
}

std::string turnIdForResponse(const std::string& response_id) {
  return response_id.starts_with("resp_") && response_id.size() > 5
             ? "turn_" + response_id.substr(5)
             : std::string();
}

std::string responseStatus(TurnStatus status) { return turnStatusName(status); }

std::string outputItemJson(const Item& item, bool initial) {
  JsonText o;
  o.str("id", item.id);
  if (item.type == "message") {
    o.str("type", "message").str("role", "assistant");
    o.str("status",
          initial ? "in_progress" : (item.status == "completed" ? "completed" : "incomplete"));
    o.raw("content", initial ? "[]" : "[" + textPart(item.text) + "]");
    return o.done();
  }
  if (item.type == "reasoning") {
    o.str("type", "reasoning");
    o.raw("summary",
          initial || item.text.empty()
              ? "[]"
              : "[" + JsonText().str("type", "summary_text").str("text", item.text).done() + "]");
    return o.done();
  }
  o.str("type", "mcp_call").str("server_label", item.server_label).str("name", item.name);
  o.str("arguments", initial ? std::string() : item.arguments);
  if (initial) {
    o.str("status", "in_progress");
    return o.done();
  }
  o.str("output", item.output);
  const bool failed = item.status == "failed";
  if (failed) {
    std::string why = item.error;
    if (why.empty() && item.exit_code) why = "exit code " + std::to_string(*item.exit_code);
    o.raw("error", JsonText().str("type", "mcp_tool_execution_error").str("content", why).done());
  } else {
    o.null("error");
  }
  o.str("status", failed ? "failed" : (item.status == "completed" ? "completed" : "incomplete"));
  return o.done();
}

std::string usageJson(const sdk::agents::TokenUsage& usage) {
  return JsonText()
      .num("input_tokens", usage.input_tokens)
      .raw("input_tokens_details", JsonText()
                                       .num("cached_tokens", usage.cached_input_tokens)
                                       .num("cache_write_tokens", 0)
                                       .done())
      .num("output_tokens", usage.output_tokens)
      .raw("output_tokens_details",
           JsonText().num("reasoning_tokens", usage.reasoning_tokens).done())
      .num("total_tokens", usage.input_tokens + usage.output_tokens)
      .done();
}

std::string responseJson(const std::string& id, std::int64_t created_at, const std::string& status,
                         const ResponseEcho& echo, const std::string& items_json,
                         const std::optional<TurnError>& error,
                         const sdk::agents::TokenUsage& usage, std::int64_t completed_at) {
  JsonText o;
  o.str("id", id).str("object", "response").num("created_at", created_at).str("status", status);
  o.str("model", echo.model).raw("output", items_json);
  if (error)
    o.raw("error", JsonText().str("code", error->code).str("message", error->message).done());
  else
    o.null("error");
  o.null("incomplete_details");
  o.strOrNull("instructions", echo.instructions);
  JsonText meta;
  for (const auto& [k, v] : echo.metadata) meta.str(k, v);
  o.raw("metadata", meta.done());
  o.boolean("parallel_tool_calls", echo.parallel_tool_calls);
  o.raw("temperature", echo.temperature ? numberText(*echo.temperature) : "null");
  o.raw("top_p", echo.top_p ? numberText(*echo.top_p) : "null");
  o.str("tool_choice", echo.tool_choice).raw("tools", echo.tools_json);
  o.null("access_programs");
  o.boolean("background", echo.background);
  if (completed_at > 0 && status == "completed")
    o.num("completed_at", completed_at);
  else
    o.null("completed_at");
  o.strOrNull("previous_response_id", echo.previous_response_id);
  o.boolean("store", echo.store);
  o.raw("text", R"({"format":{"type":"text"}})").str("truncation", "disabled");
  o.raw("reasoning", echo.reasoning_effort.empty()
                         ? std::string("null")
                         : JsonText().str("effort", echo.reasoning_effort).done());
  o.raw("usage", usageJson(usage));
  return o.done();
}

std::string responseJsonForTurn(const Turn& turn, const ResponseEcho& echo) {
  std::string items = "[";
  for (const auto& item : turn.items) {
    if (items.size() > 1) items += ',';
    items += outputItemJson(item);
  }
  items += ']';
  return responseJson(responseIdForTurn(turn.id), turn.created_at, responseStatus(turn.status),
                      echo, items, turn.error, turn.usage, turn.completed_at);
}

std::string inputItemJson(const InputMessage& message) {
  return JsonText()
      .str("id", message.id)
      .str("type", "message")
      .str("role", message.role)
      .str("status", "completed")
      .raw("content",
           "[" + JsonText().str("type", "input_text").str("text", message.text).done() + "]")
      .done();
}

}  // namespace abx::plugins::agents
