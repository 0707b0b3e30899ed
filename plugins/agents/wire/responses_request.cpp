#include "responses_request.h"

#include <algorithm>
#include <array>
#include <variant>

#include "definition/definition_rules.h"
#include "json_fields.h"

namespace abx::plugins::agents {
namespace {

WireError bad(std::string message, std::string param, std::string code = "invalid_request") {
  return WireError{.status = 400,
                   .message = std::move(message),
                   .code = std::move(code),
                   .param = std::move(param)};
}

bool present(const sdk::Json& o, std::string_view key) { return !o.get(key).isAbsent(); }

// Accepted and used (or harmless) as the spec lists them; any other key
// (sampling and caching knobs like temperature or max_output_tokens, or one
// this server does not know) is accepted and named back in
// X-Agent-Sandbox-Ignored-Params.
constexpr std::array<std::string_view, 16> kKnown = {"model",
                                                     "input",
                                                     "instructions",
                                                     "stream",
                                                     "background",
                                                     "store",
                                                     "previous_response_id",
                                                     "metadata",
                                                     "user",
                                                     "service_tier",
                                                     "include",
                                                     "tools",
                                                     "tool_choice",
                                                     "text",
                                                     "reasoning",
                                                     "conversation"};

// The text of a message's content: a string, or input_text/output_text parts.
std::optional<WireError> contentText(const sdk::Json& content, std::string& out) {
  if (content.isString()) {
    out = content.stringView();
    return std::nullopt;
  }
  if (!content.isArray())
    return bad("Message content must be a string or an array of parts.", "input");
  for (const auto& part : content.elements()) {
    if (!part.isObject()) return bad("Each content part must be an object.", "input");
    const auto type = textOf(part.get("type"));
    if (type == "input_text" || type == "output_text" || type == "text") {
      if (!out.empty()) out += "\n";
      out += textOf(part.get("text"));
    } else if (type == "refusal") {
      continue;
    } else if (type == "input_image" || type == "input_file" || type == "input_audio") {
      return bad("Content parts of type '" + type + "' are not supported by agent runtimes.",
                 "input", "unsupported_parameter");
    } else {
      return bad("Unsupported content part type '" + type + "'.", "input", "unsupported_parameter");
    }
  }
  return std::nullopt;
}

std::optional<WireError> readInput(const sdk::Json& body, ResponsesRequest& r) {
  const auto input = body.get("input");
  if (input.isAbsent()) return bad("Missing required parameter: 'input'.", "input");
  if (input.isString()) {
    r.prompt = input.stringView();
    r.input.push_back({"", "user", r.prompt});
    return std::nullopt;
  }
  if (!input.isArray()) return bad("'input' must be a string or an array of input items.", "input");
  std::vector<InputMessage> messages;
  for (const auto& item : input.elements()) {
    if (!item.isObject()) return bad("Each input item must be an object.", "input");
    if (textOf(item.get("type"), "message") != "message")
      continue;  // replayed reasoning, mcp_call, ...: not a prompt
    InputMessage m;
    m.role = textOf(item.get("role"));
    if (m.role != "user" && m.role != "assistant" && m.role != "system" && m.role != "developer")
      return bad("Input message role must be user, assistant, system or developer.", "input");
    if (!present(item, "content")) return bad("Input message without content.", "input");
    if (auto e = contentText(item.get("content"), m.text)) return e;
    messages.push_back(std::move(m));
  }
  auto last_user = std::find_if(messages.rbegin(), messages.rend(),
                                [](const InputMessage& m) { return m.role == "user"; });
  if (last_user == messages.rend()) return bad("'input' must contain a user message.", "input");
  const auto prompt_index = static_cast<std::size_t>(messages.rend() - last_user - 1);
  r.prompt = messages[prompt_index].text;
  std::string conversation;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto& m = messages[i];
    if (m.role == "system" || m.role == "developer") {
      if (!r.extra_instructions.empty()) r.extra_instructions += "\n\n";
      r.extra_instructions += m.text;
    } else if (i < prompt_index) {
      conversation += (m.role == "user" ? "User: " : "Assistant: ") + m.text + "\n\n";
    }
  }
  if (conversation.size() > kMaxPrefaceBytes)
    conversation.erase(0, conversation.size() - kMaxPrefaceBytes);
  r.preface = std::move(conversation);
  r.input = std::move(messages);
  return std::nullopt;
}

// allowed_tools: a list of tool names, or the SDK's filter {tool_names,
// read_only}. Every name follows the definitions' rule (definition_rules.h).
std::optional<WireError> readAllowedTools(const sdk::Json& tool, const std::string& path,
                                          std::vector<std::string>& out) {
  auto names = tool.get("allowed_tools");
  if (names.isAbsent()) return std::nullopt;
  std::string list_path = path + ".allowed_tools";
  if (names.isObject()) {
    const auto filter = names;
    auto read_only = filter.get("read_only").asBoolean(false);
    if (!read_only) return bad(read_only.status().message(), list_path + ".read_only");
    if (*read_only)
      return bad(
          "allowed_tools.read_only is not supported: agent runtimes cannot tell which MCP "
          "tools only read.",
          list_path + ".read_only", "unsupported_parameter");
    list_path += ".tool_names";
    names = filter.get("tool_names");
    if (names.isAbsent()) return std::nullopt;
    if (!names.isArray()) return bad("'tool_names' must be a list of tool names.", list_path);
  }
  if (!names.isArray()) return bad("'allowed_tools' must be a list of tool names.", list_path);
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto name = names.at(j);
    if (!name.isString() || !isValidMcpToolName(name.stringView()))
      return bad("An MCP tool name must match [A-Za-z0-9_-]{1,64}.",
                 list_path + "[" + std::to_string(j) + "]");
    out.emplace_back(name.stringView());
  }
  return std::nullopt;
}

