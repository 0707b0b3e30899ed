// Argument binding for POST /commands/{name}: turns a JSON kwargs object
// into typed CommandArgs (coercion, defaults, unknown and missing
// parameters), and renders CommandValues as text and as JSON.
#pragma once

#include <string>

#include "abx/sdk/commands.h"
#include "abx/sdk/json.h"
#include "abx/sdk/status.h"

namespace abx::plugins::commands {

/**
 * Coerces one JSON scalar to @p type (rules in docs/commands.md). Failures
 * are ValueError "Parameter '<name>' must be <a type>, got <value>".
 */
sdk::Result<sdk::CommandValue> coerceArg(const std::string& name, sdk::ArgType type,
                                         const sdk::JsonScalar& value);

/**
 * Binds a request body (@p kwargs, a JSON object) to @p command's args:
 * unknown keys, missing required args and coercion failures are ValueError;
 * absent optional args take their default (or stay absent when they have
 * none). A JSON null counts as absent.
 */
sdk::Result<sdk::CommandArgs> bindArgs(const sdk::CommandSpec& command, const sdk::Json& kwargs);

/** The text form used in argv placeholders: strings verbatim, 42, 2.5, true. */
std::string valueText(const sdk::CommandValue& value);

/** The JSON form used in GET /commands defaults: "x", 42, 2.5, 2.0, true. */
std::string valueJson(const sdk::CommandValue& value);

}  // namespace abx::plugins::commands
