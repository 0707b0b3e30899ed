// A caller without a command's scopes gets exactly the "unknown command"
// answer, so the API is no oracle for which commands exist.
#include "commands_routes.h"

#include <algorithm>
#include <exception>

#include "command_args.h"

namespace abx::plugins::commands {
namespace {

std::string argJson(const sdk::CommandArg& arg) {
  std::string out = "{\"name\":" + sdk::jsonQuote(arg.name);
  out += ",\"type\":" + sdk::jsonQuote(sdk::argTypeName(arg.type));
  out += std::string(",\"required\":") + (arg.required ? "true" : "false");
  out += ",\"default\":" + (arg.default_value ? valueJson(*arg.default_value) : "null");
  out += ",\"description\":" + sdk::jsonQuote(arg.description) + "}";
  return out;
}

std::string commandJson(const sdk::CommandSpec& command) {
  std::string out = "{\"name\":" + sdk::jsonQuote(command.name);
  out += ",\"description\":" + sdk::jsonQuote(command.description) + ",\"args\":[";
  for (std::size_t i = 0; i < command.args.size(); ++i) {
    if (i) out += ',';
    out += argJson(command.args[i]);
  }
  return out + "]}";
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
  std::string body = "{\"commands\":[";
  bool first = true;
  for (const auto* command : registry.list()) {
    if (!command || command->hidden || !callerMaySee(*command, request.identity)) continue;
    if (!first) body += ',';
    first = false;
    body += commandJson(*command);
  }
  body += "]}";
  return sdk::Response::json(std::move(body));
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
    auto result = command->fn(*args);
    if (!result) return failure(result.status());
    const std::string& text = *result;
    return sdk::Response::json("{\"result\":" + (text.empty() ? std::string("null") : text) + "}");
  } catch (const std::exception& e) {
    return failure(sdk::Status::error(e.what(), "RuntimeError"));
  } catch (...) {
    return failure(sdk::Status::error("Command '" + name + "' failed", "RuntimeError"));
  }
}

}  // namespace abx::plugins::commands
