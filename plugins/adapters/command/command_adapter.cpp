// CommandAdapter: a definition's command block -> one turn's Invocation.
#include "command_adapter.h"

#include <algorithm>

#include "agent_parsers.h"

namespace abx::plugins::adapters {

using namespace sdk::agents;

std::string substituteSessionId(std::string text, std::string_view session_id) {
  const std::string_view placeholder = CommandAdapter::kSessionPlaceholder;
  for (auto pos = text.find(placeholder); pos != std::string::npos;
       pos = text.find(placeholder, pos + session_id.size()))
    text.replace(pos, placeholder.size(), session_id);
  return text;
}

AdapterCapabilities CommandAdapter::capabilities() const {
  AdapterCapabilities caps;
  caps.resume = true;          // through resume_argv, with a parser that reports a session
  caps.partial_deltas = true;  // "text" and "jsonl-claude" stream
  return caps;
}

std::vector<std::string> CommandAdapter::validate(const AgentSpec& spec) const {
  std::vector<std::string> errors;
  if (!spec.command) {
    errors.push_back("runtime 'command' needs a 'command' block with 'argv'");
    return errors;
  }
  const CommandSpec& command = *spec.command;
  if (command.argv.empty() || command.argv.front().empty())
    errors.push_back("command.argv must be a non-empty list whose first element is the program");
  if (!makeParser(command.parser)) {
    std::string known;
    for (auto name : parserNames()) known += (known.empty() ? "" : ", ") + std::string(name);
    errors.push_back("command.parser '" + command.parser + "' is unknown (known: " + known + ")");
  }
  const bool placeholder_in_argv = std::any_of(
      command.argv.begin(), command.argv.end(),
      [](const std::string& a) { return a.find(kSessionPlaceholder) != std::string::npos; });
  if (placeholder_in_argv)
    errors.push_back(
        "command.argv must not contain {session_id} (the first turn has none); put it in "
        "command.resume_argv");
  // The runtime cannot tell one model turn of an arbitrary CLI from another.
  if (spec.limits.max_turns)
    errors.push_back(
        "limits.max_turns is not supported by the command runtime; put the CLI's own switch in "
        "command.argv");
  if (!command.resume_argv.empty() && command.resume_argv.front().empty())
    errors.push_back("command.resume_argv must start with the program");
  return errors;
}

sdk::Result<Invocation> CommandAdapter::buildInvocation(const TurnContext& turn) const {
  if (!turn.spec || !turn.spec->command)
    return sdk::Status::error("runtime 'command' needs a 'command' block", "ValueError");
  const AgentSpec& spec = *turn.spec;
  const CommandSpec& command = *spec.command;

  Invocation inv;
  const bool resumed = turn.native_session_id && !turn.native_session_id->empty();
  if (resumed && !command.resume_argv.empty()) {
    for (const auto& arg : command.resume_argv)
      inv.argv.push_back(substituteSessionId(arg, *turn.native_session_id));
  } else {
    inv.argv = command.argv;
  }
  inv.argv.insert(inv.argv.end(), spec.extra_args.begin(), spec.extra_args.end());

  inv.stdin_data = turn.extra_instructions.empty() ? turn.prompt
                                                   : turn.extra_instructions + "\n\n" + turn.prompt;
  inv.env = spec.env;
  inv.env.insert(inv.env.end(), spec.secrets.begin(), spec.secrets.end());
  return inv;
}

std::unique_ptr<EventParser> CommandAdapter::newParser(const TurnContext& turn) const {
  std::string name = turn.spec && turn.spec->command ? turn.spec->command->parser : "text";
  auto parser = makeParser(name);
  // validate() rejects unknown names, so this fallback is only a safety net.
  return parser ? std::move(parser) : makeParser("text");
}

EnvList CommandAdapter::credentialEnv(const AgentSpec& spec) const { return spec.secrets; }

}  // namespace abx::plugins::adapters
