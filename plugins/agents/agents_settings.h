// The agents plugin's settings (manifest `settings:`, or ABX_AGENTS_<KEY>):
// the JSON Schema the loader checks them against before the plugin exists,
// and their typed reads. docs/configuration.md lists them.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "abx/sdk/settings.h"

namespace abx::plugins::agents {

inline constexpr char kAgentsSettingsSchema[] =
    R"json({"type":"object","additionalProperties":false,"properties":{)json"
    R"json("config":{"type":"string","description":"agent definitions file (YAML or JSON)"},)json"
    R"json("allow_command":{"type":"string","default":"1",)json"
    R"json("description":"0, false, no or off turn off runtime: command and extra_args"},)json"
    R"json("lock_definitions":{"type":"string","default":"0",)json"
    R"json("description":"1, true, yes or on: only the config file's definitions run"},)json"
    R"json("max_concurrent_turns":{"type":"integer","default":4,)json"
    R"json("description":"turns running at once; more wait"},)json"
    R"json("max_sessions":{"type":"integer","default":200,"description":"sessions kept"},)json"
    R"json("session_ttl_s":{"type":"integer","default":86400,)json"
    R"json("description":"seconds an idle session is kept"},)json"
    R"json("state_dir":{"type":"string",)json"
    R"json("description":"transcripts, sessions.json and agents_state.json; default: <state dir>/agents"},)json"
    R"json("state_key_file":{"type":"string",)json"
    R"json("description":"file holding the key that seals secrets in agents_state.json (32 bytes: 64 hex digits or base64); ABX_AGENTS_STATE_KEY wins"},)json"
    R"json("passthrough_env":{"type":"array",)json"
    R"json("description":"server variables agent CLIs inherit beyond the built-in list"},)json"
    R"json("event_ring":{"type":"integer","default":20000,)json"
    R"json("description":"events a session's stream keeps for Last-Event-ID replays"}}})json";

/** A switch as the agents spec reads it: @p on_words (any case) mean on. */
inline bool switchSetting(const sdk::Settings& settings, const char* key,
                          std::initializer_list<std::string_view> words, bool when_listed) {
  std::string value = settings.get(key).value_or("");
  for (auto& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto word : words)
    if (value == word) return when_listed;
  return !when_listed;
}

/** A count setting; @p fallback when unset or not positive. */
inline std::size_t positiveSetting(const sdk::Settings& settings, const char* key,
                                   std::size_t fallback) {
  auto value = settings.integer(key);
  return value && *value > 0 ? static_cast<std::size_t>(*value) : fallback;
}

}  // namespace abx::plugins::agents
