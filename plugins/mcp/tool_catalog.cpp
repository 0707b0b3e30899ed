#include "tool_catalog.h"

#include <algorithm>
#include <cctype>

namespace abx::plugins::mcp {
namespace {

constexpr int kMaxRefDepth = 32;
constexpr std::string_view kSchemaRef = "#/components/schemas/";

bool isHttpMethod(std::string_view m) {
  return m == "get" || m == "post" || m == "put" || m == "patch" || m == "delete";
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The operation's summary and description: what the tool description says.
std::string describe(const sdk::Json& op) {
  std::string text(op.get("summary").stringView());
  auto more = op.get("description").stringView();
  if (!more.empty()) text += text.empty() ? std::string(more) : ". " + std::string(more);
  return text;
}

const char* commandType(sdk::ArgType type) {
  switch (type) {
    case sdk::ArgType::integer:
      return "integer";
    case sdk::ArgType::floating:
      return "number";
    case sdk::ArgType::boolean:
      return "boolean";
    default:
      return "string";
  }
}

std::string toolName(std::string_view prefix, std::string_view name) {
  std::string out(prefix);
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out.substr(0, 64);
}

// One operation's input schema: its parameters, then its body's members.
void writeOperationSchema(sdk::JsonWriter& w, const sdk::Json& op, const sdk::Json& doc,
                          Tool& tool) {
  std::vector<std::string> required;
  w.beginObject().member("type", "object").key("properties").beginObject();
  for (const auto& p : op.get("parameters").elements()) {
    auto name = std::string(p.get("name").stringView());
    auto in = p.get("in").stringView();
    if (name.empty() || (in != "path" && in != "query")) continue;
    (in == "path" ? tool.path_params : tool.query_params).push_back(name);
    if (in == "path" || p.get("required").dump() == "true") required.push_back(name);
    w.key(name).beginObject();
    auto schema = p.get("schema");
    for (const auto& [k, v] : schema.members()) writeInlined(w.key(k), v, doc);
    if (auto d = p.get("description"); d.isString() && !schema.has("description"))
      w.member("description", d.stringView());
    w.endObject();
  }
  auto body = op.get("requestBody").get("content").get("application/json").get("schema");
  std::string body_text;
  if (!body.isMissing()) {
    sdk::JsonWriter inner;
    writeInlined(inner, body, doc);
    body_text = inner.take();
  }
  auto resolved = body_text.empty() ? sdk::Json::missing() : *sdk::Json::parse(body_text);
  for (const auto& [name, schema] : resolved.get("properties").members()) {
    if (std::find(tool.path_params.begin(), tool.path_params.end(), name) != tool.path_params.end())
      continue;
    w.key(name).value(schema);
  }
  for (const auto& r : resolved.get("required").elements()) required.emplace_back(r.stringView());
  w.endObject().member("required", required).endObject();
}

Tool operationTool(const ToolBinding& binding, const Operation& found, const sdk::Json& doc) {
  Tool tool;
  tool.name = binding.tool;
  tool.endpoint = binding.endpoint;
  tool.description = describe(found.op);
  tool.image = tool.endpoint == "browser_screenshot";
  sdk::JsonWriter w;
  writeOperationSchema(w, found.op, doc, tool);
  tool.input_schema = w.take();
  if (binding.stream_endpoint && !findOperation(doc, binding.stream_endpoint).op.isMissing())
    tool.stream_endpoint = binding.stream_endpoint;
  return tool;
}

Tool commandTool(const sdk::CommandSpec& command) {
  Tool tool;
  tool.name = toolName("command_", command.name);
  tool.endpoint = "commands_run";
  tool.command = command.name;
  tool.path_params = {};
  tool.description =
      command.description.empty() ? "Runs the command " + command.name : command.description;
  sdk::JsonWriter w;
  std::vector<std::string> required;
  w.beginObject().member("type", "object").key("properties").beginObject();
  for (const auto& arg : command.args) {
    w.key(arg.name).beginObject().member("type", commandType(arg.type));
    if (!arg.description.empty()) w.member("description", arg.description);
    if (arg.default_value)
      std::visit([&w](const auto& v) { w.key("default").value(v); }, *arg.default_value);
    w.endObject();
    if (arg.required) required.push_back(arg.name);
  }
  w.endObject().member("required", required).member("additionalProperties", false).endObject();
  tool.input_schema = w.take();
  return tool;
}

}  // namespace

const std::vector<ToolBinding>& toolBindings() {
  static const std::vector<ToolBinding> kBindings = {
      {"file_read", "download"},
      {"file_write", "upload"},
      {"file_list", "files_list"},
      {"file_stat", "files_stat"},
      {"file_search", "files_search"},
      {"file_move", "files_move"},
      {"file_delete", "files_delete"},
      {"file_mkdir", "files_mkdir"},
      {"shell", "shell", "shell_stream"},
      {"process_start", "process_start"},
      {"process_list", "process_list"},
      {"process_output", "process_output"},
      {"process_stdin", "process_stdin"},
      {"process_signal", "process_signal"},
      {"system_info", "system_info"},
      {"code_run", "code_run"},
      {"git_status", "git_status"},
      {"git_diff", "git_diff"},
      {"browser_navigate", "browser_navigate"},
      {"browser_content", "browser_content"},
      {"browser_click", "browser_click"},
      {"browser_type", "browser_type"},
      {"browser_evaluate", "browser_evaluate"},
      {"browser_screenshot", "browser_screenshot"},
  };
  return kBindings;
}

void writeInlined(sdk::JsonWriter& w, const sdk::Json& node, const sdk::Json& document, int depth) {
  if (node.isObject()) {
    auto ref = node.get("$ref").stringView();
    if (ref.starts_with(kSchemaRef) && depth < kMaxRefDepth) {
      auto target = document.get("components").get("schemas").get(ref.substr(kSchemaRef.size()));
      if (!target.isMissing()) return writeInlined(w, target, document, depth + 1);
    }
    w.beginObject();
    for (const auto& [k, v] : node.members()) {
      // x-… keys and an operation's examples mean nothing to a tool caller.
      if (k.starts_with("x-") || k == "$ref") continue;
      writeInlined(w.key(k), v, document, depth);
    }
    w.endObject();
  } else if (node.isArray()) {
    w.beginArray();
    for (const auto& e : node.elements()) writeInlined(w, e, document, depth);
    w.endArray();
  } else {
    w.value(node);
  }
}

Operation findOperation(const sdk::Json& openapi, std::string_view id) {
  for (const auto& [path, item] : openapi.get("paths").members())
    for (const auto& [method, op] : item.members())
      if (isHttpMethod(method) && op.get("operationId").stringView() == id)
        return {op, upper(method), path};
  return {};
}

std::vector<Tool> toolsFor(const sdk::Json& openapi,
                           const std::vector<const sdk::CommandSpec*>& commands,
                           const sdk::Identity& caller) {
  std::vector<Tool> tools;
  for (const auto& binding : toolBindings()) {
    auto found = findOperation(openapi, binding.endpoint);
    if (!found.op.isMissing()) tools.push_back(operationTool(binding, found, openapi));
  }
  if (findOperation(openapi, "commands_run").op.isMissing()) return tools;
  for (const auto* command : commands) {
    if (command->hidden) continue;
    // What POST /commands/{name} checks: "commands:run:<name>" (which
    // "commands:run" covers) and the command's own scopes.
    bool allowed = caller.hasScope("commands:run:" + command->name) &&
                   std::all_of(command->scopes.begin(), command->scopes.end(),
                               [&](const std::string& s) { return caller.hasScope(s); });
    if (allowed) tools.push_back(commandTool(*command));
  }
  return tools;
}

}  // namespace abx::plugins::mcp
