#include "response_object.h"

#include "abx/sdk/json.h"
#include "json_fields.h"

namespace abx::plugins::agents {
namespace {

// A one-part content or summary array: [{"type": <type>, "text": <text>...}].
void writeTextParts(sdk::JsonWriter& w, bool empty, const char* type, const std::string& text,
                    bool annotations = false) {
  w.beginArray();
  if (!empty) {
    w.beginObject().member("type", type).member("text", text);
    if (annotations) w.key("annotations").beginArray().endArray();
    w.endObject();
  }
  w.endArray();
}

void writeOutputItem(sdk::JsonWriter& w, const Item& item, bool initial) {
  w.beginObject().member("id", item.id);
  if (item.type == "message") {
    w.member("type", "message").member("role", "assistant");
    w.member("status",
             initial ? "in_progress" : (item.status == "completed" ? "completed" : "incomplete"));
    w.key("content");
    writeTextParts(w, initial, "output_text", item.text, /*annotations=*/true);
    w.endObject();
    return;
  }
  if (item.type == "reasoning") {
    w.member("type", "reasoning").key("summary");
    writeTextParts(w, initial || item.text.empty(), "summary_text", item.text);
    w.endObject();
    return;
  }
  w.member("type", "mcp_call").member("server_label", item.server_label).member("name", item.name);
  w.member("arguments", initial ? std::string_view() : std::string_view(item.arguments));
  if (initial) {
    w.member("status", "in_progress").endObject();
    return;
  }
  w.member("output", item.output);
  const bool failed = item.status == "failed";
  w.key("error");
  if (failed) {
    std::string why = item.error;
    if (why.empty() && item.exit_code) why = "exit code " + std::to_string(*item.exit_code);
    w.beginObject().member("type", "mcp_tool_execution_error").member("content", why).endObject();
  } else {
    w.null();
  }
  w.member("status", failed ? "failed" : (item.status == "completed" ? "completed" : "incomplete"));
  w.endObject();
}

// The echoed sampling parameters: a number, or null when not given.
void writeNumberOrNull(sdk::JsonWriter& w, const std::optional<double>& number) {
  number ? w.value(*number) : w.null();
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

std::string incompleteReason(const std::optional<TurnError>& error) {
  if (!error) return {};
  if (error->code == "output_limit_exceeded") return "max_output_tokens";
  if (error->code == "max_turns_exceeded") return "max_messages";
  return {};
}

std::string responseStatus(const Turn& turn) {
  if (turn.status == TurnStatus::failed && !incompleteReason(turn.error).empty())
    return "incomplete";
  return turnStatusName(turn.status);
}

std::string outputItemJson(const Item& item, bool initial) {
  sdk::JsonWriter w(item.text.size() + item.arguments.size() + item.output.size() + 160);
  writeOutputItem(w, item, initial);
  return w.take();
}

std::string usageJson(const sdk::agents::TokenUsage& usage) {
  sdk::JsonWriter w(192);
  writeTokenUsage(w, usage, UsageWire::responses);
  return w.take();
}

std::string responseJson(const std::string& id, std::int64_t created_at, const std::string& status,
                         const ResponseEcho& echo, const std::string& items_json,
                         const std::optional<TurnError>& error,
                         const sdk::agents::TokenUsage& usage, std::int64_t completed_at) {
  sdk::JsonWriter w(items_json.size() + echo.tools_json.size() + echo.instructions.size() + 768);
  w.beginObject().member("id", id).member("object", "response");
  w.member("created_at", created_at).member("status", status);
  w.member("model", echo.model).key("output").raw(items_json).key("error");
  // An incomplete response has no error: its reason says why it stopped.
  const bool incomplete = status == "incomplete";
  if (error && !incomplete)
    w.beginObject().member("code", error->code).member("message", error->message).endObject();
  else
    w.null();
  w.key("incomplete_details");
  if (incomplete)
    w.beginObject().member("reason", incompleteReason(error)).endObject();
  else
    w.null();
  w.key("instructions");
  writeTextOrNull(w, echo.instructions);
  w.key("metadata");
  writeTextMap(w, echo.metadata);
  w.member("parallel_tool_calls", echo.parallel_tool_calls).key("temperature");
  writeNumberOrNull(w, echo.temperature);
  w.key("top_p");
  writeNumberOrNull(w, echo.top_p);
  w.member("tool_choice", echo.tool_choice).key("tools").raw(echo.tools_json);
  w.key("access_programs").null().member("background", echo.background).key("completed_at");
  if (completed_at > 0 && status == "completed")
    w.value(completed_at);
  else
    w.null();
  w.key("previous_response_id");
  writeTextOrNull(w, echo.previous_response_id);
  w.member("store", echo.store).key("text").beginObject().key("format").beginObject();
  w.member("type", "text").endObject().endObject().member("truncation", "disabled");
  w.key("reasoning");
  if (echo.reasoning_effort.empty())
    w.null();
  else
    w.beginObject().member("effort", echo.reasoning_effort).endObject();
  w.key("usage");
  writeTokenUsage(w, usage, UsageWire::responses);
  w.endObject();
  return w.take();
}

std::string responseJsonForTurn(const Turn& turn, const ResponseEcho& echo) {
  sdk::JsonWriter items;
  items.beginArray();
  for (const auto& item : turn.items) writeOutputItem(items, item, /*initial=*/false);
  items.endArray();
  return responseJson(responseIdForTurn(turn.id), turn.created_at, responseStatus(turn), echo,
                      items.text(), turn.error, turn.usage, turn.completed_at);
}

std::string inputItemJson(const InputMessage& message) {
  sdk::JsonWriter w(message.text.size() + 160);
  w.beginObject()
      .member("id", message.id)
      .member("type", "message")
      .member("role", message.role)
      .member("status", "completed")
      .key("content");
  writeTextParts(w, false, "input_text", message.text);
  w.endObject();
  return w.take();
}

}  // namespace abx::plugins::agents
