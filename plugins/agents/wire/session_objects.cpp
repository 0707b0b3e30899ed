#include "session_objects.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "json_text.h"

namespace abx::plugins::agents {
namespace {

// The command line of a command_execution item: its arguments' "command".
std::string commandOf(const Item& item) {
  try {
    Poco::JSON::Parser parser;
    auto args = parser.parse(item.arguments).extract<Poco::JSON::Object::Ptr>();
    if (args && args->has("command")) return args->getValue<std::string>("command");
  } catch (...) {
  }
  return item.arguments;
}

}  // namespace

std::string agentsErrorCode(const std::string& code) {
  if (code == "runtime_not_installed" || code == "output_limit_exceeded") return "sandbox_error";
  return code;
}

std::string sessionJson(const SessionInfo& s, const std::vector<std::string>& vault_ids,
                        const std::string& error) {
  std::string vaults = "[";
  for (const auto& id : vault_ids) vaults += (vaults.size() > 1 ? "," : "") + sdk::jsonQuote(id);
  vaults += "]";
  JsonText meta;
  for (const auto& [k, v] : s.metadata) meta.str(k, v);
  const std::string agent =
      JsonText()
          .str("id", s.agent)
          .str("name", s.agent)
          .null("instructions")
          .str("model", s.agent)
          .raw("multi_agent", R"({"enabled":false,"max_concurrent_subagents":null})")
          .raw("reasoning", R"({"effort":null,"summary":null})")
          .str("service_tier", "auto")
          .raw("text", R"({"format":{"type":"text"},"verbosity":"medium"})")
          .raw("tools", "[]")
          .done();
  return JsonText()
      .str("id", s.id)
      .str("object", "agent.session")
      .num("created_at", s.created_at)
      .num("last_active_at", s.last_active_at)
      .str("status", sessionStatusName(s.status))
      .raw("error", error.empty() ? "null" : sdk::jsonQuote(error))
      .raw("metadata", meta.done())
      .raw("vault_ids", vaults)
      .null("usage")
      .raw("required_actions", "[]")
      .raw("environment", R"({"type":"none"})")
      .raw("agent", agent)
      .done();
}

std::string tokenUsageJson(const sdk::agents::TokenUsage& usage) {
  return JsonText()
      .num("input_tokens", usage.input_tokens)
      .raw("input_tokens_details",
           JsonText().num("cached_tokens", usage.cached_input_tokens).done())
      .num("output_tokens", usage.output_tokens)
      .raw("output_tokens_details",
           JsonText().num("reasoning_tokens", usage.reasoning_tokens).done())
      .num("total_tokens", usage.input_tokens + usage.output_tokens)
      .done();
}

std::string turnJson(const Turn& t, const std::string& agent) {
  JsonText o;
  o.str("id", t.id).str("object", "agent.session.turn").str("session_id", t.session_id);
  o.str("agent_id", agent).str("status", turnStatusName(t.status));
  o.num("created_at", t.created_at);
  if (t.started_at)
    o.num("started_at", t.started_at);
  else
    o.null("started_at");
  if (t.completed_at)
    o.num("completed_at", t.completed_at);
  else
    o.null("completed_at");
  if (t.error)
    o.raw("error", JsonText()
                       .str("code", agentsErrorCode(t.error->code))
                       .str("message", t.error->message)
                       .done());
  else
    o.null("error");
  if (isTerminal(t.status))
    o.raw("usage", tokenUsageJson(t.usage));
  else
    o.null("usage");
  o.null("subagent_id");
  return o.done();
}

std::string sessionItemJson(const Item& item, bool initial) {
  JsonText o;
  o.str("id", item.id).str("turn_id", item.turn_id);
  const std::string status = initial ? "in_progress" : item.status;
  if (item.type == "message") {
    o.str("type", "message")
        .str("role", "assistant")
        .str("status", status)
        .str("phase", "final_answer");
    o.raw("content",
          initial
              ? "[]"
              : "[" + JsonText().str("type", "output_text").str("text", item.text).done() + "]");
    return o.done();
  }
  if (item.type == "reasoning") {
    o.str("type", "reasoning").str("status", status);
    o.raw("summary",
          initial || item.text.empty()
              ? "[]"
              : "[" + JsonText().str("type", "summary_text").str("text", item.text).done() + "]");
    return o.done();
  }
  if (item.type == "command_execution") {
    o.str("type", "command_execution").str("command", commandOf(item));
    o.null("cwd");
    if (item.exit_code && !initial)
      o.num("exit_code", *item.exit_code);
    else
      o.null("exit_code");
    o.raw("output", initial ? "null" : sdk::jsonQuote(item.output));
    o.null("duration_ms").str("status", status);
    return o.done();
  }
  o.str("type", "mcp_call").str("server_label", item.server_label).str("name", item.name);
  // "Any JSON" on this wire: a string is always valid, whatever the CLI sent.
  o.str("arguments", item.arguments);
  o.raw("output", initial ? "null" : sdk::jsonQuote(item.output));
  o.raw("error", item.error.empty() ? "null" : sdk::jsonQuote(item.error));
  o.str("status", status);
  return o.done();
}

std::string userItemJson(const InputMessage& m, const std::string& turn_id) {
  return JsonText()
      .str("id", m.id)
      .str("type", "message")
      .str("role", "user")
      .str("status", "completed")
      .null("phase")
      .str("turn_id", turn_id)
      .raw("content", "[" + JsonText().str("type", "input_text").str("text", m.text).done() + "]")
      .done();
}

}  // namespace abx::plugins::agents
