// The plugin owns no commands of its own in code: compiled commands come
// from other plugins through the same registry, so the handlers look the
// registry up per request instead of copying it at start().
#include "commands_plugin.h"

#include <map>
#include <memory>

#include "abx/sdk/route_table.h"
#include "command_runner.h"
#include "commands_file.h"
#include "commands_routes.h"

namespace abx::plugins::commands {
namespace {

/** What the two routes share: the registry (looked up per request) and the
 *  declarative commands' argument rules. */
struct CommandRoutes {
  const sdk::CommandRegistry* registry = nullptr;
  ArgumentCheck check;
};

sdk::Response listRoute(const CommandRoutes& routes, const sdk::Request& r) {
  return listCommands(*routes.registry, r);
}

sdk::Response runRoute(const CommandRoutes& routes, const sdk::Request& r) {
  return runCommand(*routes.registry, r, routes.check);
}

}  // namespace

sdk::Status CommandsPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {"commands", false, "Named commands: list them and run one with typed arguments"});
      !s)
    return s;

  // The declarative commands by name, for the argv rules the route applies.
  auto declared =
      std::make_shared<std::map<std::string, std::shared_ptr<const DeclarativeCommand>>>();
  if (auto path = host.settings().path("commands_file"); path && !path->empty()) {
    auto loaded = loadCommandsFile(*path);
    if (!loaded) return loaded.status();
    for (auto& command : *loaded) {
      std::string name = command.name;
      (*declared)[name] = std::make_shared<const DeclarativeCommand>(command);
      if (auto s = host.commands().add(toCommandSpec(std::move(command), host.environment())); !s)
        return sdk::Status::error(*path + ": command '" + name + "': " + s.message(), s.type());
    }
    host.log().info("loaded " + std::to_string(loaded->size()) + " command(s) from " + *path);
  }

  auto routes = std::make_shared<CommandRoutes>();
  routes->registry = &host.commands();
  routes->check = [declared](const std::string& name,
                             const sdk::CommandArgs& args) -> std::optional<ArgumentRefusal> {
    auto it = declared->find(name);
    if (it == declared->end()) return std::nullopt;
    auto message = dashArgumentRefusal(*it->second, args);
    if (!message) return std::nullopt;
    return ArgumentRefusal{*message, kArgumentIsOption};
  };
  std::shared_ptr<const CommandRoutes> context = routes;
  // No route scope: the scope a command needs ("commands:run" or
  // "commands:run:<name>") depends on the command, so the handlers check it.
  return sdk::addRoutes(host.routes(), "commands", context,
                        {{"GET",
                          "/commands",
                          "commands_list",
                          "List the commands the caller may run",
                          {},
                          &listRoute},
                         {"POST",
                          "/commands/{name}",
                          "commands_run",
                          "Run a named command with keyword arguments",
                          {},
                          &runRoute}});
}

std::unique_ptr<sdk::Plugin> makeCommandsPlugin(sdk::HostContext&) {
  return std::make_unique<CommandsPlugin>();
}

}  // namespace abx::plugins::commands
