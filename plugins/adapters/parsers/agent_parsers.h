// The stdout parsers the agent adapters share, by the names an agent
// definition uses in `command.parser`: "text", "jsonl-codex", "jsonl-claude".
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/** A new parser for one turn, or nullptr when @p name is not a known parser. */
std::unique_ptr<sdk::agents::EventParser> makeParser(std::string_view name);

/** The names makeParser() knows, in a stable order (for error messages). */
const std::vector<std::string_view>& parserNames();

}  // namespace abx::plugins::adapters
