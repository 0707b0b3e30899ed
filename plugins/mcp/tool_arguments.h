// The checks a tool's arguments pass before any endpoint is called: an
// object, every required argument, the declared type of each top-level
// argument, and no unknown one where the schema forbids it. A failure is a
// JSON-RPC invalid-params error; deeper checks are the route's own (its 400
// comes back as a tool error).
#pragma once

#include <optional>
#include <string>

#include "abx/sdk/json.h"
#include "tool_catalog.h"

namespace abx::plugins::mcp {

/** Why @p args do not fit @p tool's input schema, or nullopt. */
std::optional<std::string> checkArguments(const Tool& tool, const sdk::Json& args);

}  // namespace abx::plugins::mcp
