// The two HTTP handlers of the commands group: GET /commands and
// POST /commands/{name}. They read the host's command registry on every
// request, so commands registered by plugins that start later are served.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "abx/sdk/commands.h"
#include "abx/sdk/http.h"

namespace abx::plugins::commands {

/** True when @p caller holds every one of the command's own scopes. */
bool callerMaySee(const sdk::CommandSpec& command, const sdk::Identity& caller);

/**
 * GET /commands: {"commands":[{"name","description","args":[{"name","type",
 * "required","default","description"}]}]}, visible commands the caller may
 * see, in registration order.
 */
sdk::Response listCommands(const sdk::CommandRegistry& registry, const sdk::Request& request);

/** Why bound arguments are refused before the command runs (a 400 with this code). */
struct ArgumentRefusal {
  std::string message;
  std::string code;
};

/** Judges a command's bound arguments before it runs (the declarative commands' argv rules). */
using ArgumentCheck = std::function<std::optional<ArgumentRefusal>(const std::string& command,
                                                                   const sdk::CommandArgs& args)>;

/**
 * POST /commands/{name}: 404 unknown (or not permitted: the same answer),
 * 400 bad arguments (and what @p check refuses, with its code), 500 the
 * command failed, 200 {"result": <json>}.
 */
sdk::Response runCommand(const sdk::CommandRegistry& registry, const sdk::Request& request,
                         const ArgumentCheck& check = {});

}  // namespace abx::plugins::commands
