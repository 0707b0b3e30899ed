// A command's child starts from the host's ChildEnvironment (the server's
// environment without its secrets, plus POST /env updates), then what the
// commands file declares, minus the names the host protects.
#include "command_runner.h"

#include <algorithm>
#include <memory>

#include "abx/sdk/json.h"
#include "abx/sdk/policy_limits.h"
#include "abx/sdk/utf8.h"
#include "argv_template.h"
#include "command_args.h"
#include "request_ceiling.h"

namespace abx::plugins::commands {
namespace {

void setEnv(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::string prefix = name + "=";
  for (auto& entry : env) {
    if (entry.starts_with(prefix)) {
      entry = prefix + value;
      return;
    }
  }
  env.push_back(prefix + value);
}

}  // namespace

std::vector<std::string> commandEnv(const DeclarativeCommand& command,
                                    std::vector<std::string> base) {
  std::vector<std::string> env = std::move(base);
  bool has_path = std::any_of(env.begin(), env.end(),
                              [](const std::string& e) { return e.starts_with("PATH="); });
  if (!has_path) env.emplace_back("PATH=/usr/local/bin:/usr/bin:/bin");
  for (const auto& [name, value] : command.env) setEnv(env, name, value);
  return env;
}

sdk::SpawnOptions spawnOptions(const DeclarativeCommand& command, const sdk::CommandArgs& args,
                               std::vector<std::string> base_env) {
  sdk::SpawnOptions options;
  options.argv = expandArgv(command.argv, args);
  options.env = commandEnv(command, std::move(base_env));
  options.cwd = command.cwd;
  options.stdin_pipe = false;
  return options;
}

sdk::Result<std::string> interpretRun(const DeclarativeCommand& command,
                                      const sdk::Completed& run) {
  const std::string who = "Command '" + command.name + "'";
  if (run.timed_out)
    return sdk::Status::error(who + " timed out after " + sdk::secondsText(command.timeout) + " s",
                              "TimeoutError");
  if (run.truncated)
    return sdk::Status::error(who + " output exceeded max_output_bytes (" +
                                  std::to_string(command.max_output_bytes) + ")",
                              "OutputLimitError");
  if (run.exit_code != 0) {
    std::string message = who + " exited with code " + std::to_string(run.exit_code);
    if (std::string err = sdk::messageTail(run.err, kStderrTailBytes); !err.empty())
      message += ": " + err;
    return sdk::Status::error(std::move(message), "CommandError");
  }
  if (command.output == OutputMode::json) {
    auto parsed = sdk::Json::parse(run.out);
    if (!parsed)
      return sdk::Status::error(who + " did not print valid JSON: " + parsed.status().message(),
                                "ValueError");
    return parsed->dump();
  }
  std::string_view text(run.out);
  if (text.ends_with('\n')) text.remove_suffix(1);
  return sdk::jsonQuote(text);
}

std::optional<std::string> dashArgumentRefusal(const DeclarativeCommand& command,
                                               const sdk::CommandArgs& args) {
  auto name = optionLikeArgument(command.argv, args, command.allow_dash);
  if (!name) return std::nullopt;
  return "Argument '" + *name + "' of command '" + command.name +
         "' begins with '-' and would be read as an option; the commands file must declare "
         "allow_dash: true for it";
}

sdk::CommandSpec toCommandSpec(DeclarativeCommand command,
                               const sdk::ChildEnvironment& environment) {
  sdk::CommandSpec spec;
  spec.name = command.name;
  spec.description = command.description;
  spec.args = command.args;
  spec.hidden = command.hidden;
  spec.scopes = command.scopes;
  // Shared, immutable: the fn may run on several worker threads at once.
  auto shared = std::make_shared<const DeclarativeCommand>(std::move(command));
  spec.fn = [shared, &environment](const sdk::CommandArgs& args) -> sdk::Result<std::string> {
    // The route refuses first (400); this holds for any other caller of fn.
    if (auto refusal = dashArgumentRefusal(*shared, args))
      return sdk::Status::error(*refusal, "ValueError");
    sdk::RunLimits limits;
    limits.timeout = shared->timeout;
    if (auto ceiling = RequestCeiling::current())
      limits.timeout = std::min(limits.timeout, *ceiling);
    limits.max_output_bytes = shared->max_output_bytes;
    sdk::SpawnOptions options = spawnOptions(*shared, args, environment.snapshot());
    // The commands file may name any variable; the server's secrets still never pass.
    std::erase_if(options.env, [&](const std::string& entry) {
      return environment.isProtected(std::string_view(entry).substr(0, entry.find('=')));
    });
    auto run = sdk::Subprocess::run(options, limits);
    if (!run)
      return sdk::Status::error(
          "Command '" + shared->name + "' could not start: " + run.status().message(),
          run.status().type());
    if (run->timed_out && limits.timeout < shared->timeout)
      return sdk::Status::error("Command '" + shared->name +
                                    "' stopped at the policy's limits.max_duration_seconds (" +
                                    sdk::secondsText(limits.timeout) + " s)",
                                "TimeoutError");
    return interpretRun(*shared, *run);
  };
  return spec;
}

}  // namespace abx::plugins::commands
