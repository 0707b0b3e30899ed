// TOML spellings for codex's `-c key=value` overrides: codex parses each value
// as TOML, so strings, lists and inline tables are written here with proper
// quoting instead of being pasted in raw (a quote or newline in a model name
// or instruction text would otherwise change what codex reads).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace abx::plugins::adapters::toml {

/** A TOML basic string: "..." with \", \\ and control characters escaped. */
std::string string(std::string_view text);

/** A TOML array of basic strings: ["a", "b"]. */
std::string stringArray(const std::vector<std::string>& items);

/** A TOML inline table from already-encoded values: {key = value, ...}; keys are quoted. */
std::string inlineTable(const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace abx::plugins::adapters::toml
