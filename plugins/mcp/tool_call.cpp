#include "tool_call.h"

#include <algorithm>

namespace abx::plugins::mcp {
namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A query or path value: strings as they are, other scalars in JSON spelling.
std::optional<std::string> scalarText(const sdk::Json& value) {
  switch (value.kind()) {
    case sdk::JsonKind::string:
      return std::string(value.stringView());
    case sdk::JsonKind::boolean:
    case sdk::JsonKind::integer:
    case sdk::JsonKind::number:
      return value.dump();
    default:
      return std::nullopt;
  }
}

std::string textResult(std::string_view text, bool is_error) {
  sdk::JsonWriter w;
  w.beginObject().key("content").beginArray().beginObject().member("type", "text");
  w.member("text", text).endObject().endArray().member("isError", is_error).endObject();
  return w.take();
}

std::string outcomeOf(int status) {
  if (status >= 200 && status < 300) return "ok";
  if (status == 401 || status == 403) return "denied";
  if (status == 429) return "limited";
  return "error";
}

// file_read: the file's text when it is UTF-8, else the endpoint's JSON.
std::optional<std::string> fileText(const sdk::Json& body) {
  auto decoded = decodeBase64(body.get("content_base64").stringView());
  if (!decoded || !validUtf8(*decoded)) return std::nullopt;
  return decoded;
}

std::string imageResult(const sdk::Json& body) {
  sdk::JsonWriter w;
  w.beginObject().key("content").beginArray();
  w.beginObject().member("type", "image").member("data", body.get("image_base64").stringView());
  w.member("mimeType", "image/png").endObject();
  w.beginObject().member("type", "text");
  w.member("text", "PNG " + body.get("width").dump() + "x" + body.get("height").dump());
  w.endObject().endArray().member("isError", false).endObject();
  return w.take();
}

}  // namespace

std::optional<std::string> buildCall(const Tool& tool, const sdk::Json& args,
                                     sdk::LocalCall& call) {
  if (!args.isMissing() && !args.isObject()) return "arguments must be an object";
  call.endpoint = tool.endpoint;
  if (!tool.command.empty()) call.path_params["name"] = tool.command;
  sdk::JsonWriter body;
  body.beginObject();
  bool has_body = false;
  for (const auto& [name, value] : args.members()) {
    const bool in_path = listed(tool.path_params, name);
    if (in_path || listed(tool.query_params, name)) {
      if (value.kind() == sdk::JsonKind::null) continue;
      auto text = scalarText(value);
      if (!text) return "argument '" + name + "' must be a string, number or boolean";
      if (in_path)
        call.path_params[name] = *text;
      else
        call.query.emplace_back(name, *text);
      continue;
    }
    body.key(name).value(value);
    has_body = true;
  }
  for (const auto& name : tool.path_params)
    if (!call.path_params.count(name)) return "missing required argument '" + name + "'";
  body.endObject();
  // A command's body is its keyword arguments, {} when there are none.
  if (has_body || !tool.command.empty()) call.body = body.take();
  return std::nullopt;
}

ToolOutcome toolResult(const Tool& tool, const sdk::Response& response) {
  ToolOutcome out;
  out.outcome = outcomeOf(response.status);
  if (out.outcome != "ok") {
    out.result = textResult(
        "HTTP " + std::to_string(response.status) + " from " + tool.endpoint + ": " + response.body,
        true);
    return out;
  }
  auto body = sdk::Json::parse(response.body);
  if (body && tool.image && body->get("image_base64").isString()) {
    out.result = imageResult(*body);
  } else if (body && tool.endpoint == "download") {
    auto text = fileText(*body);
    out.result = textResult(text ? *text : response.body, false);
  } else {
    out.result = textResult(response.body, false);
  }
  return out;
}

ToolOutcome runTool(sdk::HostContext& host, const Tool& tool, sdk::LocalCall call,
                    const ProgressFn& progress) {
  if (!progress || tool.stream_endpoint.empty()) return toolResult(tool, host.call(call));
  call.endpoint = tool.stream_endpoint;
  std::string text;
  std::string last_exit;
  call.on_event = [&](std::string_view name, std::string_view data) {
    auto parsed = sdk::Json::parse(data);
    std::string line = parsed && parsed->get("data").isString()
                           ? std::string(parsed->get("data").stringView())
                           : std::string(name) + ": " + std::string(data);
    if (name == "exit") last_exit = std::string(data);
    text += line + "\n";
    return progress(line);
  };
  auto answer = host.call(call);
  if (answer.status != 200 || !answer.body.empty()) return toolResult(tool, answer);
  ToolOutcome out;
  out.outcome = "ok";
  out.result = textResult(text, false);
  return out;
}

std::optional<std::string> decodeBase64(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned buffer = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=') {
      ++padding;
      continue;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
      continue;
    else
      return std::nullopt;
    if (padding) return std::nullopt;  // data after '='
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  if (padding > 2) return std::nullopt;
  return out;
}

bool validUtf8(std::string_view bytes) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    auto c = static_cast<unsigned char>(bytes[i]);
    std::size_t n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
    if (n == 9 || (n == 1 && c < 0xC2) || i + n >= bytes.size() + (n ? 0 : 1)) return false;
    for (std::size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(bytes[i + k]) >> 6) != 2) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace abx::plugins::mcp
