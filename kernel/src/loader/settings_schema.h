// A plugin's settings from its JSON Schema (the descriptor's config_schema):
// the manifest's `settings:` block, then the environment, then the schema's
// defaults, checked for known keys (with a did-you-mean hint), scalar types
// and required keys. A plugin never sees settings that fail this.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/settings.h"
#include "abx/sdk/status.h"

namespace abx::kernel {

/** @return the first problem found, or nullopt. A null schema accepts no settings. */
std::optional<std::string> validateSettings(const char* schema, const sdk::Settings& settings);

/** Reads an environment variable; nullopt when unset. */
using EnvReader = std::function<std::optional<std::string>(const std::string& name)>;

/** The server's own environment (getenv). */
std::optional<std::string> processEnvironment(const std::string& name);

/**
 * "ABX_<PLUGIN>_" for a plugin id: its last dot-separated segment, upper
 * case, other characters than letters and digits as '_' ("abx.agents" →
 * "ABX_AGENTS_", "com.acme.adapter.foo-bar" → "ABX_FOO_BAR_").
 */
std::string settingsEnvPrefix(std::string_view plugin_id);

/**
 * The settings a plugin runs with. For each property of @p schema: the
 * manifest's value; overridden by the first set, non-empty variable of
 * ABX_<PLUGIN>_<KEY> and the property's "x-env" names (a string or a list);
 * else the property's "default". Variables of a boolean are 1/0, true/false,
 * yes/no, on/off; of an array, comma-separated. Errors name the variable a
 * bad value came from. Failure type: ConfigError.
 */
sdk::Result<sdk::Settings> resolveSettings(const char* schema, std::string_view plugin_id,
                                           sdk::Settings manifest, const EnvReader& env);

}  // namespace abx::kernel
