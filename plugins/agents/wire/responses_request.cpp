#include "responses_request.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <variant>

#include "definition/definition_rules.h"
#include "json_text.h"

namespace abx::plugins::agents {
namespace {

using Poco::Dynamic::Var;
using Poco::JSON::Array;
using Poco::JSON::Object;

WireError bad(std::string message, std::string param, std::string code = "invalid_request") {
  return WireError{400, std::move(message), std::move(code), std::move(param)};
}

bool present(const Object::Ptr& o, const std::string& key) {
  return o->has(key) && !o->isNull(key);
}

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
std::optional<WireError> contentText(const Var& content, std::string& out) {
  if (content.isString()) {
    out = content.extract<std::string>();
    return std::nullopt;
  }
  if (content.type() != typeid(Array::Ptr))
    return bad("Message content must be a string or an array of parts.", "input");
  auto parts = content.extract<Array::Ptr>();
  for (std::size_t i = 0; i < parts->size(); ++i) {
    auto part = parts->getObject(static_cast<unsigned>(i));
    if (!part) return bad("Each content part must be an object.", "input");
    auto type = part->optValue<std::string>("type", "");
    if (type == "input_text" || type == "output_text" || type == "text") {
      if (!out.empty()) out += "\n";
      out += part->optValue<std::string>("text", "");
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

std::optional<WireError> readInput(const Object::Ptr& body, ResponsesRequest& r) {
  if (!present(body, "input")) return bad("Missing required parameter: 'input'.", "input");
  Var input = body->get("input");
  if (input.isString()) {
    r.prompt = input.extract<std::string>();
    r.input.push_back({"", "user", r.prompt});
    return std::nullopt;
  }
  if (input.type() != typeid(Array::Ptr))
    return bad("'input' must be a string or an array of input items.", "input");
  auto items = input.extract<Array::Ptr>();
  std::vector<InputMessage> messages;
  for (std::size_t i = 0; i < items->size(); ++i) {
    auto item = items->getObject(static_cast<unsigned>(i));
    if (!item) return bad("Each input item must be an object.", "input");
    auto type = item->optValue<std::string>("type", "message");
    if (type != "message") continue;  // replayed reasoning, mcp_call, ...: not a prompt
    InputMessage m;
    m.role = item->optValue<std::string>("role", "");
    if (m.role != "user" && m.role != "assistant" && m.role != "system" && m.role != "developer")
      return bad("Input message role must be user, assistant, system or developer.", "input");
    if (!present(item, "content")) return bad("Input message without content.", "input");
    if (auto e = contentText(item->get("content"), m.text)) return e;
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
std::optional<WireError> readAllowedTools(const Object::Ptr& tool, const std::string& path,
                                          std::vector<std::string>& out) {
  if (!present(tool, "allowed_tools")) return std::nullopt;
  std::string list_path = path + ".allowed_tools";
  Array::Ptr names = tool->getArray("allowed_tools");
  if (auto filter = tool->getObject("allowed_tools")) {
    if (filter->optValue<bool>("read_only", false))
      return bad(
          "allowed_tools.read_only is not supported: agent runtimes cannot tell which MCP "
          "tools only read.",
          list_path + ".read_only", "unsupported_parameter");
    list_path += ".tool_names";
    names = filter->getArray("tool_names");
    if (!names && present(filter, "tool_names"))
      return bad("'tool_names' must be a list of tool names.", list_path);
    if (!names) return std::nullopt;
  }
  if (!names) return bad("'allowed_tools' must be a list of tool names.", list_path);
  for (std::size_t j = 0; j < names->size(); ++j) {
    const auto name = names->get(static_cast<unsigned>(j));
    const std::string item_path = list_path + "[" + std::to_string(j) + "]";
    if (!name.isString() || !isValidMcpToolName(name.extract<std::string>()))
      return bad("An MCP tool name must match [A-Za-z0-9_-]{1,64}.", item_path);
    out.push_back(name.extract<std::string>());
  }
  return std::nullopt;
}

// One `mcp` tool: server_label and server_url checked as a definition's MCP
// server would be, header names and values too.
std::optional<WireError> readMcpTool(const Object::Ptr& tool, const std::string& path,
                                     sdk::agents::McpServerSpec& server, Object::Ptr& shown) {
  server.name = tool->optValue<std::string>("server_label", "");
  server.url = tool->optValue<std::string>("server_url", "");
  if (server.name.empty() || server.url.empty())
    return bad("An 'mcp' tool needs server_label and server_url.", "tools");
  if (!isValidMcpServerName(server.name))
    return bad("server_label must match [A-Za-z0-9_-]{1,40}.", path + ".server_label");
  if (auto problem = httpUrlProblem(server.url))
    return bad("server_url " + *problem + ".", path + ".server_url");
  shown = new Object(*tool);
  if (present(tool, "headers")) {
    auto headers = tool->getObject("headers");
    if (!headers) return bad("'headers' must be an object of strings.", path + ".headers");
    Object::Ptr masked = new Object;
    for (const auto& name : headers->getNames()) {
      const auto value = headers->get(name);
      if (!isValidHeaderName(name) || !value.isString() ||
          headerValueProblem(value.extract<std::string>()))
        return bad("Header '" + name +
                       "' must be a valid HTTP header name with a string value "
                       "without CR, LF or NUL.",
                   path + ".headers");
      server.headers.push_back({name, value.extract<std::string>(), true});
      masked->set(name, "***");
    }
    shown->set("headers", masked);
  }
  return readAllowedTools(tool, path, server.allowed_tools);
}

std::optional<WireError> readTools(const Object::Ptr& body, ResponsesRequest& r) {
  if (!present(body, "tools")) return std::nullopt;
  auto tools = body->getArray("tools");
  if (!tools) return bad("'tools' must be an array.", "tools");
  auto echo = Array::Ptr(new Array);
  for (std::size_t i = 0; i < tools->size(); ++i) {
    auto tool = tools->getObject(static_cast<unsigned>(i));
    if (!tool) return bad("Each tool must be an object.", "tools");
    auto type = tool->optValue<std::string>("type", "");
    if (type != "mcp")
      return bad("Tools of type '" + type +
                     "' are not supported: agent runtimes run their own tools; only 'mcp' tools "
                     "are passed through.",
                 "tools", "unsupported_parameter");
    sdk::agents::McpServerSpec server;
    Object::Ptr shown;
    if (auto e = readMcpTool(tool, "tools[" + std::to_string(i) + "]", server, shown)) return e;
    r.mcp_tools.push_back(std::move(server));
    echo->add(shown);
  }
  std::ostringstream text;
  echo->stringify(text);
  r.tools_json = text.str();
  return std::nullopt;
}

std::optional<WireError> readChoices(const Object::Ptr& body, ResponsesRequest& r) {
  if (present(body, "tool_choice")) {
    Var choice = body->get("tool_choice");
    if (!choice.isString() ||
        (choice.extract<std::string>() != "auto" && choice.extract<std::string>() != "none"))
      return bad("tool_choice must be 'auto' or 'none'.", "tool_choice", "unsupported_parameter");
    r.tool_choice = choice.extract<std::string>();
  }
  if (present(body, "text")) {
    auto text = body->getObject("text");
    if (!text) return bad("'text' must be an object.", "text");
    if (auto format = text->getObject("format")) {
      auto type = format->optValue<std::string>("type", "text");
      if (type != "text")
        return bad("text.format '" + type + "' is not supported; agents answer in plain text.",
                   "text.format", "unsupported_parameter");
    }
  }
  if (present(body, "conversation"))
    return bad("'conversation' is not supported; use previous_response_id.", "conversation",
               "unsupported_parameter");
  if (present(body, "reasoning")) {
    if (auto reasoning = body->getObject("reasoning"))
      r.reasoning_effort = reasoning->optValue<std::string>("effort", "");
  }
  return std::nullopt;
}

}  // namespace

std::variant<ResponsesRequest, WireError> parseResponsesRequest(std::string_view text) {
  Object::Ptr body;
  try {
    Poco::JSON::Parser parser;
    auto parsed = parser.parse(std::string(text));
    if (parsed.type() != typeid(Object::Ptr))
      return bad("The request body must be a JSON object.", "");
    body = parsed.extract<Object::Ptr>();
  } catch (const std::exception&) {
    return bad("The request body is not valid JSON.", "");
  }
  ResponsesRequest r;
  try {
    if (!present(body, "model") || !body->get("model").isString())
      return bad("Missing required parameter: 'model'.", "model");
    r.model = body->getValue<std::string>("model");
    if (auto e = readInput(body, r)) return *e;
    if (present(body, "instructions")) {
      if (!body->get("instructions").isString())
        return bad("'instructions' must be a string.", "instructions");
      r.instructions = body->getValue<std::string>("instructions");
      r.extra_instructions = r.extra_instructions.empty()
                                 ? r.instructions
                                 : r.instructions + "\n\n" + r.extra_instructions;
    }
    auto flag = [&](const char* key, bool fallback) {
      return present(body, key) ? body->getValue<bool>(key) : fallback;
    };
    r.stream = flag("stream", false);
    r.background = flag("background", false);
    r.store = flag("store", true);
    r.parallel_tool_calls = flag("parallel_tool_calls", true);
    if (present(body, "previous_response_id"))
      r.previous_response_id = body->getValue<std::string>("previous_response_id");
    if (present(body, "metadata")) {
      auto meta = body->getObject("metadata");
      if (!meta) return bad("'metadata' must be an object of strings.", "metadata");
      for (const auto& key : meta->getNames()) r.metadata[key] = meta->getValue<std::string>(key);
    }
    if (present(body, "temperature")) r.temperature = body->getValue<double>("temperature");
    if (present(body, "top_p")) r.top_p = body->getValue<double>("top_p");
    if (auto e = readTools(body, r)) return *e;
    if (auto e = readChoices(body, r)) return *e;
    for (const auto& key : body->getNames()) {
      if (body->isNull(key)) continue;
      const bool known = std::find(kKnown.begin(), kKnown.end(), key) != kKnown.end();
      if (!known) r.ignored_params.push_back(key);
    }
  } catch (const Poco::Exception& e) {
    return bad("Invalid request: " + e.displayText(), "");
  } catch (const std::exception& e) {
    return bad(std::string("Invalid request: ") + e.what(), "");
  }
  return r;
}

std::string promptWithPreface(const ResponsesRequest& request) {
  if (request.preface.empty()) return request.prompt;
  return "Conversation so far:\n\n" + request.preface + "Current request:\n\n" + request.prompt;
}

}  // namespace abx::plugins::agents
