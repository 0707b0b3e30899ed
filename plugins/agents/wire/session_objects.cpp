#include "session_objects.h"

#include "abx/sdk/json.h"
#include "json_fields.h"

namespace abx::plugins::agents {
namespace {

// The command line of a command_execution item: its arguments' "command"
// (all of the arguments when they have none).
std::string commandOf(const Item& item) {
  auto args = sdk::Json::parse(item.arguments);
  if (!args || args->get("command").isAbsent()) return item.arguments;
  return textOf(args->get("command"));
}

// The Agent an AgentSession embeds when its definition is gone: the name,
// with the fixed settings of an agent runtime.
void writeBareSessionAgent(sdk::JsonWriter& w, const std::string& agent) {
  w.beginObject().member("id", agent).member("name", agent).key("instructions").null();
  w.member("model", agent);
  writeAgentSettings(w);
  w.key("tools").beginArray().endArray().endObject();
}

// A one-part content or summary array: [{"type": <type>, "text": <text>}].
void writeTextParts(sdk::JsonWriter& w, bool empty, const char* type, const std::string& text) {
  w.beginArray();
  if (!empty) w.beginObject().member("type", type).member("text", text).endObject();
  w.endArray();
}

void writeIntegerOrNull(sdk::JsonWriter& w, bool given, std::int64_t number) {
  given ? w.value(number) : w.null();
}

// A tool item's text that is null until the item is done (output) or when empty (error).
void writeTextOrNullIf(sdk::JsonWriter& w, bool null, const std::string& text) {
  null ? w.null() : w.value(text);
}

}  // namespace

void writeAgentSettings(sdk::JsonWriter& w) {
  w.key("multi_agent").beginObject().member("enabled", false);
  w.key("max_concurrent_subagents").null().endObject();
  w.key("reasoning").beginObject().key("effort").null().key("summary").null().endObject();
  w.member("service_tier", "auto").key("text").beginObject().key("format").beginObject();
  w.member("type", "text").endObject().member("verbosity", "medium").endObject();
}

std::string agentsErrorCode(const std::string& code) {
  if (code == "runtime_not_installed" || code == "output_limit_exceeded" ||
      code == "max_turns_exceeded")
    return "sandbox_error";
  return code;
}

std::string sessionJson(const SessionInfo& s, const SessionExtras& extras,
                        const std::string& error) {
  sdk::JsonWriter w(640);
  w.beginObject().member("id", s.id).member("object", "agent.session");
  w.member("created_at", s.created_at).member("last_active_at", s.last_active_at);
  w.member("status", sessionStatusName(s.status)).key("error");
  writeTextOrNull(w, error);
  w.key("metadata");
  writeTextMap(w, s.metadata);
  w.key("vault_ids").beginArray();
  for (const auto& id : extras.vault_ids) w.value(id);
  w.endArray().key("usage");
  if (s.usage)
    writeTokenUsage(w, *s.usage, UsageWire::agents);
  else
    w.null();
  w.key("required_actions").beginArray().endArray();
  w.key("environment").beginObject().member("type", "none").endObject().key("agent");
  if (extras.agent_json.empty())
    writeBareSessionAgent(w, s.agent);
  else
    w.raw(extras.agent_json);
  w.endObject();
  return w.take();
}

std::string tokenUsageJson(const sdk::agents::TokenUsage& usage) {
  sdk::JsonWriter w(160);
  writeTokenUsage(w, usage, UsageWire::agents);
  return w.take();
}

std::string turnJson(const Turn& t, const std::string& agent) {
  sdk::JsonWriter w(512);
  w.beginObject().member("id", t.id).member("object", "agent.session.turn");
  w.member("session_id", t.session_id).member("agent_id", agent);
  w.member("status", turnStatusName(t.status)).member("created_at", t.created_at);
  w.key("started_at");
  writeIntegerOrNull(w, t.started_at != 0, t.started_at);
  w.key("completed_at");
  writeIntegerOrNull(w, t.completed_at != 0, t.completed_at);
  w.key("error");
  if (t.error)
    w.beginObject()
        .member("code", agentsErrorCode(t.error->code))
        .member("message", t.error->message)
        .endObject();
  else
    w.null();
  w.key("usage");
  if (isTerminal(t.status))
    writeTokenUsage(w, t.usage, UsageWire::agents);
  else
    w.null();
  w.key("subagent_id").null().endObject();
  return w.take();
}

std::string sessionItemJson(const Item& item, bool initial) {
  sdk::JsonWriter w(item.text.size() + item.arguments.size() + item.output.size() + 192);
  w.beginObject().member("id", item.id).member("turn_id", item.turn_id);
  const std::string_view status = initial ? std::string_view("in_progress") : item.status;
  if (item.type == "message") {
    w.member("type", "message").member("role", "assistant").member("status", status);
    w.member("phase", "final_answer").key("content");
    writeTextParts(w, initial, "output_text", item.text);
  } else if (item.type == "reasoning") {
    w.member("type", "reasoning").member("status", status).key("summary");
    writeTextParts(w, initial || item.text.empty(), "summary_text", item.text);
  } else if (item.type == "command_execution") {
    w.member("type", "command_execution").member("command", commandOf(item));
    w.key("cwd");
    writeTextOrNull(w, item.cwd);
    w.key("exit_code");
    writeIntegerOrNull(w, item.exit_code && !initial, item.exit_code.value_or(0));
    w.key("output");
    writeTextOrNullIf(w, initial, item.output);
    w.key("duration_ms");
    writeIntegerOrNull(w, item.duration_ms && !initial, item.duration_ms.value_or(0));
    w.member("status", status);
  } else {
    w.member("type", "mcp_call").member("server_label", item.server_label);
    // "Any JSON" on this wire: a string is always valid, whatever the CLI sent.
    w.member("name", item.name).member("arguments", item.arguments).key("output");
    writeTextOrNullIf(w, initial, item.output);
    w.key("error");
    writeTextOrNullIf(w, item.error.empty(), item.error);
    w.member("status", status);
  }
  w.endObject();
  return w.take();
}

std::string userItemJson(const InputMessage& m, const std::string& turn_id) {
  sdk::JsonWriter w(m.text.size() + 192);
  w.beginObject().member("id", m.id).member("type", "message").member("role", "user");
  w.member("status", "completed").key("phase").null().member("turn_id", turn_id).key("content");
  writeTextParts(w, false, "input_text", m.text);
  w.endObject();
  return w.take();
}

}  // namespace abx::plugins::agents
