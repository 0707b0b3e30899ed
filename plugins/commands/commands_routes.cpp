// A caller without a command's scopes gets exactly the "unknown command"
// answer, so the API is no oracle for which commands exist.
#include "commands_routes.h"

#include <algorithm>
#include <exception>

#include "abx/sdk/policy_limits.h"
#include "command_args.h"
#include "request_ceiling.h"

namespace abx::plugins::commands {
namespace {

void writeArg(sdk::JsonWriter& w, const sdk::CommandArg& arg) {
  w.beginObject().member("name", arg.name).member("type", sdk::argTypeName(arg.type));
  w.member("required", arg.required).key("default");
  // valueJson: a float default keeps its Python spelling ("2.0").
  w.raw(arg.default_value ? valueJson(*arg.default_value) : "null");
  w.member("description", arg.description).endObject();
}

void writeCommand(sdk::JsonWriter& w, const sdk::CommandSpec& command) {
  w.beginObject().member("name", command.name).member("description", command.description);
  w.key("args").beginArray();
  for (const auto& arg : command.args) writeArg(w, arg);
  w.endArray().endObject();
}

// Sorted, so the message does not depend on plugin start order.
std::string availableNames(const sdk::CommandRegistry& registry, const sdk::Identity& caller) {
  std::vector<std::string> names;
  for (const auto* command : registry.list())
    if (command && !command->hidden && callerMaySee(*command, caller))
      names.push_back(command->name);
  if (names.empty()) return "(none)";
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

sdk::Response failure(const sdk::Status& status) {
  return sdk::Response::error(500, status.message(),
                              status.type().empty() ? "RuntimeError" : status.type());
}

}  // namespace

bool callerMaySee(const sdk::CommandSpec& command, const sdk::Identity& caller) {
  // "commands:run" covers "commands:run:<name>", so either one admits (spec §10.2).
  if (!caller.hasScope("commands:run:" + command.name)) return false;
  return std::all_of(command.scopes.begin(), command.scopes.end(),
                     [&](const std::string& scope) { return caller.hasScope(scope); });
}

sdk::Response listCommands(const sdk::CommandRegistry& registry, const sdk::Request& request) {
  sdk::JsonWriter body;
  body.beginObject().key("commands").beginArray();
  for (const auto* command : registry.list())
    if (command && !command->hidden && callerMaySee(*command, request.identity))
      writeCommand(body, *command);
  return sdk::Response::json(body.endArray().endObject().take());
}

sdk::Response runCommand(const sdk::CommandRegistry& registry, const sdk::Request& request,
                         const ArgumentCheck& check) {
  std::string name(request.param("name").value_or(""));
  const sdk::CommandSpec* command = registry.find(name);
  if (!command || !callerMaySee(*command, request.identity))
    return sdk::Response::error(
        404,
        "Unknown command '" + name + "'; available: " + availableNames(registry, request.identity),
        "ValueError");

  auto args = bindArgs(*command, request.json);
  if (!args) return sdk::Response::error(400, args.status().message(), "ValueError");
  if (check) {
    if (auto refusal = check(name, *args))
      return sdk::Response::error(400, refusal->message, "ValueError", refusal->code);
  }

  if (!command->fn)
    return failure(sdk::Status::error("Command '" + name + "' has no implementation"));
  // The kernel catches what escapes too; catching here keeps the message.
  try {
    const RequestCeiling ceiling(sdk::policyMaxDuration(request.policy));
    auto result = command->fn(*args);
    if (!result) return failure(result.status());
    // The command's result is JSON text already; none is null.
    const std::string& text = *result;
    return sdk::Response::json(sdk::JsonWriter()
                                   .beginObject()
                                   .key("result")
                                   .raw(text.empty() ? std::string_view("null") : text)
                                   .endObject()
                                   .take());
  } catch (const std::exception& e) {
    return failure(sdk::Status::error(e.what(), "RuntimeError"));
  } catch (...) {
    return failure(sdk::Status::error("Command '" + name + "' failed", "RuntimeError"));
  }
}

}  // namespace abx::plugins::commands
