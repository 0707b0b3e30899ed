#include "tool_arguments.h"

#include <algorithm>

namespace abx::plugins::mcp {
namespace {

bool hasType(const sdk::Json& value, std::string_view type) {
  auto kind = value.kind();
  if (type == "string") return kind == sdk::JsonKind::string;
  if (type == "integer") return kind == sdk::JsonKind::integer;
  if (type == "number") return kind == sdk::JsonKind::integer || kind == sdk::JsonKind::number;
  if (type == "boolean") return kind == sdk::JsonKind::boolean;
  if (type == "array") return kind == sdk::JsonKind::array;
  if (type == "object") return kind == sdk::JsonKind::object;
  return true;  // a type this check does not know: the route decides
}

}  // namespace

std::optional<std::string> checkArguments(const Tool& tool, const sdk::Json& args) {
  if (!args.isAbsent() && !args.isObject()) return "arguments must be an object";
  auto schema = sdk::Json::parse(tool.input_schema);
  if (!schema) return std::nullopt;
  for (const auto& name : schema->get("required").elements())
    if (args.get(name.stringView()).isAbsent())
      return "missing required argument '" + std::string(name.stringView()) + "'";
  const auto properties = schema->get("properties");
  const auto extra = schema->get("additionalProperties");
  const bool closed = extra.kind() == sdk::JsonKind::boolean && !*extra.asBoolean();
  for (const auto& [name, value] : args.members()) {
    auto declared = properties.get(name);
    if (declared.isMissing()) {
      if (closed) return "unknown argument '" + name + "'";
      continue;
    }
    if (value.kind() == sdk::JsonKind::null) continue;
    // A path or query parameter is text in the URL whatever its JSON type:
    // a pid given as 42 is "42", a flag given as true is "true".
    const bool in_url = std::find(tool.path_params.begin(), tool.path_params.end(), name) !=
                            tool.path_params.end() ||
                        std::find(tool.query_params.begin(), tool.query_params.end(), name) !=
                            tool.query_params.end();
    if (in_url && value.kind() != sdk::JsonKind::array && value.kind() != sdk::JsonKind::object)
      continue;
    auto type = declared.get("type");
    if (type.isString() && !hasType(value, type.stringView()))
      return "argument '" + name + "' must be of type " + std::string(type.stringView());
  }
  return std::nullopt;
}

}  // namespace abx::plugins::mcp