// One `mcp` tool: server_label and server_url checked as a definition's MCP
// server would be, header names and values too. Its echo (@p shown) is the
// tool as sent with every header value "***".
std::optional<WireError> readMcpTool(const sdk::Json& tool, const std::string& path,
                                     sdk::agents::McpServerSpec& server, sdk::JsonWriter& shown) {
  server.name = textOf(tool.get("server_label"));
  server.url = textOf(tool.get("server_url"));
  if (server.name.empty() || server.url.empty())
    return bad("An 'mcp' tool needs server_label and server_url.", "tools");
  if (!isValidMcpServerName(server.name))
    return bad("server_label must match [A-Za-z0-9_-]{1,40}.", path + ".server_label");
  if (auto problem = httpUrlProblem(server.url))
    return bad("server_url " + *problem + ".", path + ".server_url");
  const auto headers = tool.get("headers");
  if (!headers.isAbsent() && !headers.isObject())
    return bad("'headers' must be an object of strings.", path + ".headers");
  for (const auto& [name, value] : sortedMembers(headers)) {
    if (!isValidHeaderName(name) || !value.isString() || headerValueProblem(value.stringView()))
      return bad("Header '" + name +
                     "' must be a valid HTTP header name with a string value "
                     "without CR, LF or NUL.",
                 path + ".headers");
    server.headers.push_back({name, std::string(value.stringView()), true});
  }
  shown.beginObject();
  for (const auto& [key, member] : sortedMembers(tool)) {
    shown.key(key);
    if (key != "headers" || headers.isAbsent()) {
      writeKeysSorted(shown, member);
      continue;
    }
    shown.beginObject();
    for (const auto& header : server.headers) shown.member(header.name, "***");
    shown.endObject();
  }
  shown.endObject();
  return readAllowedTools(tool, path, server.allowed_tools);
}

std::optional<WireError> readTools(const sdk::Json& body, ResponsesRequest& r) {
  const auto tools = body.get("tools");
  if (tools.isAbsent()) return std::nullopt;
  if (!tools.isArray()) return bad("'tools' must be an array.", "tools");
  sdk::JsonWriter echo;
  echo.beginArray();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const auto tool = tools.at(i);
    if (!tool.isObject()) return bad("Each tool must be an object.", "tools");
    auto type = textOf(tool.get("type"));
    if (type != "mcp")
      return bad("Tools of type '" + type +
                     "' are not supported: agent runtimes run their own tools; only 'mcp' tools "
                     "are passed through.",
                 "tools", "unsupported_parameter");
    sdk::agents::McpServerSpec server;
    if (auto e = readMcpTool(tool, "tools[" + std::to_string(i) + "]", server, echo)) return e;
    r.mcp_tools.push_back(std::move(server));
  }
  echo.endArray();
  r.tools_json = echo.take();
  return std::nullopt;
}

