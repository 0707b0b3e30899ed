// The few JSON reads and writes the agents plugin's wires and files share,
// over the SDK's one JSON layer (sdk::Json, sdk::JsonWriter): a field's text
// read leniently (as the wires have always read names, labels and metadata
// values), a string map (metadata) both ways, a client's object echoed with
// its keys sorted, "a string, or null when empty" (the OpenAI objects'
// optional strings), and a turn's token usage as the two wires spell it.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/json.h"

namespace abx::plugins::agents {

/** A string as it is; a number or boolean as its JSON text; absent or null →
 *  @p fallback; an array or object as its compact JSON text. */
inline std::string textOf(const sdk::Json& value, std::string_view fallback = {}) {
  if (value.isString()) return std::string(value.stringView());
  if (value.isAbsent()) return std::string(fallback);
  return value.dump();
}

/** The members of an object, each read with textOf() (empty for a non-object). */
inline std::map<std::string, std::string> textMap(const sdk::Json& object) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : object.members()) out[key] = textOf(value);
  return out;
}

/** The members of an object sorted by key (the order the wires have always echoed them in). */
inline std::vector<std::pair<std::string, sdk::Json>> sortedMembers(const sdk::Json& object) {
  auto members = object.members();
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return members;
}

/** @p value as it was sent, with the members of every object in key order
 *  (how the wires have always echoed a client's objects). */
inline void writeKeysSorted(sdk::JsonWriter& w, const sdk::Json& value) {
  if (value.isObject()) {
    w.beginObject();
    for (const auto& [key, member] : sortedMembers(value)) {
      w.key(key);
      writeKeysSorted(w, member);
    }
    w.endObject();
  } else if (value.isArray()) {
    w.beginArray();
    for (const auto& element : value.elements()) writeKeysSorted(w, element);
    w.endArray();
  } else {
    w.value(value);
  }
}

inline void writeTextMap(sdk::JsonWriter& w, const std::map<std::string, std::string>& map) {
  w.beginObject();
  for (const auto& [key, value] : map) w.member(key, value);
  w.endObject();
}

/** @p text as a JSON string, or null when it is empty. */
inline void writeTextOrNull(sdk::JsonWriter& w, std::string_view text) {
  text.empty() ? w.null() : w.value(text);
}

/** The wire a usage object is written for. */
enum class UsageWire { responses, agents };

/** {input_tokens, input_tokens_details, output_tokens, output_tokens_details,
 *  total_tokens}; the Responses wire's details also count cache writes
 *  (none here). */
inline void writeTokenUsage(sdk::JsonWriter& w, const sdk::agents::TokenUsage& usage,
                            UsageWire wire) {
  w.beginObject()
      .member("input_tokens", usage.input_tokens)
      .key("input_tokens_details")
      .beginObject()
      .member("cached_tokens", usage.cached_input_tokens);
  if (wire == UsageWire::responses) w.member("cache_write_tokens", 0);
  w.endObject()
      .member("output_tokens", usage.output_tokens)
      .key("output_tokens_details")
      .beginObject()
      .member("reasoning_tokens", usage.reasoning_tokens)
      .endObject()
      .member("total_tokens", usage.input_tokens + usage.output_tokens)
      .endObject();
}

}  // namespace abx::plugins::agents