std::optional<WireError> readChoices(const sdk::Json& body, ResponsesRequest& r) {
  if (const auto choice = body.get("tool_choice"); !choice.isAbsent()) {
    if (choice.stringView() != "auto" && choice.stringView() != "none")
      return bad("tool_choice must be 'auto' or 'none'.", "tool_choice", "unsupported_parameter");
    r.tool_choice = choice.stringView();
  }
  if (const auto text = body.get("text"); !text.isAbsent()) {
    if (!text.isObject()) return bad("'text' must be an object.", "text");
    if (const auto format = text.get("format"); format.isObject()) {
      auto type = textOf(format.get("type"), "text");
      if (type != "text")
        return bad("text.format '" + type + "' is not supported; agents answer in plain text.",
                   "text.format", "unsupported_parameter");
    }
  }
  if (present(body, "conversation"))
    return bad("'conversation' is not supported; use previous_response_id.", "conversation",
               "unsupported_parameter");
  if (const auto reasoning = body.get("reasoning"); reasoning.isObject())
    r.reasoning_effort = textOf(reasoning.get("effort"));
  return std::nullopt;
}

// stream, background, store, parallel_tool_calls, temperature, top_p.
std::optional<WireError> readFlagsAndSampling(const sdk::Json& body, ResponsesRequest& r) {
  for (auto [key, flag] : {std::pair<const char*, bool*>{"stream", &r.stream},
                           {"background", &r.background},
                           {"store", &r.store},
                           {"parallel_tool_calls", &r.parallel_tool_calls}}) {
    auto value = body.get(key).asBoolean(*flag);
    if (!value) return bad(value.status().message(), key);
    *flag = *value;
  }
  for (auto [key, number] :
       {std::pair<const char*, std::optional<double>*>{"temperature", &r.temperature},
        {"top_p", &r.top_p}}) {
    if (!present(body, key)) continue;
    auto value = body.get(key).asNumber();
    if (!value) return bad(value.status().message(), key);
    *number = *value;
  }
  return std::nullopt;
}

}  // namespace

std::variant<ResponsesRequest, WireError> parseResponsesRequest(const sdk::Json& body) {
  if (!body.isObject()) return bad("The request body must be a JSON object.", "");
  ResponsesRequest r;
  if (!body.get("model").isString()) return bad("Missing required parameter: 'model'.", "model");
  r.model = body.get("model").stringView();
  if (auto e = readInput(body, r)) return *e;
  if (const auto instructions = body.get("instructions"); !instructions.isAbsent()) {
    if (!instructions.isString()) return bad("'instructions' must be a string.", "instructions");
    r.instructions = instructions.stringView();
    r.extra_instructions = r.extra_instructions.empty()
                               ? r.instructions
                               : r.instructions + "\n\n" + r.extra_instructions;
  }
  if (auto e = readFlagsAndSampling(body, r)) return *e;
  r.previous_response_id = textOf(body.get("previous_response_id"));
  if (const auto meta = body.get("metadata"); !meta.isAbsent()) {
    if (!meta.isObject()) return bad("'metadata' must be an object of strings.", "metadata");
    r.metadata = textMap(meta);
  }
  if (auto e = readTools(body, r)) return *e;
  if (auto e = readChoices(body, r)) return *e;
  for (const auto& [key, value] : sortedMembers(body)) {
    if (value.isAbsent()) continue;
    const bool known = std::find(kKnown.begin(), kKnown.end(), key) != kKnown.end();
    if (!known) r.ignored_params.push_back(key);
  }
  return r;
}

std::string promptWithPreface(const ResponsesRequest& request) {
  if (request.preface.empty()) return request.prompt;
  return "Conversation so far:\n\n" + request.preface + "Current request:\n\n" + request.prompt;
}

}  // namespace abx::plugins::agents
